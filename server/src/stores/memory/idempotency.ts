// In-memory idempotency store (idempotency.backend memory): per replica, lost on restart. Capped
// at `maxEntries` records; when full of live records a new claim throws StoreFullError, which the
// route turns into 503 SVC_IDEMPOTENCY_STORE_FULL before the mutation runs. Existing keys (replays,
// reclaims, completions) keep working at the cap.
import { claimRetentionMs, decideClaim, idempotencyStorageKey, type IdempotencyRecord } from '../shared.js';
import { StoreFullError, type ClaimResult, type IdempotencyKey, type IdempotencyStore, type StoredResponse } from '../types.js';
import { ExpiringMap } from './expiring-map.js';

export interface MemoryIdempotencyOptions {
  /** Records (claimed or completed) kept at once; default 100,000. */
  readonly maxEntries?: number;
}

export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly records: ExpiringMap<IdempotencyRecord>;

  constructor(options: MemoryIdempotencyOptions = {}) {
    this.records = new ExpiringMap((record) => record.expiresAtMs, options.maxEntries ?? 100_000);
  }

  claim(partitioned: IdempotencyKey, fingerprint: string, nowMs: number, inProgressTtlMs: number, ttlMs: number): Promise<ClaimResult> {
    const key = idempotencyStorageKey(partitioned);
    const decision = decideClaim(this.records.get(key, nowMs), fingerprint, nowMs, inProgressTtlMs);
    if (decision !== 'take') return Promise.resolve(decision);
    const record: IdempotencyRecord = {
      fingerprint,
      done: false,
      claimedAtMs: nowMs,
      expiresAtMs: nowMs + claimRetentionMs(inProgressTtlMs, ttlMs),
    };
    if (!this.records.set(key, record, nowMs)) return Promise.reject(new StoreFullError('idempotency'));
    return Promise.resolve({ state: 'claimed' });
  }

  complete(partitioned: IdempotencyKey, fingerprint: string, response: StoredResponse | undefined, nowMs: number, ttlMs: number): Promise<void> {
    const key = idempotencyStorageKey(partitioned);
    const current = this.records.get(key, nowMs);
    // A live record under another fingerprint belongs to someone else: leave it.
    if (current !== undefined && current.fingerprint !== fingerprint) return Promise.resolve();
    if (ttlMs <= 0) {
      this.records.delete(key);
      return Promise.resolve();
    }
    // Copy the response so later mutation of the caller's object cannot change what is replayed.
    const stored = response === undefined ? undefined : { status: response.status, headers: { ...response.headers }, body: response.body };
    const record: IdempotencyRecord = { fingerprint, done: true, claimedAtMs: nowMs, expiresAtMs: nowMs + ttlMs, response: stored };
    // Completing a key that was never claimed here (its claim expired) still records it; at the
    // cap that is refused quietly: the mutation already ran, only the replay is lost.
    this.records.set(key, record, nowMs);
    return Promise.resolve();
  }

  release(partitioned: IdempotencyKey, fingerprint: string): Promise<void> {
    const key = idempotencyStorageKey(partitioned);
    // The record is looked at regardless of expiry: deleting an expired one is harmless.
    const current = this.records.get(key, Number.NEGATIVE_INFINITY);
    if (current !== undefined && current.fingerprint === fingerprint && !current.done) this.records.delete(key);
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.records.clear();
    return Promise.resolve();
  }
}
