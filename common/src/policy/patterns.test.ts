// Policy pattern checks: the JavaScript/RE2 common subset.
import { describe, expect, it } from 'vitest';
import { checkPattern, parsePatternSource } from './patterns.js';

describe('checkPattern', () => {
  it('accepts ordinary patterns, classes, named groups and a leading (?i)', () => {
    for (const pattern of ['TCK-[0-9]{6}', '(?i)@acme\\.example$', '(?<id>[A-Z]{3})\\d+', '[\\p{L}]+', '[(?=]x', '\\(\\?=x']) {
      expect(checkPattern(pattern)).toBeUndefined();
    }
  });

  it('rejects lookaround and backreferences', () => {
    expect(checkPattern('a(?=b)')).toMatch(/lookahead/);
    expect(checkPattern('a(?!b)')).toMatch(/lookahead/);
    expect(checkPattern('(?<=a)b')).toMatch(/lookbehind/);
    expect(checkPattern('(?<!a)b')).toMatch(/lookbehind/);
    expect(checkPattern('(a)\\1')).toMatch(/backreference/);
    expect(checkPattern('(?<x>a)\\k<x>')).toMatch(/backreference/);
  });

  it('rejects invalid syntax, empty and over-long patterns', () => {
    expect(checkPattern('[a-')).toMatch(/not a valid/);
    expect(checkPattern('')).toMatch(/empty/);
    expect(checkPattern('(?i)')).toMatch(/empty/);
    expect(checkPattern('a'.repeat(1025))).toMatch(/at most/);
  });

  it('rejects detection patterns that match the empty string unless allowed', () => {
    expect(checkPattern('a*')).toMatch(/empty string/);
    expect(checkPattern('a*', { allowEmptyMatch: true })).toBeUndefined();
  });

  it('splits the case-insensitive prefix', () => {
    expect(parsePatternSource('(?i)abc')).toEqual({ source: 'abc', ignoreCase: true });
    expect(parsePatternSource('abc')).toEqual({ source: 'abc', ignoreCase: false });
  });
});
