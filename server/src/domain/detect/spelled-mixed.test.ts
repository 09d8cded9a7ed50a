// Digit words mixed with numerals (spelled-digits.ts): "card four 1 1 1 1111 1111 1111" and
// "4111 one one one one 1111 1111" reached the model raw (a run needed three digit words). With
// fewer words the run needs numerals around them, one clause, and a card's checks or a context
// word: a digit word beside a number is prose otherwise.
import { describe, expect, it } from 'vitest';
import { normalizeValue } from '../token/normalize.js';
import { unspellDigits } from './spelled-digits.js';
import { detectAll } from './index.js';

const found = (text: string): string[] => detectAll(text).filter((entity) => entity.confidence >= 0.5).map((entity) => `${entity.type}:${entity.value}`);

describe('digit words mixed with numerals', () => {
  it.each([
    ['card four 1 1 1 1111 1111 1111', 'credit_card:four 1 1 1 1111 1111 1111'],
    ['card 4111 one one one one 1111 1111 ok', 'credit_card:4111 one one one one 1111 1111'],
    ['ssn zero 78-05-1120', 'us_ssn:zero 78-05-1120'],
    ['phone 415 five 55 0100', 'phone:415 five 55 0100'],
  ])('finds %j', (text, value) => {
    expect(found(text)).toEqual([value]);
  });

  it('normalizes to the digits', () => {
    expect(normalizeValue('credit_card', 'four 1 1 1 1111 1111 1111')).toBe(normalizeValue('credit_card', '4111 1111 1111 1111'));
    expect(unspellDigits('one two')).toBeUndefined();
    expect(unspellDigits('one 22')).toBeUndefined();
  });

  it.each([
    'we need two 1111 boxes',
    'one 2024 report',
    'I have one 415 555 0100',
    'Tél.: +33 (0)2 21 06 67 92. Quatre beau auprès.',
    'Chapter four, 1 1 1 1111 1111 1111 is a test pattern',
  ])('leaves %j as it was', (text) => {
    expect(found(text).filter((value) => /\b(?:one|two|four|quatre)\b/i.test(value.slice(value.indexOf(':') + 1)))).toEqual([]);
  });
});
