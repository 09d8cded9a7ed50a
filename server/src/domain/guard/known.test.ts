// The skeleton the known-values search runs on (domain/guard/known.ts): the ASCII fast path
// must give exactly what the general path (one code point at a time, \p{L}\p{N}, lower-cased)
// gives, on any text, ASCII or not; a value is found however its ASCII letters are cased; and the
// automaton's search (a complete transition table, issue 20) finds exactly what a plain search
// for every key at every position finds.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DENSE_CELLS, KnownValues, mergeSpans, MIN_KNOWN_CHARS, skeletonOf, skeletonUnits, type KnownEntry, type KnownFinding } from './known.js';
import { guardView } from './view.js';

/** The general path alone: what skeletonOf computed for every character before the ASCII fast path. */
function referenceSkeleton(text: string): { chars: string; positions: number[] } {
  let chars = '';
  const positions: number[] = [];
  for (let index = 0; index < text.length; ) {
    const width = text.codePointAt(index)! > 0xffff ? 2 : 1;
    const ch = text.slice(index, index + width);
    if (/[\p{L}\p{N}]/u.test(ch)) {
      // One position per UTF-16 unit written (an astral letter is two units).
      for (const unit of ch.toLowerCase().split('')) {
        chars += unit;
        positions.push(index);
      }
    }
    index += width;
  }
  return { chars, positions };
}

describe('skeletonOf', () => {
  it('agrees with the general path on every ASCII character and on mixed text', () => {
    const ascii = Array.from({ length: 128 }, (_, code) => String.fromCharCode(code)).join('');
    expect(skeletonOf(ascii)).toEqual(referenceSkeleton(ascii));
    for (const text of ['Alice SMITH, 4111-1111', 'İstanbul ǅemal ß ＡＢＣ', 'a\u0301b 𝐀𝟏 \ud800x', 'Jörg@Bücher.DE']) {
      expect(skeletonOf(text), text).toEqual(referenceSkeleton(text));
    }
  });

  it('agrees with the general path on any text', () => {
    const char = fc.oneof(fc.integer({ min: 0, max: 0x7f }), fc.integer({ min: 0x80, max: 0x10ffff })).map((code) => String.fromCodePoint(code));
    fc.assert(
      fc.property(fc.array(char, { maxLength: 40 }), (chars) => {
        const text = chars.join('');
        expect(skeletonOf(text)).toEqual(referenceSkeleton(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('skeletonUnits writes the same units and positions, past its scratch size and after a longer text', () => {
    // 'İ' lower-cases to two units: 3,000 of them need 6,000 units, more than the scratch holds.
    const texts = ['İ'.repeat(3000), 'short Text 12', `${'x'.repeat(5000)}Ab9`, 'a𝐀İ-Z', '', `İ${'a'.repeat(8191)}`, `İİ${'b'.repeat(20000)}Z`];
    // Longer than twice any scratch before it, so the scratch is grown to exactly its length:
    // the two-unit letter first leaves its last letters one unit past that.
    texts.push(`İ${'c'.repeat(299_999)}D`);
    for (const text of [...texts, ...texts.reverse()]) {
      const { units, positions, length } = skeletonUnits(text);
      const reference = referenceSkeleton(text);
      expect(length).toBe(reference.chars.length);
      expect(String.fromCharCode(...units.subarray(0, Math.min(length, 4096)))).toBe(reference.chars.slice(0, 4096));
      expect(Array.from(positions.subarray(0, length))).toEqual(reference.positions);
    }
  });

  it('the search gives the same findings whatever text came before (the scratch is reused)', () => {
    const known = new KnownValues([{ type: 'email', value: 'ana@example.com' }, { type: 'person', value: 'Jörg Müller' }]);
    const texts = ['write to ANA@example.com now', `${'İ'.repeat(2000)} jörg müller`, 'ana example com', `${'z '.repeat(3000)}ana@example.com`];
    const alone = texts.map((text) => known.find(text));
    for (let round = 0; round < 3; round++) texts.forEach((text, index) => expect(known.find(text)).toEqual(alone[index]));
    expect(alone[0]).toEqual([{ type: 'email', start: 9, end: 24 }]);
    expect(alone[1]).toEqual([{ type: 'person', start: 2001, end: 2012 }]);
    // A value at the very end of a long output after letters that lower-case to two units.
    const long = `${'İ'.repeat(10)} ${'q'.repeat(700_000)} ana@example.com`;
    expect(known.find(long)).toEqual([{ type: 'email', start: long.length - 15, end: long.length }]);
  });

  it('finds a session value written in another case and spacing', () => {
    const known = new KnownValues([{ type: 'person', value: 'Alice Smith' }]);
    expect(known.find('Hello ALICE-smith, and alicesmithy')).toEqual([{ type: 'person', start: 6, end: 17 }]);
  });
});

/** End (exclusive) of the character at `index`. */
function charEnd(text: string, index: number): number {
  return (text.codePointAt(index) ?? 0) > 0xffff ? index + 2 : index + 1;
}

/** The search without an automaton: every key tried at every position of the skeleton. */
function referenceSearch(entries: readonly KnownEntry[], text: string): { find: KnownFinding[]; pendingStart: number } {
  const keys = new Map<string, string>();
  for (const entry of entries) {
    const key = skeletonOf(guardView(entry.value).text).chars;
    if (key.length >= MIN_KNOWN_CHARS && !keys.has(key)) keys.set(key, entry.type);
  }
  const view = guardView(text);
  const { chars, positions } = skeletonOf(view.text);
  const wordStart = (i: number): boolean => i === 0 || positions[i - 1] === positions[i] || charEnd(view.text, positions[i - 1]!) !== positions[i];
  const wordEnd = (j: number): boolean => j + 1 >= chars.length || positions[j + 1] !== charEnd(view.text, positions[j]!) || positions[j + 1] === positions[j];
  const hits: KnownFinding[] = [];
  for (const [key, type] of keys) {
    for (let i = chars.indexOf(key); i !== -1; i = chars.indexOf(key, i + 1)) {
      const j = i + key.length - 1;
      if (!wordStart(i) || !wordEnd(j)) continue;
      const span = view.originalSpan(positions[i]!, charEnd(view.text, positions[j]!));
      hits.push({ type, start: span.start, end: span.end });
    }
  }
  // Hits at the same end are reported in key order by the automaton, longest first by mergeSpans.
  let pendingStart = text.length;
  for (let length = chars.length; length > 0; length--) {
    const i = chars.length - length;
    if ([...keys.keys()].some((key) => key.startsWith(chars.slice(i))) && wordStart(i)) {
      pendingStart = view.originalSpan(positions[i]!, positions[i]!).start;
      break;
    }
  }
  return { find: mergeSpans(hits), pendingStart };
}

describe('KnownValues search', () => {
  it('finds what a plain search for every key finds, and the same pending start', () => {
    // A small alphabet, so keys overlap, repeat and share prefixes and suffixes; separators,
    // case, accents, full-width digits and a soft hyphen (dropped by the fold) included.
    const piece = fc.constantFrom('a', 'b', 'ab', 'ba', 'A', 'B', '1', '2', ' ', '-', '.', 'é', 'É', '１', '\u00ad', 'ß');
    const text = (max: number) => fc.array(piece, { maxLength: max }).map((parts) => parts.join(''));
    const entry = fc.record({ type: fc.constantFrom('person', 'email', 'custom'), value: text(8) });
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 6 }), text(40), (entries, output) => {
        const known = new KnownValues(entries);
        const expected = referenceSearch(entries, output);
        expect(new Set(known.find(output).map((hit) => `${hit.start}-${hit.end}`))).toEqual(new Set(expected.find.map((hit) => `${hit.start}-${hit.end}`)));
        expect(known.pendingStart(output)).toBe(expected.pendingStart);
      }),
      { numRuns: 3000 },
    );
  });

  it('finds the same on every later search of one automaton (its table is filled by the searches)', () => {
    const piece = fc.constantFrom('a', 'b', 'ab', 'ba', 'A', '1', '2', ' ', '-', 'é', '１');
    const text = (max: number) => fc.array(piece, { maxLength: max }).map((parts) => parts.join(''));
    const entry = fc.record({ type: fc.constantFrom('person', 'email'), value: text(8) });
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 6 }), fc.array(text(30), { minLength: 2, maxLength: 5 }), (entries, outputs) => {
        const known = new KnownValues(entries);
        for (const output of [...outputs, ...outputs.reverse()]) {
          const expected = referenceSearch(entries, output);
          expect(new Set(known.find(output).map((hit) => `${hit.start}-${hit.end}`))).toEqual(new Set(expected.find.map((hit) => `${hit.start}-${hit.end}`)));
          expect(known.pendingStart(output)).toBe(expected.pendingStart);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('keeps spans exact after a letter outside the BMP (two UTF-16 units), before and inside a value', () => {
    const known = new KnownValues([
      { type: 'person', value: 'Jane Roe' },
      { type: 'person', value: '\u{20000}\u{20001} Chen' },
    ]);
    const output = 'Note \u{20000}: Jane Roe met \u{20000}\u{20001} Chen.';
    const spans = known.find(output).map((hit) => output.slice(hit.start, hit.end));
    expect(spans).toEqual(['Jane Roe', '\u{20000}\u{20001} Chen']);
    expect(known.find(output)).toEqual(referenceSearch([{ type: 'person', value: 'Jane Roe' }, { type: 'person', value: '\u{20000}\u{20001} Chen' }], output).find);
  });

  it('a session too large for the dense table (states x distinct units > DENSE_CELLS) finds the same with the sparse automaton', () => {
    // One value of 1,100 distinct CJK letters: about 1,100 states x 1,100 units > DENSE_CELLS cells.
    const wide = Array.from({ length: 1100 }, (_, index) => String.fromCodePoint(0x4e00 + index)).join('');
    expect(wide.length * wide.length).toBeGreaterThan(DENSE_CELLS);
    const piece = fc.constantFrom('a', 'b', 'ab', 'ba', 'A', '1', ' ', '-', 'é', '\u4e00', '\u4e01', '\u{20000}');
    const text = (max: number) => fc.array(piece, { maxLength: max }).map((parts) => parts.join(''));
    const entry = fc.record({ type: fc.constantFrom('person', 'custom'), value: text(8) });
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 6 }), text(40), (entries, output) => {
        const all = [...entries, { type: 'custom', value: wide }];
        const known = new KnownValues(all);
        const expected = referenceSearch(all, output);
        expect(new Set(known.find(output).map((hit) => `${hit.start}-${hit.end}`))).toEqual(new Set(expected.find.map((hit) => `${hit.start}-${hit.end}`)));
        expect(known.pendingStart(output)).toBe(expected.pendingStart);
      }),
      { numRuns: 300 },
    );
  });
});
