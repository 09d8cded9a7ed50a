// Redis replay store: the highest continuation counter per session id and the sealed-session deny
// list, shared by every replica. advance and deny are Lua compare-and-set scripts; isDenied is one
// GET compared with the caller's clock.
import type { ReplayStore } from '../types.js';
import type { RedisConnection } from './connection.js';
import { PHYSICAL_TTL_SLACK_MS } from './keys.js';
import { REPLAY_ADVANCE, REPLAY_DENY } from './scripts.js';

export class RedisReplayStore implements ReplayStore {
  private closed = false;

  constructor(private readonly connection: RedisConnection) {
    connection.acquire();
  }

  advance(sessionId: string, counter: number, expiresAtMs: number, nowMs: number): Promise<boolean> {
    const key = this.connection.keys.replayCounter(sessionId);
    return this.connection.run('replay', async () => {
      const reply = await this.connection.evalScript(REPLAY_ADVANCE, [key], [String(counter), String(expiresAtMs), String(nowMs), String(PHYSICAL_TTL_SLACK_MS)]);
      return reply === 1;
    });
  }

  deny(sessionId: string, expiresAtMs: number, nowMs: number): Promise<void> {
    if (expiresAtMs <= nowMs) return Promise.resolve();
    const key = this.connection.keys.replayDeny(sessionId);
    return this.connection.run('replay', async () => {
      await this.connection.evalScript(REPLAY_DENY, [key], [String(expiresAtMs), String(nowMs), String(PHYSICAL_TTL_SLACK_MS)]);
    });
  }

  isDenied(sessionId: string, nowMs: number): Promise<boolean> {
    const key = this.connection.keys.replayDeny(sessionId);
    return this.connection.run('replay', async (client) => {
      const value = await client.get(key);
      return value !== null && Number(value) > nowMs;
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.connection.release();
  }
}
