// In-memory server-side sessions (session.backend memory): opaque payloads by id with a TTL.
// Per process: a session created on one replica is unknown to the others. Capped; at the cap a
// new session fails closed (StoreUnavailableError) instead of evicting a live one.
import { StoreFullError, StoreUnavailableError, type SessionStore } from '../types.js';
import { ExpiringMap } from './expiring-map.js';

interface SessionRecord {
  readonly payload: string;
  readonly expiresAtMs: number;
}

export interface MemorySessionOptions {
  /** Live sessions; default 100,000. */
  readonly maxEntries?: number;
}

export class MemorySessionStore implements SessionStore {
  private readonly sessions: ExpiringMap<SessionRecord>;

  constructor(options: MemorySessionOptions = {}) {
    this.sessions = new ExpiringMap((record) => record.expiresAtMs, options.maxEntries ?? 100_000);
  }

  put(sessionId: string, payload: string, expiresAtMs: number, nowMs: number): Promise<void> {
    // Writing an already-expired session is the same as removing it.
    if (expiresAtMs <= nowMs) {
      this.sessions.delete(sessionId);
      return Promise.resolve();
    }
    if (!this.sessions.set(sessionId, { payload, expiresAtMs }, nowMs)) {
      return Promise.reject(new StoreUnavailableError('session', new StoreFullError('session')));
    }
    return Promise.resolve();
  }

  get(sessionId: string, nowMs: number): Promise<string | undefined> {
    return Promise.resolve(this.sessions.get(sessionId, nowMs)?.payload);
  }

  delete(sessionId: string, nowMs: number): Promise<boolean> {
    const live = this.sessions.get(sessionId, nowMs) !== undefined;
    this.sessions.delete(sessionId);
    return Promise.resolve(live);
  }

  close(): Promise<void> {
    this.sessions.clear();
    return Promise.resolve();
  }
}
