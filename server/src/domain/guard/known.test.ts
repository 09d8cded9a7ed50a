// The skeleton the known-values search runs on (domain/guard/known.ts): the ASCII fast path
// must give exactly what the general path (one code point at a time, \p{L}\p{N}, lower-cased)
// gives, on any text, ASCII or not; and a value is found however its ASCII letters are cased.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KnownValues, skeletonOf } from './known.js';

/** The general path alone: what skeletonOf computed for every character before the ASCII fast path. */
function referenceSkeleton(text: string): { chars: string; positions: number[] } {
  let chars = '';
  const positions: number[] = [];
  for (let index = 0; index < text.length; ) {
    const width = text.codePointAt(index)! > 0xffff ? 2 : 1;
    const ch = text.slice(index, index + width);
    if (/[\p{L}\p{N}]/u.test(ch)) {
      for (const unit of ch.toLowerCase()) {
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

  it('finds a session value written in another case and spacing', () => {
    const known = new KnownValues([{ type: 'person', value: 'Alice Smith' }]);
    expect(known.find('Hello ALICE-smith, and alicesmithy')).toEqual([{ type: 'person', start: 6, end: 17 }]);
  });
});
