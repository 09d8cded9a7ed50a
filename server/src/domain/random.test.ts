// The shared CSPRNG pool hands out fresh bytes across refills, never repeats a draw, and zeroes
// every range it hands out (short draws by a loop, long ones by fill()).
import { describe, expect, it, vi } from 'vitest';

// The pool's own buffers, as node:crypto returned them, so the test can look inside.
const pools = vi.hoisted(() => [] as Buffer[]);
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  return {
    ...crypto,
    randomBytes: (size: number) => {
      const bytes = crypto.randomBytes(size);
      pools.push(bytes);
      return bytes;
    },
  };
});
const { randomBuffer, randomHex } = await import('./random.js');

describe('random pool', () => {
  it('returns the requested sizes and distinct values across many refills', () => {
    const seen = new Set<string>();
    for (let index = 0; index < 5000; index += 1) {
      const hex = randomHex(6);
      expect(hex).toMatch(/^[0-9a-f]{12}$/);
      seen.add(hex);
    }
    expect(seen.size).toBe(5000);
    expect(randomBuffer(16)).toHaveLength(16);
    expect(() => randomHex(10_000)).toThrow(RangeError);
  });

  it('zeroes what it hands out and nothing else', () => {
    randomHex(8192 - 1); // leaves one byte: the next draw refills
    const drawn = [randomHex(6), randomBuffer(16), randomBuffer(100), randomHex(64)];
    const pool = pools.at(-1)!;
    expect(drawn.map((value) => value.length)).toEqual([12, 16, 100, 128]);
    const used = 6 + 16 + 100 + 64;
    expect(pool.subarray(0, used).every((byte) => byte === 0)).toBe(true);
    // The rest of the pool is untouched random bytes (all zero with probability 2^-8000).
    expect(pool.subarray(used).some((byte) => byte !== 0)).toBe(true);
  });
});
