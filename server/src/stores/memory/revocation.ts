// In-memory revocation store: digests per partition, for tests and single-process runs. Nothing
// survives a restart and replicas do not share it, so erasure is per process. Revocations never
// expire, so the total is capped; at the cap `add` fails closed (StoreUnavailableError) rather
// than silently dropping an erasure.
import { StoreFullError, StoreUnavailableError, type RevocationStore } from '../types.js';

export interface MemoryRevocationOptions {
  /** Digests across all partitions; default 1,000,000. */
  readonly maxEntries?: number;
}

export class MemoryRevocationStore implements RevocationStore {
  private readonly partitions = new Map<string, Set<string>>();
  private total = 0;
  private check: string | undefined;
  private readonly maxEntries: number;

  constructor(options: MemoryRevocationOptions = {}) {
    this.maxEntries = options.maxEntries ?? 1_000_000;
  }

  add(partition: string, digests: readonly string[], _nowMs: number): Promise<number> {
    const existing = this.partitions.get(partition);
    const fresh = new Set(digests.filter((digest) => existing?.has(digest) !== true));
    // All or nothing: a bulk revoke that does not fit is refused whole, never half applied.
    if (this.total + fresh.size > this.maxEntries) {
      return Promise.reject(new StoreUnavailableError('revocation', new StoreFullError('revocation')));
    }
    if (fresh.size === 0) return Promise.resolve(0);
    const target = existing ?? new Set<string>();
    for (const digest of fresh) target.add(digest);
    this.partitions.set(partition, target);
    this.total += fresh.size;
    return Promise.resolve(fresh.size);
  }

  revoked(partitions: readonly string[], digests: readonly string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (const partition of partitions) {
      const set = this.partitions.get(partition);
      if (set === undefined) continue;
      for (const digest of digests) if (set.has(digest)) found.add(digest);
    }
    return Promise.resolve(found);
  }

  count(partition: string): Promise<number> {
    return Promise.resolve(this.partitions.get(partition)?.size ?? 0);
  }

  keyCheck(check: string): Promise<string> {
    this.check ??= check;
    return Promise.resolve(this.check);
  }

  close(): Promise<void> {
    this.partitions.clear();
    this.total = 0;
    return Promise.resolve();
  }
}
