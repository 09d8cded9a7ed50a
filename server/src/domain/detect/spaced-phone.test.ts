// A phone number read out one digit at a time after a phone word (numeric.ts trySpacedDigits):
// the phone detector took the first eight digits and left the rest raw ("{{phone}} 0 0").
import { describe, expect, it } from 'vitest';
import { normalizeValue } from '../token/normalize.js';
import { detectAll } from './index.js';

const found = (text: string): string[] => detectAll(text).filter((entity) => entity.confidence >= 0.5).map((entity) => `${entity.type}:${entity.value}`);

describe('a phone number one digit at a time', () => {
  it('is one phone number over the whole run, normalized like the grouped form', () => {
    expect(found('phone 4 1 5 5 5 5 0 1 0 0')).toEqual(['phone:4 1 5 5 5 5 0 1 0 0']);
    expect(found('call me at 4-1-5-5-5-5-0-1-0-0 ok')).toEqual(['phone:4-1-5-5-5-5-0-1-0-0']);
    expect(found('my cell is 1 4 1 5 5 5 5 0 1 0 0.')).toEqual(['phone:1 4 1 5 5 5 5 0 1 0 0']);
    expect(normalizeValue('phone', '4 1 5 5 5 5 0 1 0 0')).toBe(normalizeValue('phone', '(415) 555-0100'));
  });

  it('is nothing without a phone word', () => {
    expect(found('scores 4 1 5 5 5 5 0 1 0 0')).toEqual([]);
    expect(found('number 4 1 5 5 5 5 0 1 0 0 please')).toEqual([]);
  });
});
