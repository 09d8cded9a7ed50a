// The skeleton the known-values search runs on (domain/guard/known.ts): the ASCII fast path
// must give exactly what the general path (one code point at a time, \p{L}\p{N}, lower-cased)
// gives, on any text, ASCII or not; a value is found however its ASCII letters are cased; and the
// automaton's search (a complete transition table, issue 20) finds exactly what a plain search
// for every key at every position finds.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DENSE_CELLS, DIRECT_WORK_BASE, DIRECT_WORK_PER_UNIT, encodedRuns, KnownValues, reversedKey, mergeSpans, MIN_KNOWN_CHARS, NARROW_STATES, skeletonKey, skeletonOf, skeletonUnits, trieStates, type KnownEntry, type KnownFinding } from './known.js';
import { emailSearchForms, phoneSearchForms, urlEncodedForms } from './forms.js';
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

  it('skeletonKey is skeletonOf\'s chars, on short and long texts (built in chunks) and any text', () => {
    for (const text of ['', 'Jane.Doe@Example.com', 'İstanbul ǅemal ß ＡＢＣ 𝐀𝟏', `${'Ab-9 '.repeat(3000)}İ`, 'x'.repeat(8192), `${'y'.repeat(4095)}İz`]) {
      expect(skeletonKey(text)).toBe(skeletonOf(text).chars);
    }
    const char = fc.oneof(fc.integer({ min: 0, max: 0x7f }), fc.integer({ min: 0x80, max: 0x10ffff })).map((code) => String.fromCodePoint(code));
    fc.assert(
      fc.property(fc.array(char, { maxLength: 40 }), (chars) => {
        expect(skeletonKey(chars.join(''))).toBe(skeletonOf(chars.join('')).chars);
      }),
      { numRuns: 1000 },
    );
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
    const forms = [entry.value, ...urlEncodedForms(entry.value).flatMap((encoded) => [encoded, `/${encoded}`])];
    const own = skeletonOf(guardView(entry.value).text).chars;
    const reversed = reversedKey(own);
    for (const key of [...forms.map((form) => skeletonOf(guardView(form).text).chars), ...(reversed !== undefined ? [reversed] : [])]) {
      if (key.length >= MIN_KNOWN_CHARS && !keys.has(key)) keys.set(key, entry.type);
    }
  }
  const plain = referencePlain(keys, text);
  // Base64 runs that decode to text holding a value (the run decoder is shared: encoded-known.test.ts tests it).
  const encoded = encodedRuns(text, (decoded) => referencePlain(keys, decoded).find[0]?.type);
  return { find: mergeSpans([...plain.find, ...encoded]), pendingStart: plain.pendingStart };
}

function referencePlain(keys: ReadonlyMap<string, string>, text: string): { find: KnownFinding[]; pendingStart: number } {
  const view = guardView(text);
  const { chars, positions } = skeletonOf(view.text);
  // Two touching characters are one word when both are digits, or both letters of scripts that
  // put spaces between words.
  const char = (index: number): string => String.fromCodePoint(view.text.codePointAt(index)!);
  const unspaced = (ch: string): boolean => /\p{sc=Han}|\p{sc=Hira}|\p{sc=Kana}|\p{sc=Hang}|\p{sc=Thai}|\p{sc=Laoo}|\p{sc=Khmr}|\p{sc=Mymr}|\p{sc=Tibt}/u.test(ch);
  const kindOf = (ch: string): string => (/\p{N}/u.test(ch) ? 'digit' : unspaced(ch) ? 'unspaced' : 'letter');
  const oneWord = (a: number, b: number): boolean => {
    if (a === b || charEnd(view.text, a) !== b) return false;
    const [x, y] = [kindOf(char(a)), kindOf(char(b))];
    return x === y && x !== 'unspaced';
  };
  const wordStart = (i: number): boolean => i === 0 || !oneWord(positions[i - 1]!, positions[i]!);
  const wordEnd = (j: number): boolean => j + 1 >= chars.length || !oneWord(positions[j]!, positions[j + 1]!);
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

describe('KnownValues: a session phone number in its other spellings', () => {
  it('finds the number without its country code, with the trunk prefix or after 00, in any digits', () => {
    const known = new KnownValues([
      { type: 'phone', value: '+1 415 555 0100' },
      { type: 'phone', value: '+44 20 7946 0958' },
    ]);
    const outputs = [
      '(415) 555-0100',
      '4155550100',
      '001 415 555 0100',
      '1-415-555-0100',
      '\uff14\uff11\uff15\uff15\uff15\uff15\uff10\uff11\uff10\uff10',
      '\u0664\u0661\u0665\u0665\u0665\u0665\u0660\u0661\u0660\u0660',
      '\u{20000}4155550100',
      '020 7946 0958',
      '2079460958',
      '0044 20 7946 0958',
    ];
    for (const output of outputs) {
      const text = `call ${output} now`;
      const hits = known.find(text);
      expect(hits.map((hit) => text.slice(hit.start, hit.end)), output).toEqual([output.replace(/^\u{20000}/u, '').replace(/^\(/, '')]);
      expect(hits[0]!.type).toBe('phone');
    }
  });

  it('does not take a longer number, a short part or another number for the session number', () => {
    const known = new KnownValues([{ type: 'phone', value: '+1 415 555 0100' }]);
    for (const output of ['41555501001', '555 0100', '4155550101', 'order 94155550100']) {
      expect(known.find(output), output).toEqual([]);
    }
  });

  it('reads a national session number in the session region, and leaves an unparsable one to its own digits', () => {
    expect(phoneSearchForms('020 7946 0958', 'GB')).toEqual(expect.arrayContaining(['442079460958', '2079460958', '02079460958']));
    expect(phoneSearchForms('12', 'US')).toEqual([]);
    expect(phoneSearchForms('+1 415 555 0100 ext. 42', 'US')).toEqual(expect.arrayContaining(['14155550100', '4155550100']));
    const known = new KnownValues([{ type: 'phone', value: '020 7946 0958' }], 'GB');
    expect(known.find('+44 20 7946 0958')).toEqual([{ type: 'phone', start: 1, end: 16 }]);
  });
});

/** The spelled-out address forms as first written: each of the four forms split and cleaned its parts itself. */
function referenceEmailForms(value: string): string[] {
  const at = value.lastIndexOf('@');
  if (at <= 0 || at === value.length - 1) return [];
  const skeleton = (part: string, dot: string): string => part.split('.').map((piece) => piece.replace(/[^\p{L}\p{N}]+/gu, '')).join(dot).toLowerCase();
  const forms = new Set<string>();
  for (const localDot of ['', 'dot']) {
    for (const domainDot of ['', 'dot']) forms.add(`${skeleton(value.slice(0, at), localDot)}at${skeleton(value.slice(at + 1), domainDot)}`);
  }
  return [...forms];
}

describe('emailSearchForms', () => {
  it('gives the forms each part cleaned four times gave, on any address (Greek sigma, dots, symbols, several @)', () => {
    const piece = fc.constantFrom('a', 'B', '.', '@', '-', '_', '+', '1', 'Σ', 'σ', 'İ', 'ß', 'é', '\u{1d400}', ' ', '..');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 20 }), (parts) => {
        const value = parts.join('');
        expect(emailSearchForms(value)).toEqual(referenceEmailForms(value));
      }),
      { numRuns: 3000 },
    );
    expect(emailSearchForms('ΑΣ.Β@ΟΣ.gr')).toEqual(referenceEmailForms('ΑΣ.Β@ΟΣ.gr'));
  });
});

describe('KnownValues: a session address spelled out', () => {
  it('finds the address with "at" for its @ and "dot" or nothing for its dots, not another address', () => {
    const known = new KnownValues([{ type: 'email', value: 'Jane.Roe@corp.example' }]);
    for (const output of ['jane.roe at corp.example', 'jane.roe [at] corp [dot] example', 'JANE DOT ROE AT CORP DOT EXAMPLE', 'jane.roe(at)corp.example']) {
      const text = `write to ${output}.`;
      expect(known.find(text).map((hit) => text.slice(hit.start, hit.end)), output).toEqual([output]);
    }
    for (const output of ['jane.roe at corporate.example', 'ajane.roe at corp.example', 'jane.roe at corp'] ) {
      expect(known.find(output), output).toEqual([]);
    }
  });
});

describe('KnownValues: word boundaries in text without spaces', () => {
  it('finds a value written against letters of unspaced scripts or of another kind, not inside a longer word or number', () => {
    const known = new KnownValues([
      { type: 'phone', value: '+1 415 555 0100' },
      { type: 'person', value: '\u738b\u5c0f\u660e' },
      { type: 'person', value: '\uae40\ucca0\uc218' },
      { type: 'person', value: 'Alice Smith' },
    ]);
    const found = (text: string): string[] => known.find(text).map((hit) => text.slice(hit.start, hit.end));
    expect(found('\u7535\u8bdd4155550100\u3002')).toEqual(['4155550100']);
    expect(found('\u6211\u662f\u738b\u5c0f\u660e\u8bf4')).toEqual(['\u738b\u5c0f\u660e']);
    expect(found('\uae40\ucca0\uc218\ub294 \ud559\uc0dd')).toEqual(['\uae40\ucca0\uc218']);
    expect(found('ID4155550100 and Tel:4155550100')).toEqual(['4155550100', '4155550100']);
    expect(found('alicesmithy 94155550100 41555501009')).toEqual([]);
  });
});

describe('skeletonUnits scratch', () => {
  it('gives the memory of a long output back on the next short one', () => {
    const long = 'a'.repeat(200_000);
    expect(skeletonUnits(long).units.length).toBeGreaterThanOrEqual(200_000);
    const short = skeletonUnits('Ab1');
    expect(short.units.length).toBeLessThan(200_000);
    expect([...short.units.subarray(0, short.length)]).toEqual([0x61, 0x62, 0x31]);
  });
});

describe('KnownValues search', () => {
  it('finds what a plain search for every key finds, and the same pending start', () => {
    // A small alphabet, so keys overlap, repeat and share prefixes and suffixes; separators,
    // case, accents, full-width digits and a soft hyphen (dropped by the fold) included.
    const piece = fc.constantFrom('a', 'b', 'ab', 'ba', 'A', 'B', '1', '2', ' ', '-', '.', 'é', 'É', '１', '\u00ad', 'ß', '\u4e00', '\u0e01', '\u0661');
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

  it('counts the trie states of any keys exactly (the table is sized by them)', () => {
    const key = fc.array(fc.constantFrom('a', 'b', 'ab', '1', 'é', '\u4e00', '\u{20000}'), { maxLength: 6 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.array(key, { maxLength: 12 }), (keys) => {
        const prefixes = new Set<string>(['']);
        for (const one of keys) for (let end = 1; end <= one.length; end++) prefixes.add(one.slice(0, end));
        expect(trieStates(keys)).toBe(prefixes.size);
      }),
      { numRuns: 2000 },
    );
  });

  it('finds the same on both sides of the 16-bit table (NARROW_STATES trie states and more)', () => {
    // One long number: its trie has one state per digit plus the root.
    for (const states of [NARROW_STATES, NARROW_STATES + 2]) {
      const value = Array.from({ length: states - 1 }, (_, index) => String((index * 7 + 3) % 10)).join('');
      const entries: KnownEntry[] = [{ type: 'custom', value }, { type: 'email', value: 'jane.roe@example.com' }];
      const known = new KnownValues(entries);
      for (const output of [`id ${value} and jane.roe@example.com`, `tail ${value.slice(0, 5000)}`, `mail JANE.ROE@example.com, then ${value.slice(0, -1)}`]) {
        const expected = referenceSearch(entries, output);
        expect(known.find(output), `${states} states`).toEqual(expected.find);
        expect(known.pendingStart(output), `${states} states`).toBe(expected.pendingStart);
      }
    }
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

describe('KnownValues: the direct search and the automaton (built only past a work bound)', () => {
  // Types differ per entry so that which entry a span is reported for is compared too; phone and
  // e-mail entries bring their other spellings (forms.ts) as keys.
  const piece = fc.constantFrom('a', 'b', 'ab', 'ba', 'A', '1', '2', '4', ' ', '-', '.', '@', 'é', '１', '\u00ad', 'İ', '\u4e00', '\u{20000}', 'at', 'dot');
  const text = (max: number) => fc.array(piece, { maxLength: max }).map((parts) => parts.join(''));
  const entry = fc.oneof(
    fc.record({ type: fc.constantFrom('person', 'custom', 'iban', 'credit_card'), value: text(8) }),
    fc.record({ type: fc.constant('email'), value: fc.tuple(text(5), text(5)).map(([local, domain]) => `${local}@${domain}`) }),
    fc.record({ type: fc.constant('phone'), value: fc.constantFrom('+1 415 555 0134', '+44 20 7946 0958', '4155550134', '+49 30 1234567') }),
  );

  it('find gives exactly the same spans and types by either search, and by the automatic choice', () => {
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 6 }), fc.array(text(40), { minLength: 1, maxLength: 4 }), (entries, outputs) => {
        const direct = new KnownValues(entries, 'US', 'direct');
        const automaton = new KnownValues(entries, 'US', 'automaton');
        const auto = new KnownValues(entries, 'US');
        for (const output of outputs) {
          const expected = automaton.find(output);
          expect(direct.find(output)).toEqual(expected);
          expect(auto.find(output)).toEqual(expected);
          expect(auto.pendingStart(output)).toBe(automaton.pendingStart(output));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('finds a session value written raw in the output with the same spans both ways (phones, addresses, names)', () => {
    const entries: KnownEntry[] = [
      { type: 'email', value: 'jane.doe@example.com' },
      { type: 'phone', value: '+1 415 555 0134' },
      { type: 'credit_card', value: '4111 1111 1111 1111' },
      { type: 'person', value: 'Jane Doe' },
    ];
    const output = 'Write JANE.DOE@example.com or jane dot doe at example dot com, call (415) 555-0134 or 001 415 555 0134; card 4111-1111-1111-1111; Jane  Doe agreed.';
    const direct = new KnownValues(entries, 'US', 'direct').find(output);
    expect(direct).toEqual(new KnownValues(entries, 'US', 'automaton').find(output));
    expect(direct.map((hit) => output.slice(hit.start, hit.end))).toEqual([
      'JANE.DOE@example.com', 'jane dot doe at example dot com', '415) 555-0134', '001 415 555 0134', '4111-1111-1111-1111', 'Jane  Doe',
    ]);
  });

  it('past the work bound (a value of one repeated letter against a run of it) the automatic choice finds what the automaton finds', () => {
    const value = 'a'.repeat(300);
    const entries: KnownEntry[] = [{ type: 'custom', value }, { type: 'custom', value: `${'a'.repeat(150)}b` }, { type: 'person', value: 'Ann Roe' }];
    for (const output of [`x ${'a'.repeat(5000)} y`, `${value} and Ann Roe`, `${'a'.repeat(2000)}b ${value}`]) {
      // The direct search would compare ~300 units at each of the run's positions: far past the bound.
      expect(300 * 5000).toBeGreaterThan(DIRECT_WORK_PER_UNIT * 5000 + DIRECT_WORK_BASE);
      const auto = new KnownValues(entries);
      const expected = new KnownValues(entries, undefined, 'automaton').find(output);
      expect(auto.find(output)).toEqual(expected);
      // The automaton, once built, serves the rest of the request.
      expect(auto.find(`${output} Ann Roe`)).toEqual(new KnownValues(entries, undefined, 'automaton').find(`${output} Ann Roe`));
      expect(new KnownValues(entries, undefined, 'direct').find(output)).toEqual(expected);
    }
  });

  it('has() compares a detection with the session values of its type in any order of calls', () => {
    const entries: KnownEntry[] = [
      { type: 'phone', value: '+1 415 555 0134' },
      { type: 'email', value: 'Jane.Doe@example.com' },
      { type: 'phone', value: '+44 20 7946 0958' },
    ];
    const known = new KnownValues(entries, 'US');
    expect(known.empty).toBe(false);
    expect(new KnownValues([], 'US').empty).toBe(true);
    expect(known.has('person', 'Jane Doe')).toBe(false);
    expect(known.has('phone', '(415) 555-0134')).toBe(true);
    expect(known.find('mail jane.doe@example.com')).toEqual([{ type: 'email', start: 5, end: 25 }]);
    expect(known.has('email', 'jane.doe@EXAMPLE.com')).toBe(true);
    expect(known.has('phone', '+44 20 7946 0958')).toBe(true);
    expect(known.has('phone', '+1 415 555 0135')).toBe(false);
    expect(known.has('email', 'john@example.com')).toBe(false);
  });
});
