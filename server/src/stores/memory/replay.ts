// In-memory replay store: the highest continuation counter per session id and the sealed-session
// deny list, for tests and single-process runs (state is lost on restart; each replica has its
// own, so it does not stop a replay sent to another replica). Capped: when full of live entries
// the store fails closed (StoreUnavailableError), because evicting a record would re-open a replay.
import { StoreFullError, StoreUnavailableError, type ReplayStore } from '../types.js';
import { ExpiringMap } from './expiring-map.js';

interface CounterRecord {
  readonly counter: number;
  readonly expiresAtMs: number;
}

export interface MemoryReplayOptions {
  /** Live counter records plus deny-list entries each capped at this many; default 1,000,000. */
  readonly maxEntries?: number;
}

export class MemoryReplayStore implements ReplayStore {
  private readonly counters: ExpiringMap<CounterRecord>;
  private readonly denied: ExpiringMap<number>;

  constructor(options: MemoryReplayOptions = {}) {
    const maxEntries = options.maxEntries ?? 1_000_000;
    this.counters = new ExpiringMap((record) => record.expiresAtMs, maxEntries);
    this.denied = new ExpiringMap((expiresAtMs) => expiresAtMs, maxEntries);
  }

  advance(sessionId: string, counter: number, expiresAtMs: number, nowMs: number): Promise<boolean> {
    const current = this.counters.get(sessionId, nowMs);
    if (current !== undefined && counter <= current.counter) return Promise.resolve(false);
    // Keep the record as long as the longest-lived blob that carried this session id.
    const keepUntil = current === undefined ? expiresAtMs : Math.max(current.expiresAtMs, expiresAtMs);
    if (keepUntil > nowMs && !this.counters.set(sessionId, { counter, expiresAtMs: keepUntil }, nowMs)) {
      return Promise.reject(new StoreUnavailableError('replay', new StoreFullError('replay')));
    }
    return Promise.resolve(true);
  }

  deny(sessionId: string, expiresAtMs: number, nowMs: number): Promise<void> {
    if (expiresAtMs <= nowMs) return Promise.resolve();
    const current = this.denied.get(sessionId, nowMs);
    if (current !== undefined && current >= expiresAtMs) return Promise.resolve();
    if (!this.denied.set(sessionId, expiresAtMs, nowMs)) {
      return Promise.reject(new StoreUnavailableError('replay', new StoreFullError('replay')));
    }
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
