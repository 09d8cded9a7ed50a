// Property tests of the token grammar (threats.md 1, 2, 6): render/parse round trip for any
// valid token, a scan that never throws and finds every embedded token, and smuggling variants
// (fullwidth braces, zero-width characters, homoglyphs, uppercase hex, wrong-length caps,
// nested braces) that never yield a valid token.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Token } from '../types.js';
import { findTokens, parseToken, renderToken } from './grammar.js';

const lowerHex = (length: number): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(...Array.from('0123456789abcdef')), minLength: length, maxLength: length });
const digits = (min: number, max: number): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(...Array.from('0123456789')), minLength: min, maxLength: max });
const lowerLetters = (min: number, max: number): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(...Array.from('abcdefghijklmnopqrstuvwxyz')), minLength: min, maxLength: max });

const name: fc.Arbitrary<string> = fc
  .tuple(lowerLetters(1, 1), fc.string({ unit: fc.constantFrom(...Array.from('abcdefghijklmnopqrstuvwxyz0123456789_')), maxLength: 63 }))
  .map(([head, tail]) => head + tail);

const tokenType: fc.Arbitrary<string> = fc.oneof(
  name.filter((candidate) => candidate !== 'custom'),
  name.map((candidate) => `custom:${candidate}`),
);

const randomScheme = fc
  .tuple(tokenType, lowerLetters(1, 16), digits(3, 9), lowerHex(12))
  .map(([type, prefix, counter, cap]): Token => ({ type, id: `${prefix}_${counter}`, cap }));
const corpusScheme = fc
  .tuple(tokenType, lowerLetters(1, 16), lowerHex(24), lowerHex(32))
  .map(([type, prefix, suffix, cap]): Token => ({ type, id: `${prefix}_${suffix}`, cap }));

const validToken: fc.Arbitrary<Token> = fc.oneof(randomScheme, corpusScheme);

/** Text that may hold anything, including braces, but does not end with `{`. */
const textBefore = fc.string({ unit: 'grapheme', maxLength: 40 }).filter((text) => !text.endsWith('{'));
/** Text that does not start with `}`. */
const textAfter = fc.string({ unit: 'grapheme', maxLength: 40 }).filter((text) => !text.startsWith('}'));

describe('token grammar properties', () => {
  it('parse(render(t)) equals t for every valid token', () => {
    fc.assert(
      fc.property(validToken, (token) => {
        expect(parseToken(renderToken(token))).toEqual(token);
      }),
      { numRuns: 2000 },
    );
  });

  it('findTokens never throws and returns ordered, non-overlapping, exact candidates', () => {
    const anyText = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc.string({ unit: fc.constantFrom('{', '}', ':', 'a', 'e', '_', '0', 'f', ' ', '\u200b', 'E'), maxLength: 300 }),
    );
    fc.assert(
      fc.property(anyText, (text) => {
        const found = findTokens(text);
        let previousEnd = 0;
        for (const candidate of found) {
          expect(candidate.start).toBeGreaterThanOrEqual(previousEnd);
          expect(candidate.end).toBeGreaterThan(candidate.start);
          expect(text.slice(candidate.start, candidate.end)).toBe(candidate.raw);
          if (candidate.token !== null) expect(renderToken(candidate.token)).toBe(candidate.raw);
          previousEnd = candidate.end;
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('finds every rendered token embedded in arbitrary text', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(textBefore, validToken), { minLength: 1, maxLength: 5 }), textAfter, (parts, tail) => {
        let text = '';
        const expected: { start: number; token: Token }[] = [];
        for (const [before, token] of parts) {
          // Each token is delimited by exactly two braces: the text before it must not end with
          // `{`, and what follows it (the next part or the tail) must not start with `}`.
          text += before;
          expected.push({ start: text.length, token });
          text += renderToken(token);
        }
        fc.pre(parts.slice(1).every(([before]) => !before.startsWith('}')));
        text += tail;
        const valid = findTokens(text).filter((candidate) => candidate.token !== null);
        for (const { start, token } of expected) {
          expect(valid.some((candidate) => candidate.start === start && JSON.stringify(candidate.token) === JSON.stringify(token))).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('smuggling variants never yield a valid token', () => {
    const invisible = fc.constantFrom('\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad');
    const homoglyphs: Record<string, string> = { a: '\u0430', e: '\u0435', o: '\u043e', c: '\u0441', p: '\u0440', x: '\u0445' };
    const mutation = fc.oneof(
      // Fullwidth braces.
      fc.constant((raw: string) => `\uff5b\uff5b${raw.slice(2, -2)}\uff5d\uff5d`),
      fc.constant((raw: string) => `\uff5b${raw.slice(1)}`),
      // Invisible character inside the token.
      fc.tuple(invisible, fc.nat()).map(([character, at]) => (raw: string) => {
        const position = 2 + (at % (raw.length - 3));
        return raw.slice(0, position) + character + raw.slice(position);
      }),
      // Homoglyph for one Latin letter.
      fc.nat().map((at) => (raw: string) => {
        const positions = Array.from(raw).flatMap((character, index) => (character in homoglyphs ? [index] : []));
        if (positions.length === 0) return `{${raw}}`;
        const position = positions[at % positions.length]!;
        return raw.slice(0, position) + homoglyphs[raw[position]!]! + raw.slice(position + 1);
      }),
      // Uppercase hex anywhere in the cap (digits-only caps get an extra wrong-length edit).
      fc.constant((raw: string) => {
        const capStart = raw.lastIndexOf(':') + 1;
        const cap = raw.slice(capStart, -2);
        const upper = /[a-f]/.test(cap) ? cap.toUpperCase() : `${cap}A`;
        return raw.slice(0, capStart) + upper + '}}';
      }),
      // Wrong cap length: shorter, longer, or the other scheme's length.
      fc.integer({ min: 1, max: 40 }).map((length) => (raw: string) => {
        const capStart = raw.lastIndexOf(':') + 1;
        const capLength = raw.length - 2 - capStart;
        const isCorpus = capLength === 32;
        const wrong = length === 12 && !isCorpus ? 13 : length === 32 && isCorpus ? 31 : length;
        return raw.slice(0, capStart) + 'a'.repeat(wrong) + '}}';
      }),
      // Nested and over-braced forms.
      fc.integer({ min: 1, max: 3 }).map((extra) => (raw: string) => `${'{'.repeat(extra)}${raw}${'}'.repeat(extra)}`),
      fc.constant((raw: string) => `{{${raw}}}`),
      fc.constant((raw: string) => `{${raw}`),
      // Cap dropped.
      fc.constant((raw: string) => `${raw.slice(0, raw.lastIndexOf(':'))}}}`),
    );
    const filler = fc.string({ unit: fc.constantFrom(...Array.from('abc XYZ.,;-')), maxLength: 10 });
    fc.assert(
      fc.property(validToken, mutation, filler, filler, (token, mutate, before, after) => {
        const smuggled = mutate(renderToken(token));
        expect(parseToken(smuggled)).toBeNull();
        expect(findTokens(`${before}${smuggled}${after}`).filter((candidate) => candidate.token !== null)).toEqual([]);
      }),
      { numRuns: 5000 },
    );
  });
});
