// An SSN written with slashes or underscores after an SSN word (numeric.ts trySsn): "ssn
// 078/05/1120" reached the model raw; without the word such a run stays alone (no print form).
import { describe, expect, it } from 'vitest';
import { normalizeValue } from '../token/normalize.js';
import { detectAll } from './index.js';

const found = (text: string): string[] => detectAll(text).filter((entity) => entity.confidence >= 0.5).map((entity) => `${entity.type}:${entity.value}`);

describe('SSN with slashes or underscores', () => {
  it('is an SSN after an SSN word, normalized like the dashed form', () => {
    expect(found('ssn 078/05/1120')).toEqual(['us_ssn:078/05/1120']);
    expect(found('SSN: 078_05_1120 thanks')).toEqual(['us_ssn:078_05_1120']);
    expect(found('my social is 078/05/1120')).toEqual(['us_ssn:078/05/1120']);
    expect(normalizeValue('us_ssn', '078/05/1120')).toBe(normalizeValue('us_ssn', '078-05-1120'));
  });

  it('is nothing without one, and never-issued numbers are nothing', () => {
    expect(found('ref 078/05/1120')).toEqual([]);
    expect(found('path a_123_45_6789')).toEqual([]);
    expect(found('ssn 000/05/1120')).toEqual([]);
  });
});

describe('SSN in another grouping after an SSN word', () => {
  it('is an SSN, not a phone number', () => {
    expect(found('ssn 07 80 51 120')).toEqual(['us_ssn:07 80 51 120']);
    expect(found('my social is 0780 51120.')).toEqual(['us_ssn:0780 51120']);
    expect(found('SSN: 07805-1120')).toEqual(['us_ssn:07805-1120']);
    expect(normalizeValue('us_ssn', '07 80 51 120')).toBe(normalizeValue('us_ssn', '078-05-1120'));
  });

  it('needs the word, nine digits exactly and the same separator', () => {
    expect(found('ref 07 80 51 120')).not.toContain('us_ssn:07 80 51 120');
    expect(found('ssn 07 80 51 1200 9').some((value) => value.startsWith('us_ssn'))).toBe(false);
    expect(found('ssn 07 80 51 12').some((value) => value.startsWith('us_ssn'))).toBe(false);
  });
});

describe('apostrophes between digit groups (the Swiss group separator)', () => {
  it('join a card, an SSN or a phone after its word, and nothing without one', () => {
    expect(found("card 4111'1111'1111'1111")).toEqual(["credit_card:4111'1111'1111'1111"]);
    expect(found('ssn 078’05’1120')).toEqual(['us_ssn:078’05’1120']);
    expect(found("phone 415'555'0100")).toEqual(["phone:415'555'0100"]);
    expect(normalizeValue('credit_card', "4111'1111'1111'1111")).toBe('4111111111111111');
    expect(found("4111'1111'1111'1111")).toEqual([]);
    expect(found("total CHF 1'250'000")).toEqual([]);
  });
});
