// Token-bucket table tests with a hand-driven clock: burst, refill, retry-after, all-or-nothing
// charges, oversized charges, after-the-fact debits (debt bounded by one burst), peeking,
// clock steps backwards, per-key isolation and bounded memory.
import { describe, expect, it } from 'vitest';
import { retryAfterSeconds, TokenBucketTable } from './token-bucket.js';

const LIMITS = { ratePerSecond: 2, burst: 5 };

describe('TokenBucketTable', () => {
  it('allows the burst, then refuses with the time until one unit is back', () => {
    const table = new TokenBucketTable();
    const t0 = 1_000_000;
    for (let index = 0; index < 5; index += 1) {
      const result = table.take('a', LIMITS, 1, t0);
      expect(result.allowed).toBe(true);
      expect(result.remaining).toBe(4 - index);
    }
    const refused = table.take('a', LIMITS, 1, t0);
    expect(refused).toEqual({ allowed: false, remaining: 0, retryAfterMs: 500, charged: 0 });
  });

  it('refills continuously at the configured rate and never above the burst', () => {
    const table = new TokenBucketTable();
    const t0 = 0;
    expect(table.take('a', LIMITS, 5, t0).allowed).toBe(true);
    expect(table.take('a', LIMITS, 1, t0 + 499).allowed).toBe(false);
    expect(table.take('a', LIMITS, 1, t0 + 500).allowed).toBe(true);
    // A long pause refills to the burst, not beyond it.
    expect(table.take('a', LIMITS, 5, t0 + 60_000).allowed).toBe(true);
    expect(table.take('a', LIMITS, 1, t0 + 60_000).allowed).toBe(false);
  });

  it('table: retry-after for several missing units', () => {
    const cases: { take: number; after: number; units: number; retryMs: number }[] = [
      { take: 5, after: 0, units: 1, retryMs: 500 },
      { take: 5, after: 0, units: 3, retryMs: 1500 },
      { take: 5, after: 250, units: 1, retryMs: 250 },
      { take: 4, after: 0, units: 2, retryMs: 500 },
    ];
    for (const item of cases) {
      const table = new TokenBucketTable();
      expect(table.take('k', LIMITS, item.take, 0).allowed).toBe(true);
      const result = table.take('k', LIMITS, item.units, item.after);
      expect(result.allowed).toBe(false);
      expect(result.retryAfterMs).toBe(item.retryMs);
    }
  });

  it('is all or nothing: a refused charge takes nothing', () => {
    const table = new TokenBucketTable();
    expect(table.take('a', LIMITS, 3, 0).allowed).toBe(true);
    expect(table.take('a', LIMITS, 3, 0).allowed).toBe(false);
    expect(table.take('a', LIMITS, 2, 0).allowed).toBe(true);
  });

  it('charges a request larger than the burst the whole burst (it needs a full bucket)', () => {
    const table = new TokenBucketTable();
    const big = table.take('a', LIMITS, 50, 0);
    expect(big).toMatchObject({ allowed: true, charged: 5, remaining: 0 });
    const again = table.take('a', LIMITS, 50, 1000);
    expect(again.allowed).toBe(false);
    expect(again.retryAfterMs).toBe(1500);
    expect(table.take('a', LIMITS, 50, 2500).allowed).toBe(true);
  });

  it('debits work already done without refusing, into a debt of at most one burst', () => {
    const table = new TokenBucketTable();
    table.debit('a', LIMITS, 3, 0);
    expect(table.take('a', LIMITS, 2, 0).allowed).toBe(true);
    table.debit('a', LIMITS, 100, 0);
    // -5 now: 6 units (3 s) until one is available again.
    const refused = table.take('a', LIMITS, 1, 0);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterMs).toBe(3000);
    expect(table.take('a', LIMITS, 1, 3000).allowed).toBe(true);
  });

  it('peeks without taking', () => {
    const table = new TokenBucketTable();
    expect(table.peek('a', LIMITS, 1, 0)).toEqual({ allowed: true, retryAfterMs: 0 });
    table.take('a', LIMITS, 5, 0);
    expect(table.peek('a', LIMITS, 1, 0)).toEqual({ allowed: false, retryAfterMs: 500 });
    expect(table.peek('a', LIMITS, 1, 0)).toEqual({ allowed: false, retryAfterMs: 500 });
    expect(table.peek('a', LIMITS, 1, 500)).toEqual({ allowed: true, retryAfterMs: 0 });
    expect(table.take('a', LIMITS, 1, 500).allowed).toBe(true);
  });

  it('keeps keys apart', () => {
    const table = new TokenBucketTable();
    expect(table.take('a', LIMITS, 5, 0).allowed).toBe(true);
    expect(table.take('a', LIMITS, 1, 0).allowed).toBe(false);
    expect(table.take('b', LIMITS, 5, 0).allowed).toBe(true);
  });

  it('a clock that steps backwards refills nothing and takes nothing away', () => {
    const table = new TokenBucketTable();
    expect(table.take('a', LIMITS, 4, 10_000).allowed).toBe(true);
    expect(table.take('a', LIMITS, 1, 5_000).allowed).toBe(true);
    expect(table.take('a', LIMITS, 1, 5_000).allowed).toBe(false);
    // Time is measured from the latest instant seen, so returning to 10 s refills nothing.
    expect(table.take('a', LIMITS, 1, 10_000).allowed).toBe(false);
    expect(table.take('a', LIMITS, 1, 10_500).allowed).toBe(true);
  });

  it('applies changed limits on the next call (tokens never exceed the new burst)', () => {
    const table = new TokenBucketTable();
    expect(table.take('a', { ratePerSecond: 1, burst: 100 }, 1, 0).allowed).toBe(true);
    const tighter = { ratePerSecond: 1, burst: 2 };
    expect(table.take('a', tighter, 2, 0).allowed).toBe(true);
    expect(table.take('a', tighter, 1, 0).allowed).toBe(false);
  });

  it('drops idle buckets (full again) as it goes', () => {
    const table = new TokenBucketTable();
    table.take('a', LIMITS, 1, 0);
    table.take('b', LIMITS, 1, 0);
    expect(table.size).toBe(2);
    // 0.5 s later both are full again; the next call sweeps them.
    table.take('c', LIMITS, 1, 600);
    expect(table.size).toBe(1);
  });

  it('never holds more than maxBuckets; the least recently used bucket is evicted', () => {
    const table = new TokenBucketTable({ maxBuckets: 3 });
    for (const key of ['a', 'b', 'c']) table.take(key, LIMITS, 5, 0);
    table.take('a', LIMITS, 0, 0); // touch a: b is now the oldest
    table.take('d', LIMITS, 5, 0);
    expect(table.size).toBe(3);
    expect(table.evicted).toBe(1);
    expect(table.take('a', LIMITS, 1, 0).allowed).toBe(false);
    expect(table.take('c', LIMITS, 1, 0).allowed).toBe(false);
    // b was forgotten: it starts again with a full bucket.
    expect(table.take('b', LIMITS, 1, 0).allowed).toBe(true);
    for (let index = 0; index < 10_000; index += 1) table.take(`k${index}`, LIMITS, 1, 0);
    expect(table.size).toBe(3);
  });

  it('rejects invalid limits and units', () => {
    const table = new TokenBucketTable();
    expect(() => table.take('a', { ratePerSecond: 0, burst: 1 }, 1, 0)).toThrow(RangeError);
    expect(() => table.take('a', { ratePerSecond: 1, burst: 0 }, 1, 0)).toThrow(RangeError);
    expect(() => table.take('a', LIMITS, -1, 0)).toThrow(RangeError);
    expect(() => new TokenBucketTable({ maxBuckets: 0 })).toThrow(RangeError);
  });

  it('retryAfterSeconds rounds up to whole seconds, at least 1', () => {
    expect(retryAfterSeconds(0)).toBe(1);
    expect(retryAfterSeconds(1)).toBe(1);
    expect(retryAfterSeconds(1000)).toBe(1);
    expect(retryAfterSeconds(1001)).toBe(2);
    expect(retryAfterSeconds(2500)).toBe(3);
  });
});
