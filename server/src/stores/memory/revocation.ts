// In-memory revocation store: digests per partition, for tests and single-process runs. Nothing
// survives a restart and replicas do not share it, so erasure is per process.
//
// Bounded without dropping a live erasure: each partition (tenant) has a quota below the global
// cap, and an add that does not fit is refused whole (QuotaExceededError for the partition's
// quota, its own 429; StoreUnavailableError at the global cap), never half applied or evicting.
//
// Revocations expire, so the bounds free themselves: a digest is kept `retentionMs` (the longest
// blob lifetime plus the clock-skew allowance, services/state.ts longestBlobRetentionMs) after it
// was last needed. It is needed when added, and again whenever a blob holding its value is
// issued (`extend`, called for every outgoing session), because that blob may be rehydrated
// until its own lifetime ends; every blob is refused once older than the longest lifetime. So no
// blob that could hold a revoked value outlives the revocation. Lookups treat an expired digest
// not yet removed as still revoked (fail closed: it restores [DELETED] a little longer).
import type { RevocationStore } from '../types.js';
import { ExpiringMap } from './expiring-map.js';
import { mapBounds, refusalError, type MemoryLimits } from './limits.js';

export interface MemoryRevocationOptions extends Pick<MemoryLimits, 'maxEntries' | 'maxPerOwner'> {
  /** How long a digest is kept after it was last needed; default: forever. */
  readonly retentionMs?: number;
}

/** One map key per (partition, digest); length-prefixed so no pair collides with another. */
function slotKey(partition: string, digest: string): string {
  return `${partition.length}:${partition}|${digest}`;
}

export class MemoryRevocationStore implements RevocationStore {
  private readonly digests: ExpiringMap<true>;
  private readonly retentionMs: number;
  private check: string | undefined;
  readonly extend?: RevocationStore['extend'];

  /** Defaults: 1,000,000 digests, no per-partition quota, kept forever. */
  constructor(options: MemoryRevocationOptions = {}) {
    this.digests = new ExpiringMap(mapBounds(options, 1_000_000));
    this.retentionMs = options.retentionMs ?? Number.POSITIVE_INFINITY;
    // Only a store that forgets needs to hear about blobs being issued.
    if (Number.isFinite(this.retentionMs)) this.extend = (partitions, digests, nowMs) => this.keepLive(partitions, digests, nowMs);
  }

  add(partition: string, digests: readonly string[], nowMs: number): Promise<number> {
    const unique = [...new Set(digests)];
    const missing = unique.filter((digest) => this.digests.peek(slotKey(partition, digest)) === undefined);
    // All or nothing: a bulk revoke that does not fit is refused whole, never half applied.
    const refusal = missing.length === 0 ? undefined : this.digests.room(partition, missing.length, 0, nowMs);
    if (refusal !== undefined) return Promise.reject(refusalError('revocation', refusal));
    let added = 0;
    const until = nowMs + this.retentionMs;
    for (const digest of unique) {
      const key = slotKey(partition, digest);
      const existing = this.digests.peek(key);
      // An expired digest not yet removed counts as new (it was no longer promised to anyone).
      if (existing === undefined || existing.expiresAtMs <= nowMs) added += 1;
      // A repeated revoke renews the retention; room() above made space for the missing ones.
      this.digests.set(key, true, Math.max(until, existing?.expiresAtMs ?? until), nowMs, partition);
    }
    return Promise.resolve(added);
  }

  revoked(partitions: readonly string[], digests: readonly string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (const partition of partitions) {
      if (this.digests.countOf(partition) === 0) continue;
      for (const digest of digests) if (this.digests.peek(slotKey(partition, digest)) !== undefined) found.add(digest);
    }
    return Promise.resolve(found);
  }

  /** Whether `revoked` could find anything in `partitions` (the same test it makes first). */
  holdsAny(partitions: readonly string[]): boolean {
    for (const partition of partitions) if (this.digests.countOf(partition) > 0) return true;
    return false;
  }

  count(partition: string): Promise<number> {
    return Promise.resolve(this.digests.countOf(partition));
  }

  keyCheck(check: string): Promise<string> {
    this.check ??= check;
    return Promise.resolve(this.check);
  }

  close(): Promise<void> {
    this.digests.clear();
    return Promise.resolve();
  }

  private keepLive(partitions: readonly string[], digests: () => readonly string[], nowMs: number): Promise<void> {
    const holding = partitions.filter((partition) => this.digests.countOf(partition) > 0);
    if (holding.length === 0) return Promise.resolve();
    const until = nowMs + this.retentionMs;
    for (const digest of digests()) {
      for (const partition of holding) {
        const key = slotKey(partition, digest);
        const existing = this.digests.peek(key);
        if (existing !== undefined && existing.expiresAtMs < until) this.digests.touch(key, until);
      }
    }
    return Promise.resolve();
  }
}
