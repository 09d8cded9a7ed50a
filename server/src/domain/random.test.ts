// The shared CSPRNG pool hands out fresh bytes across refills and never repeats a draw.
import { describe, expect, it } from 'vitest';
import { randomBuffer, randomHex } from './random.js';

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
});
