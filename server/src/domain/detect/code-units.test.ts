// The scan's word loop reads the text's code units from a typed array (scan.ts codeUnits, session
// 15, wave14/large). Held here: the array holds exactly the string's units (lone surrogates,
// astral pairs, every length around Buffer's pool), a read past either end, undefined where
// charCodeAt gives NaN, answers every operation the loop applies to a unit as NaN does, and the
// seed-phrase probe (seed-phrase.ts) finds on the units what it finds by charCodeAt. The spans
// themselves are held to the previous build's by tools/scan-ab/equiv.mjs and diff.mjs (BENCHMARKS.md,
// "Session 15 (wave14/large)") and to the ungated scan by property.test.ts.
import { createHash } from 'node:crypto';
import { entropyToMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Detection } from '../types.js';
import { isDigit, isWordCode } from './chars.js';
import { borrowCodeUnits, codeUnits, copiedUnits, returnCodeUnits, scanBuiltin, scanBuiltinUngated, WORD_UNITS } from './scan.js';
import { detectSeedPhrases } from './seed-phrase.js';
import type { ScanState } from './state.js';

const charCodes = (text: string): number[] => Array.from({ length: text.length }, (_, k) => text.charCodeAt(k));

/** The first index where `units` and the text's code units differ (the length when they do not), -1 when the lengths differ. */
function firstDifference(units: Uint16Array, text: string): number {
  if (units.length !== text.length) return -1;
  let k = 0;
  while (k < text.length && units[k] === text.charCodeAt(k)) k++;
  return k;
}

describe('codeUnits', () => {
  it('holds every code unit of any string, lone surrogates included', () => {
    const unit = fc.oneof(
      fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
      fc.constantFrom('a', ' ', '7', '\ud800', '\udfff', '😀', 'é', '密', '\u0000'),
    );
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 300 }), (parts) => {
        const text = parts.join('');
        expect(Array.from(codeUnits(text))).toEqual(charCodes(text));
        expect(Array.from(copiedUnits(text))).toEqual(charCodes(text));
      }),
      { numRuns: 500, seed: 15 },
    );
  });

  it('holds the string for lengths around the Buffer pool and one- and two-byte strings', () => {
    for (const length of [0, 1, 2, 3, 1023, 2047, 2048, 2049, 4095, 4096, 4097, 8191, 8192, 100_000]) {
      for (const fill of ['ab', 'a\u00e9', 'a\u4e2d', '\ud83d\ude00']) {
        const text = fill.repeat(Math.ceil(length / fill.length) + 1).slice(0, length);
        // Shift the pool's offset by an odd number of bytes first.
        Buffer.from('x', 'latin1');
        const units = codeUnits(text);
        expect(units.length).toBe(text.length);
        expect(Array.from(units)).toEqual(charCodes(text));
      }
    }
  });

  it('borrowCodeUnits holds the units codeUnits holds, lengths around its range, any string; a second borrow while one is out gets its own; a returned array is zeroed (session 19)', () => {
    const unit = fc.oneof(
      fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
      fc.constantFrom('a', ' ', '7', '\ud800', '\udfff', '😀', 'é', '密', '\u0000'),
    );
    fc.assert(
      fc.property(fc.array(unit, { minLength: 1, maxLength: 40 }), fc.constantFrom(1, 4095, 4096, 4097, 9000, 65_536, 100_000, 524_288, 524_289), (parts, length) => {
        const piece = parts.join('');
        const text = piece.repeat(Math.ceil(length / piece.length)).slice(0, length);
        const first = borrowCodeUnits(text);
        // A scan inside a scan: the kept array is out, so this one is another (the first keeps its units).
        const second = borrowCodeUnits(text.slice(1) + 'x');
        expect(firstDifference(first, text)).toBe(text.length);
        expect(firstDifference(second, text.slice(1) + 'x')).toBe(text.length);
        expect([first[text.length], first[-1]]).toEqual([undefined, undefined]);
        returnCodeUnits(second);
        returnCodeUnits(first);
        // Zeroed when borrowed from the range (a short text's array is Buffer's pool, as before).
        if (length >= 4096 && length <= 524_288) expect([first.every((code) => code === 0), second.every((code) => code === 0)]).toEqual([true, true]);
        // The next borrow of a shorter text reads its own units only.
        const third = borrowCodeUnits(text.slice(0, Math.max(1, length >> 1)));
        expect(firstDifference(third, text.slice(0, Math.max(1, length >> 1)))).toBe(Math.max(1, length >> 1));
        returnCodeUnits(third);
      }),
      { numRuns: 40, seed: 19 },
    );
  });

  it('leaves scans of long texts, one after another and one inside another, equal to the ungated scan and to each other (session 19)', () => {
    const values = ['Call +1 415 555 0134', 'mail jane.doe@example.com', 'IBAN DE89 3704 0044 0532 0130 00', 'card 4111111111111111', 'ssn 219-09-9999', 'ip 192.168.10.24', 'abandon ability able about above absent absorb abstract absurd abuse access accident', 'wallet 1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2'];
    let seed = 19;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648);
    const texts = [5000, 9000, 70_000].map((length) => {
      const parts: string[] = [];
      let size = 0;
      while (size < length) {
        const part = next() % 3 === 0 ? values[next() % values.length]! : 'the quick brown fox jumps over a lazy dog';
        parts.push(part);
        size += part.length + 1;
      }
      return parts.join(next() % 2 === 0 ? ' ' : '\n').slice(0, length);
    });
    const alone = texts.map((text) => scanBuiltinUngated(text, 'en'));
    for (let round = 0; round < 2; round++) for (const [k, text] of texts.entries()) expect(scanBuiltin(text, 'en')).toEqual(alone[k]);
    // A scan while the kept array is out (as a reading scanned inside a scan would run).
    const out = borrowCodeUnits(texts[1]!);
    for (const [k, text] of texts.entries()) expect(scanBuiltin(text, 'en')).toEqual(alone[k]);
    expect(firstDifference(out, texts[1]!)).toBe(texts[1]!.length);
    returnCodeUnits(out);
  });

  it('reads past either end as charCodeAt does for every operation the loop applies', () => {
    const units = codeUnits('ab');
    const fromArray = [units[2], units[-1], units[-3]];
    const nan = 'ab'.charCodeAt(2);
    for (const value of fromArray) {
      const ours = value as unknown as number;
      for (const k of [-1, 0, 9, 32, 43, 45, 46, 47, 57, 58, 65, 90, 127, 128]) {
        expect([ours < k, ours > k, ours <= k, ours >= k, ours === k, ours !== k]).toEqual([nan < k, nan > k, nan <= k, nan >= k, nan === k, nan !== k]);
      }
      expect([ours | 32, (ours | 32) & 127, ours & 127, ours >>> 5, isDigit(ours)]).toEqual([nan | 32, (nan | 32) & 127, nan & 127, nan >>> 5, isDigit(nan)]);
    }
  });

  it('leaves the scan of a text cut at every length equal to the ungated scan (the reads at the end)', () => {
    const text = 'Call +1 415 555 0134 or mail jane.doe@example.com, IBAN DE89 3704 0044 0532 0130 00, at a b c 4111111111111111 ssn 219-09-9999';
    for (let cut = 0; cut <= text.length; cut++) {
      const piece = text.slice(0, cut);
      expect(scanBuiltin(piece, 'en')).toEqual(scanBuiltinUngated(piece, 'en'));
    }
  });
});

/** The units as charCodeAt reads them, NaN past either end: the probe's former reads. */
function asCharCodes(text: string): Readonly<Uint16Array> {
  return new Proxy({} as Uint16Array, {
    get: (_, key) => (key === 'length' ? text.length : typeof key === 'string' && /^-?\d+$/.test(key) ? text.charCodeAt(Number(key)) : undefined),
  });
}

function seedPhrasesBy(text: string, codes: Readonly<Uint16Array>): Detection[] {
  const state: ScanState = { text, out: [], region: 'US', fallbackRegions: [], pemEndAt: -2, assignScanEnd: 0, bicPending: [], lookalikeSeeds: [], reversedSeeds: [] };
  detectSeedPhrases(state, codes);
  return state.out;
}

describe('the seed-phrase probe on the code units', () => {
  it('finds what it finds by charCodeAt on seeded random texts of list words, gaps and prose, cut at every end', () => {
    const piece = fc.oneof(
      fc.constantFrom(...wordlist.slice(0, 64), ...wordlist.slice(-64)),
      fc.constantFrom(' ', ' ', ', ', '\n', '1. ', '-', '. ', ' the ', ' while ', 'x', '12', 'Zoo'),
      fc.integer({ min: 0, max: 1 << 30 }).map((seed) => entropyToMnemonic(createHash('sha256').update(String(seed)).digest().subarray(0, 16), wordlist)),
    );
    let phrases = 0;
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), fc.nat(), (parts, cut) => {
        const whole = parts.join('');
        for (const text of [whole, whole.slice(0, cut % (whole.length + 1)), whole.slice(cut % (whole.length + 1))]) {
          const found = seedPhrasesBy(text, codeUnits(text));
          expect(found).toEqual(seedPhrasesBy(text, asCharCodes(text)));
          phrases += found.length;
        }
      }),
      { numRuns: 600, seed: 15 },
    );
    // The texts hold phrases, at their ends too: the comparison is not of empty answers only.
    expect(phrases).toBeGreaterThan(100);
  });
});

describe('WORD_UNITS (the word extension of the scan loop)', () => {
  it('is isWordCode for every code unit', () => {
    const wrong: number[] = [];
    for (let unit = 0; unit < 0x10000; unit++) if ((WORD_UNITS[unit] === 1) !== isWordCode(unit)) wrong.push(unit);
    expect(wrong).toEqual([]);
    expect(WORD_UNITS.length).toBe(0x10000);
  });
});
