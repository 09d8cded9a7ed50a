// In-memory replay store: the highest continuation counter per session id and the sealed-session
// deny list, for tests and single-process runs (state is lost on restart; each replica has its
// own, so it does not stop a replay sent to another replica). Bounded by a global cap and a
// per-tenant quota below it, each for the counters and the deny list: a tenant at its quota gets
// QuotaExceededError (its own 429) while other tenants continue and invalidate sessions; at the
// global cap the store fails closed (StoreUnavailableError), because evicting a record would
// re-open a replay.
import { NO_OWNER, type ReplayStore } from '../types.js';
import { ExpiringMap } from './expiring-map.js';
import { mapBounds, refusalError, type MemoryLimits } from './limits.js';

/** Bounds of the counters and, separately, of the deny list; default cap 1,000,000 each. */
export type MemoryReplayOptions = Pick<MemoryLimits, 'maxEntries' | 'maxPerOwner'>;

export class MemoryReplayStore implements ReplayStore {
  private readonly counters: ExpiringMap<number>;
  private readonly denied: ExpiringMap<true>;

  constructor(options: MemoryReplayOptions = {}) {
    this.counters = new ExpiringMap(mapBounds(options, 1_000_000));
    this.denied = new ExpiringMap(mapBounds(options, 1_000_000));
  }

  advance(sessionId: string, counter: number, expiresAtMs: number, nowMs: number, owner: string = NO_OWNER): Promise<boolean> {
    const current = this.counters.get(sessionId, nowMs);
    if (current !== undefined && counter <= current) return Promise.resolve(false);
    const existing = current === undefined ? undefined : this.counters.peek(sessionId);
    // Keep the record as long as the longest-lived blob that carried this session id.
    const keepUntil = existing === undefined ? expiresAtMs : Math.max(existing.expiresAtMs, expiresAtMs);
    if (keepUntil > nowMs) {
      const refusal = this.counters.set(sessionId, counter, keepUntil, nowMs, existing?.owner ?? owner);
      if (refusal !== undefined) return Promise.reject(refusalError('replay', refusal));
    }
    return Promise.resolve(true);
  }

  deny(sessionId: string, expiresAtMs: number, nowMs: number, owner: string = NO_OWNER): Promise<void> {
    if (expiresAtMs <= nowMs) return Promise.resolve();
    const current = this.denied.get(sessionId, nowMs) === undefined ? undefined : this.denied.peek(sessionId);
    if (current !== undefined && current.expiresAtMs >= expiresAtMs) return Promise.resolve();
    const refusal = this.denied.set(sessionId, true, expiresAtMs, nowMs, current?.owner ?? owner);
    if (refusal !== undefined) return Promise.reject(refusalError('replay', refusal));
    return Promise.resolve();
  }

  isDenied(sessionId: string, nowMs: number): Promise<boolean> {
    return Promise.resolve(this.denied.get(sessionId, nowMs) !== undefined);
  }

  close(): Promise<void> {
    this.counters.clear();
    this.denied.clear();
    return Promise.resolve();
  }
}
