// isoTime must be Date#toISOString to the character: audit records and log lines carry it.
import { describe, expect, it } from 'vitest';
import { isoTime } from './iso-time.js';

describe('isoTime', () => {
  it('equals toISOString across milliseconds, second, day and year boundaries, in and out of order', () => {
    const starts = [0, 999, Date.UTC(2026, 10, 26, 23, 59, 59, 990), Date.UTC(1999, 11, 31, 23, 59, 59, 995), Date.UTC(2024, 1, 29, 12), 253_402_300_799_000];
    for (const start of starts) {
      for (let ms = start; ms < start + 1200 && ms <= 253_402_300_799_999; ms += 1) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
      // Back to an earlier second: the cached prefix must not leak into it.
      expect(isoTime(start)).toBe(new Date(start).toISOString());
    }
    // Pseudo-random times, each following a different second.
    let seed = 7;
    for (let index = 0; index < 2000; index += 1) {
      seed = (seed * 48271) % 2147483647;
      const ms = Math.floor((seed / 2147483647) * 4_102_444_800_000);
      expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    }
  });

  it('leaves what the prefix cannot cover to toISOString: fractions, negative and six-digit years', () => {
    for (const ms of [1.5, -1, -62_198_755_200_000, 253_402_300_800_000, 8.64e15]) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
  });
});
