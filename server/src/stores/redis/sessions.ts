// Redis server-side sessions (session.backend redis): one string per session id holding
// "<expiresAtMs>:<payload>", written with SET ... PX so value and garbage-collection TTL land
// atomically; expiry is checked against the caller's clock on read (see keys.ts).
import type { SessionStore } from '../types.js';
import type { RedisConnection } from './connection.js';
import { PHYSICAL_TTL_SLACK_MS, splitExpiring } from './keys.js';
import { SESSION_DELETE } from './scripts.js';

export class RedisSessionStore implements SessionStore {
  private closed = false;

  constructor(private readonly connection: RedisConnection) {
    connection.acquire();
  }

  put(sessionId: string, payload: string, expiresAtMs: number, nowMs: number): Promise<void> {
    const key = this.connection.keys.session(sessionId);
    return this.connection.run('session', async (client) => {
      // Writing an already-expired session is the same as removing it.
      if (expiresAtMs <= nowMs) await client.del(key);
      else await client.set(key, `${expiresAtMs}:${payload}`, 'PX', expiresAtMs - nowMs + PHYSICAL_TTL_SLACK_MS);
    });
  }

  get(sessionId: string, nowMs: number): Promise<string | undefined> {
    const key = this.connection.keys.session(sessionId);
    return this.connection.run('session', async (client) => {
      const value = await client.get(key);
      if (value === null) return undefined;
      const parsed = splitExpiring(value);
      if (parsed === undefined) throw new Error('corrupt session record');
      return parsed.expiresAtMs > nowMs ? parsed.rest : undefined;
    });
  }

  delete(sessionId: string, nowMs: number): Promise<boolean> {
    const key = this.connection.keys.session(sessionId);
    return this.connection.run('session', async () => (await this.connection.evalScript(SESSION_DELETE, [key], [String(nowMs)])) === 1);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.connection.release();
  }
}
