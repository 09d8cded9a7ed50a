// Offset conversion between UTF-16 and code points, with astral characters (emoji) before,
// inside and after the spans, and a round-trip property over arbitrary strings.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codePointsToUtf16, replaceLoneSurrogates, utf16ToCodePoints } from './codepoints.js';

describe('utf16ToCodePoints', () => {
  it('returns offsets unchanged for text without surrogates', () => {
    const offsets = [0, 3, 7];
    const result = utf16ToCodePoints('plain ascii text', offsets);
    expect(result).toEqual([0, 3, 7]);
    expect(result).not.toBe(offsets);
  });

  it('counts an emoji before a match as one code point', () => {
    const text = '😀 mail bob@example.com';
    const start = text.indexOf('bob');
    const end = start + 'bob@example.com'.length;
    expect(start).toBe(8);
    expect(utf16ToCodePoints(text, [start, end])).toEqual([7, 22]);
    expect(Array.from(text).slice(7, 22).join('')).toBe('bob@example.com');
  });

  it('handles several astral characters and unsorted offsets', () => {
    const text = 'a😀b😀😀c';
    // UTF-16: a=0, 😀=1-2, b=3, 😀=4-5, 😀=6-7, c=8
    expect(utf16ToCodePoints(text, [8, 0, 3, 9])).toEqual([5, 0, 2, 6]);
  });

  it('rounds an offset inside a surrogate pair down to the pair start', () => {
    expect(utf16ToCodePoints('x😀y', [2])).toEqual([1]);
  });

  it('clamps offsets beyond the text', () => {
    expect(utf16ToCodePoints('😀', [5])).toEqual([1]);
  });

  it('treats a lone surrogate as one code point', () => {
    const text = 'a\uD800b';
    expect(utf16ToCodePoints(text, [2, 3])).toEqual([2, 3]);
  });
});

describe('codePointsToUtf16', () => {
  it('inverts utf16ToCodePoints', () => {
    const text = '😀 card 4111 1111 1111 1111 🎉 end';
    expect(codePointsToUtf16(text, [7, 26])).toEqual([8, 27]);
  });

  it('clamps to the text length', () => {
    expect(codePointsToUtf16('a😀', [10])).toEqual([3]);
    expect(codePointsToUtf16('abc', [10, -1])).toEqual([3, 0]);
  });

  it('round-trips code-unit offsets that sit on code-point boundaries', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (text) => {
        const boundaries: number[] = [];
        let index = 0;
        for (const char of text) {
          boundaries.push(index);
          index += char.length;
        }
        boundaries.push(index);
        const points = utf16ToCodePoints(text, boundaries);
        expect(points).toEqual(boundaries.map((_, k) => k));
        expect(codePointsToUtf16(text, points)).toEqual(boundaries);
      }),
    );
  });
});

describe('replaceLoneSurrogates', () => {
  const wellFormed = (text: string): boolean => {
    try {
      encodeURIComponent(text);
      return true;
    } catch {
      return false;
    }
  };

  it('replaces each unpaired half by U+FFFD and keeps pairs', () => {
    expect(replaceLoneSurrogates('a\ud800b')).toBe('a\ufffdb');
    expect(replaceLoneSurrogates('\udc00\ud800')).toBe('\ufffd\ufffd');
    expect(replaceLoneSurrogates('x\ud83d')).toBe('x\ufffd');
    expect(replaceLoneSurrogates('😀\ud83d😀')).toBe('😀\ufffd😀');
    expect(replaceLoneSurrogates('plain')).toBe('plain');
  });

  it('keeps length and every offset, in both units, and always yields well-formed text', () => {
    const unit = fc.oneof(
      fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff', '😀', 'a', ' ', 'é'),
      fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)),
    );
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 40 }).map((parts) => parts.join('')), (text) => {
        const clean = replaceLoneSurrogates(text);
        expect(clean.length).toBe(text.length);
        expect(wellFormed(clean)).toBe(true);
        const all = Array.from({ length: text.length + 1 }, (_, index) => index);
        expect(utf16ToCodePoints(clean, all)).toEqual(utf16ToCodePoints(text, all));
        for (let index = 0; index < text.length; index += 1) {
          if (clean[index] !== '\ufffd' || text[index] === '\ufffd') expect(clean[index]).toBe(text[index]);
        }
      }),
    );
  });
});
