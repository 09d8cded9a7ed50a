// In-memory idempotency store (idempotency.backend memory): per replica, lost on restart. Bounded
// twice: a global cap (`maxEntries` records, `maxBytes` of recorded responses) and a per-tenant
// quota below it (`maxPerOwner`, `maxBytesPerOwner`; the owner is the key's tenant,
// shared.ts idempotencyOwner). A tenant at its quota gets QuotaExceededError (its own 429) before
// the mutation runs, while other tenants keep claiming; a store full of live records throws
// StoreFullError (503 SVC_IDEMPOTENCY_STORE_FULL). Existing keys (replays, reclaims, completions)
// keep working at either bound; a response that does not fit is kept as result_unavailable, like
// one too large to record.
import { claimRetentionMs, decideClaim, idempotencyOwner, idempotencyStorageKey, type IdempotencyRecord } from '../shared.js';
import type { ClaimResult, IdempotencyKey, IdempotencyStore, StoredResponse } from '../types.js';
import { ExpiringMap } from './expiring-map.js';
import { mapBounds, refusalError, type MemoryLimits } from './limits.js';

export type MemoryIdempotencyOptions = MemoryLimits;

/** Approximate size of a record: its strings, plus a fixed allowance for the rest. */
function recordBytes(record: IdempotencyRecord): number {
  let bytes = 128 + record.fingerprint.length;
  if (record.response !== undefined) {
    bytes += record.response.body.length;
    for (const [name, value] of Object.entries(record.response.headers)) bytes += name.length + value.length;
  }
  return bytes;
}

export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly records: ExpiringMap<IdempotencyRecord>;

  /** Defaults: 100,000 records, no per-owner quota, no byte bound. */
  constructor(options: MemoryIdempotencyOptions = {}) {
    this.records = new ExpiringMap({ ...mapBounds(options, 100_000), sizeOf: recordBytes });
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
    const refusal = this.records.set(key, record, record.expiresAtMs, nowMs, idempotencyOwner(partitioned));
    if (refusal !== undefined) return Promise.reject(refusalError('idempotency', refusal, true));
    return Promise.resolve({ state: 'claimed' });
  }

  complete(partitioned: IdempotencyKey, fingerprint: string, response: StoredResponse | undefined, nowMs: number, ttlMs: number): Promise<void> {
    const key = idempotencyStorageKey(partitioned);
    const current = this.records.peek(key);
    const live = current !== undefined && current.expiresAtMs > nowMs ? current : undefined;
    // A live record under another fingerprint belongs to someone else: leave it.
    if (live !== undefined && live.value.fingerprint !== fingerprint) return Promise.resolve();
    if (ttlMs <= 0) {
      this.records.delete(key);
      return Promise.resolve();
    }
    // The record stays with whoever claimed it.
    const recordOwner = live?.owner ?? idempotencyOwner(partitioned);
    // Copy the response so later mutation of the caller's object cannot change what is replayed.
    const stored = response === undefined ? undefined : { status: response.status, headers: { ...response.headers }, body: response.body };
    const record: IdempotencyRecord = { fingerprint, done: true, claimedAtMs: nowMs, expiresAtMs: nowMs + ttlMs, response: stored };
    // Completing a key that was never claimed here (its claim expired) still records it. When the
    // response does not fit, the key is kept without it (result_unavailable); when not even that
    // fits, it is refused quietly: the mutation already ran, only the replay is lost.
    if (this.records.set(key, record, record.expiresAtMs, nowMs, recordOwner) !== undefined && stored !== undefined) {
      this.records.set(key, { ...record, response: undefined }, record.expiresAtMs, nowMs, recordOwner);
    }
    return Promise.resolve();
  }

  release(partitioned: IdempotencyKey, fingerprint: string): Promise<void> {
    const key = idempotencyStorageKey(partitioned);
    // The record is looked at regardless of expiry: deleting an expired one is harmless.
    const current = this.records.peek(key);
    if (current !== undefined && current.value.fingerprint === fingerprint && !current.value.done) this.records.delete(key);
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.records.clear();
    return Promise.resolve();
  }
}
