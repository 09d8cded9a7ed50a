// Long texts reach the sidecar in bounded pieces that cover the text exactly.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitForNer } from './ner.js';

describe('splitForNer', () => {
  it('keeps short texts whole and cuts long ones at whitespace', () => {
    expect(splitForNer('short text', 100)).toEqual([{ text: 'short text', offset: 0 }]);
    const pieces = splitForNer('alpha beta gamma delta epsilon', 12);
    expect(pieces.map((piece) => piece.text)).toEqual(['alpha beta', ' gamma', ' delta', ' epsilon']);
  });

  it('covers any text exactly, within the limit, without splitting surrogate pairs', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), fc.integer({ min: 4, max: 50 }), (text, limit) => {
        const pieces = splitForNer(text, limit);
        expect(pieces.map((piece) => piece.text).join('')).toBe(text);
        let offset = 0;
        for (const piece of pieces) {
          expect(piece.offset).toBe(offset);
          expect(piece.text.length).toBeLessThanOrEqual(limit);
          expect(piece.text.length).toBeGreaterThan(0);
          const last = piece.text.charCodeAt(piece.text.length - 1);
          expect(last >= 0xd800 && last <= 0xdbff).toBe(false);
          offset += piece.text.length;
        }
      }),
    );
  });
});
