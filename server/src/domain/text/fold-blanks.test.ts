// Characters that break a value for detection but not for a reader (fold.ts): Unicode line and
// paragraph separators and NEL, blanks that are not spaces (braille blank, object replacement),
// enclosing marks anywhere and combining marks on value punctuation. Each is checked on the fold
// and through detection of whole values, and for precision on text that holds them legitimately.
import { describe, expect, it } from 'vitest';
import { foldText, foldWithOffsets } from './fold.js';
import { detectAll } from '../detect/index.js';

const SEPARATORS: Record<string, string> = {
  'line separator': '\u2028',
  'paragraph separator': '\u2029',
  'next line': '\u0085',
  'braille blank': '\u2800',
  'object replacement': '\ufffc',
};

function typesOf(text: string): string[] {
  return detectAll(text).map((entity) => `${entity.type}:${text.slice(entity.start, entity.end)}`);
}

describe('line separators and blanks', () => {
  it('fold to a line break or a space, one character each', () => {
    expect(foldText('a\u2028b\u2029c\u0085d')).toBe('a\nb\nc\nd');
    expect(foldText('4111\u28001111\ufffc1111')).toBe('4111 1111 1111');
    const view = foldWithOffsets('x\u2800y');
    expect(view.text).toBe('x y');
  });

  for (const [name, separator] of Object.entries(SEPARATORS)) {
    it(`a value broken by the ${name} is found whole`, () => {
      const card = `card 4111${separator}1111${separator}1111${separator}1111 ok`;
      const ssn = `ssn 078${separator}05${separator}1120 ok`;
      expect(typesOf(card)).toEqual([`credit_card:${card.slice(5, card.length - 3)}`]);
      expect(typesOf(ssn)).toEqual([`us_ssn:${ssn.slice(4, ssn.length - 3)}`]);
    });
  }

  it('a blank inside an e-mail address leaves nothing of it raw', () => {
    for (const blank of ['\u2800', '\ufffc']) {
      const text = `mail john${blank}.doe${blank}@${blank}corp.example now`;
      const found = detectAll(text);
      const covered = (index: number): boolean => found.some((entity) => entity.start <= index && index < entity.end);
      for (const part of ['john', 'doe', 'corp']) expect(covered(text.indexOf(part)), `${part} with U+${blank.codePointAt(0)!.toString(16)}`).toBe(true);
    }
  });
});

describe('marks', () => {
  it('enclosing marks are dropped everywhere; combining marks on value punctuation too', () => {
    expect(foldText('1\u20e32\u20e3 a\u20ddb')).toBe('12 ab');
    expect(foldText('john\u20e3.doe\u20e3@\u20e3corp.example')).toBe('john.doe@corp.example');
    expect(foldText('jane@\u0307corp.\u0336example')).toBe('jane@corp.example');
    // Marks on letters spell the word and stay.
    expect(foldText('jose\u0301 nin\u0303o')).toBe('jose\u0301 nin\u0303o');
  });

  it('an e-mail address decorated with keycaps or enclosing circles is found whole', () => {
    for (const mark of ['\u20e3', '\u20dd', '\u20de']) {
      const text = `write to john${mark}.doe${mark}@${mark}corp.example today`;
      expect(typesOf(text)).toEqual([`email:${text.slice(9, text.length - 6)}`]);
    }
  });
});

describe('precision', () => {
  it('text that holds these characters for what they are finds nothing new', () => {
    for (const text of [
      'First paragraph.\u2029Second paragraph with 2 items.',
      'Press 1\u20e3 for sales, 2\u20e3 for support.',
      'Braille: \u2801\u2803\u2800\u2809 and a blank \u2800 here',
      'Image \ufffc caption, page 12 of 40',
      'Line one\u2028Line two, version 1.2.3',
    ]) expect(typesOf(text), text).toEqual([]);
  });
});

describe('decorated digits', () => {
  it('parenthesized and full-stop digits fold to the bare digits, like circled ones', () => {
    expect(foldText('⑷⑴⑴⑴ ⒈⒉ ⒇ ①')).toBe('4111 12 20 1');
    expect(typesOf('card ⑷⑴⑴⑴ ⑴⑴⑴⑴ ⑴⑴⑴⑴ ⑴⑴⑴⑴ ok')).toEqual(['credit_card:⑷⑴⑴⑴ ⑴⑴⑴⑴ ⑴⑴⑴⑴ ⑴⑴⑴⑴']);
  });
});
