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
import { codeUnits, copiedUnits, scanBuiltin, scanBuiltinUngated, WORD_UNITS } from './scan.js';
import { detectSeedPhrases } from './seed-phrase.js';
import type { ScanState } from './state.js';

const charCodes = (text: string): number[] => Array.from({ length: text.length }, (_, k) => text.charCodeAt(k));

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
