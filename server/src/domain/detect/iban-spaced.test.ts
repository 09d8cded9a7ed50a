// An IBAN written one character at a time after an IBAN word (iban.ts, scan.ts): "IBAN D E 8 9 3 7
// …" reached the model raw (the country code apart too was never read); without the word it is
// nothing.
import { describe, expect, it } from 'vitest';
import { normalizeValue } from '../token/normalize.js';
import { detectAll } from './index.js';

const ibans = (text: string): string[] => detectAll(text).filter((entity) => entity.type === 'iban').map((entity) => entity.value);

describe('an IBAN one character at a time', () => {
  it('is one IBAN after an IBAN word, normalized as the compact form', () => {
    const spaced = 'D E 8 9 3 7 0 4 0 0 4 4 0 5 3 2 0 1 3 0 0 0';
    expect(ibans(`IBAN ${spaced}`)).toEqual([spaced]);
    expect(ibans('iban: g b 8 2 w e s t 1 2 3 4 5 6 9 8 7 6 5 4 3 2 ok')).toEqual(['g b 8 2 w e s t 1 2 3 4 5 6 9 8 7 6 5 4 3 2']);
    expect(normalizeValue('iban', spaced)).toBe('DE89370400440532013000');
  });

  it('is nothing without the word or with a wrong checksum', () => {
    expect(ibans('D E 8 9 3 7 0 4 0 0 4 4 0 5 3 2 0 1 3 0 0 0')).toEqual([]);
    expect(ibans('IBAN D E 8 9 3 7 0 4 0 0 4 4 0 5 3 2 0 1 3 0 0 1')).toEqual([]);
  });
});
