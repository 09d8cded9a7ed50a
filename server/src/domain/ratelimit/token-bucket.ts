// Token buckets keyed by caller (interface.md section 8 `rate_limit`, decisions.md 6 and 10):
// each key holds up to `burst` units and refills continuously at `ratePerSecond`. Pure: the
// clock is a parameter of every call, so tests drive time by hand and the table never reads
// Date.now itself.
//
// Memory is bounded. A bucket that has been idle long enough to be full again carries no state
// (a fresh bucket behaves identically), so such buckets are dropped as they are met; the table
// keeps its entries in least-recently-used order (a Map re-inserted on every use), and each call
// looks at the two oldest entries, so idle buckets leave without a timer. When `maxBuckets`
// active buckets exist at once, the least recently used one is evicted: that caller starts
// again with a full bucket, which is the only case where the table forgets a debt.
//
// Work that is only known after it was done (entities found, chunks made) is charged with
// `debit`, which never refuses: the bucket may go below zero, down to minus one burst, and the
// caller's next requests wait until it has refilled.

export interface BucketLimits {
  /** Sustained refill rate, units per second (> 0). */
  readonly ratePerSecond: number;
  /** Bucket capacity: the most units available at once (>= 1). */
  readonly burst: number;
}

export interface TakeResult {
  readonly allowed: boolean;
  /** Whole units left after this call (rounded down). */
  readonly remaining: number;
  /** When refused: milliseconds until `units` would be available; 0 when allowed. */
  readonly retryAfterMs: number;
  /** Units actually charged (a request larger than the burst is charged the whole burst). */
  readonly charged: number;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
  /** When the bucket will be full again if untouched; past this it is dropped. */
  fullAtMs: number;
}

/** Default bound on distinct active buckets (per process). */
export const DEFAULT_MAX_BUCKETS = 100_000;

/** How many of the oldest entries each call inspects for idleness. */
const SWEEP_PER_CALL = 2;

export class TokenBucketTable {
  readonly #buckets = new Map<string, Bucket>();
  readonly #maxBuckets: number;
  #evicted = 0;

  constructor(options: { readonly maxBuckets?: number } = {}) {
    const max = options.maxBuckets ?? DEFAULT_MAX_BUCKETS;
    if (!Number.isInteger(max) || max < 1) throw new RangeError('maxBuckets must be a positive integer');
    this.#maxBuckets = max;
  }

  /** Buckets currently held. */
  get size(): number {
    return this.#buckets.size;
  }

  /** Active buckets evicted for space so far (idle ones are not counted: they held nothing). */
  get evicted(): number {
    return this.#evicted;
  }

  /**
   * Take `units` from `key`'s bucket at `nowMs`. All or nothing: a refused call takes nothing.
   * A request for more units than the burst is charged the whole burst (it needs a full
   * bucket), so a large batch is never refused forever, and still empties the bucket.
   */
  take(key: string, limits: BucketLimits, units: number, nowMs: number): TakeResult {
    const bucket = this.#refilled(key, limits, units, nowMs);
    const charge = Math.min(units, limits.burst);
    let result: TakeResult;
    if (bucket.tokens >= charge) {
      bucket.tokens -= charge;
      result = { allowed: true, remaining: Math.floor(bucket.tokens), retryAfterMs: 0, charged: charge };
    } else {
      const missing = charge - bucket.tokens;
      result = { allowed: false, remaining: Math.floor(bucket.tokens), retryAfterMs: Math.ceil((missing / limits.ratePerSecond) * 1000), charged: 0 };
    }
    this.#store(key, bucket, limits, nowMs);
    return result;
  }

  /**
   * Charge `units` of work already done: never refused, the bucket may go into debt down to
   * minus one burst (so one request's after-the-fact charge costs at most two bursts in all).
   */
  debit(key: string, limits: BucketLimits, units: number, nowMs: number): void {
    const bucket = this.#refilled(key, limits, units, nowMs);
    bucket.tokens = Math.max(-limits.burst, bucket.tokens - units);
    this.#store(key, bucket, limits, nowMs);
  }

  /** Whether `units` could be taken now (nothing is taken), and if not, when. */
  peek(key: string, limits: BucketLimits, units: number, nowMs: number): { readonly allowed: boolean; readonly retryAfterMs: number } {
    checkLimits(limits);
    const bucket = this.#buckets.get(key);
    if (bucket === undefined) return { allowed: true, retryAfterMs: 0 };
    const tokens = Math.min(limits.burst, bucket.tokens + (Math.max(0, nowMs - bucket.updatedMs) / 1000) * limits.ratePerSecond);
    const charge = Math.min(units, limits.burst);
    if (tokens >= charge) return { allowed: true, retryAfterMs: 0 };
    return { allowed: false, retryAfterMs: Math.ceil(((charge - tokens) / limits.ratePerSecond) * 1000) };
  }

  /** The key's bucket brought up to `nowMs` (a new, full one when absent). */
  #refilled(key: string, limits: BucketLimits, units: number, nowMs: number): Bucket {
    checkLimits(limits);
    if (!Number.isFinite(units) || units < 0) throw new RangeError('units must be a finite number >= 0');
    this.#sweep(nowMs);
    const existing = this.#buckets.get(key);
    if (existing === undefined) return { tokens: limits.burst, updatedMs: nowMs, fullAtMs: nowMs };
    // A clock that steps backwards refills nothing (and never takes units away).
    const elapsedMs = Math.max(0, nowMs - existing.updatedMs);
    existing.tokens = Math.min(limits.burst, existing.tokens + (elapsedMs / 1000) * limits.ratePerSecond);
    existing.updatedMs = Math.max(existing.updatedMs, nowMs);
    // The limits can change between calls (a reload); tokens never exceed the current burst.
    existing.tokens = Math.min(existing.tokens, limits.burst);
    return existing;
  }

  /** Keep the bucket (least recently used order) unless it is full again. */
  #store(key: string, bucket: Bucket, limits: BucketLimits, nowMs: number): void {
    bucket.fullAtMs = bucket.updatedMs + ((limits.burst - bucket.tokens) / limits.ratePerSecond) * 1000;
    // Re-insert so the Map's order stays least recently used first.
    this.#buckets.delete(key);
    if (bucket.fullAtMs > nowMs || bucket.tokens < limits.burst) {
      this.#buckets.set(key, bucket);
      this.#bound();
    }
  }

  /** Drop idle (full again) buckets among the oldest entries. */
  #sweep(nowMs: number): void {
    // Collect first: deleting while iterating a Map is allowed, but this keeps it obvious.
    const idle: string[] = [];
    let looked = 0;
    for (const [key, bucket] of this.#buckets) {
      if (looked >= SWEEP_PER_CALL) break;
      looked += 1;
      if (nowMs >= bucket.fullAtMs) idle.push(key);
    }
    for (const key of idle) this.#buckets.delete(key);
  }

  #bound(): void {
    while (this.#buckets.size > this.#maxBuckets) {
      const oldest = this.#buckets.keys().next();
      if (oldest.done === true) return;
      this.#buckets.delete(oldest.value);
      this.#evicted += 1;
    }
  }
}

function checkLimits(limits: BucketLimits): void {
  if (!(Number.isFinite(limits.ratePerSecond) && limits.ratePerSecond > 0)) throw new RangeError('ratePerSecond must be > 0');
  if (!(Number.isFinite(limits.burst) && limits.burst >= 1)) throw new RangeError('burst must be >= 1');
}

/** Retry-After header value: whole seconds, rounded up, at least 1 (decisions.md section 6). */
export function retryAfterSeconds(retryAfterMs: number): number {
  return Math.max(1, Math.ceil(retryAfterMs / 1000));
}
