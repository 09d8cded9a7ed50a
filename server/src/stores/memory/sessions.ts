// In-memory server-side sessions (session.backend memory): opaque payloads by id with a TTL.
// Per process: a session created on one replica is unknown to the others. Bounded by a global cap
// and a per-tenant quota below it, in sessions and in payload bytes: a tenant at its quota gets
// QuotaExceededError (its own 429) while other tenants keep creating sessions; at the global cap a
// new session fails closed (StoreUnavailableError) instead of evicting a live one.
import { NO_OWNER, type SessionStore } from '../types.js';
import { ExpiringMap } from './expiring-map.js';
import { mapBounds, refusalError, type MemoryLimits } from './limits.js';

/** Defaults: 100,000 sessions, no per-owner quota, no byte bound. */
export type MemorySessionOptions = MemoryLimits;

export class MemorySessionStore implements SessionStore {
  private readonly sessions: ExpiringMap<string>;

  constructor(options: MemorySessionOptions = {}) {
    this.sessions = new ExpiringMap({ ...mapBounds(options, 100_000), sizeOf: (payload) => 64 + payload.length });
  }

  put(sessionId: string, payload: string, expiresAtMs: number, nowMs: number, owner: string = NO_OWNER): Promise<void> {
    // Writing an already-expired session is the same as removing it.
    if (expiresAtMs <= nowMs) {
      this.sessions.delete(sessionId);
      return Promise.resolve();
    }
    const refusal = this.sessions.set(sessionId, payload, expiresAtMs, nowMs, owner);
    if (refusal !== undefined) return Promise.reject(refusalError('session', refusal));
    return Promise.resolve();
  }

  get(sessionId: string, nowMs: number): Promise<string | undefined> {
    return Promise.resolve(this.sessions.get(sessionId, nowMs));
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
