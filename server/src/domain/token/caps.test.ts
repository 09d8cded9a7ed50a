// Unit tests of constant-time cap comparison (threats.md 1).
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { capsEqual } from './caps.js';

describe('capsEqual', () => {
  it('is true only for identical caps', () => {
    expect(capsEqual('0123456789ab', '0123456789ab')).toBe(true);
    expect(capsEqual('0123456789ab', '0123456789ac')).toBe(false);
    expect(capsEqual('0123456789ab', '0123456789AB')).toBe(false);
  });

  it('is false on any length mismatch, including empty', () => {
    expect(capsEqual('0123456789ab', '0123456789a')).toBe(false);
    expect(capsEqual('0123456789ab', '0123456789abc')).toBe(false);
    expect(capsEqual('0123456789ab', '')).toBe(false);
    expect(capsEqual('', '')).toBe(true);
    // Same UTF-16 length, different byte length.
    expect(capsEqual('0123456789ab', '0123456789a\u00e9')).toBe(false);
  });

  it('matches none of thousands of guesses for a known cap', () => {
    const cap = randomBytes(6).toString('hex');
    let hits = 0;
    for (let i = 0; i < 5000; i++) if (capsEqual(cap, randomBytes(6).toString('hex'))) hits++;
    expect(hits).toBe(0);
  });
});
