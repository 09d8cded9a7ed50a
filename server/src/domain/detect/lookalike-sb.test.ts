// Numbers with S for 5 and B for 8 (session 15, wave14/evade2; lookalike-sb.ts): a card on its
// check, an SSN or a phone on its value word; each spelling is the exact slice of the text and
// normalizes to the plain number. Prose words, chains with more than one letter in three,, units, tiers and hex ids stay as written.
import { describe, expect, it } from 'vitest';
import { only } from '../../../test/support/detections.js';
import { readSBDigits } from '../text/lookalike-sb.js';
import { detectAll } from './index.js';

describe('S for 5 and B for 8 in a number', () => {
  it.each([
    ['card 5S55 555S 5555 4444 ok', 'credit_card', '5S55 555S 5555 4444', '5555555555554444'],
    ['pay with S10S10S10S10S100 please', 'credit_card', 'S10S10S10S10S100', '5105105105105100'],
    ['my SSN is 078-0S-1120 ok', 'us_ssn', '078-0S-1120', '078051120'],
    ['call me at 41S-5S5-0142 ok', 'phone', '41S-5S5-0142', '+14155550142'],
  ])('%j', (text, type, value, canonical) => {
    expect(only(text, type)).toEqual({ value, canonical });
  });
});

describe('words with S or B that are no number stay as written', () => {
  const numbers = (text: string): string[] =>
    detectAll(text)
      .filter((d) => d.confidence >= 0.5 && ['credit_card', 'us_ssn', 'phone'].includes(d.type) && /[SB]/.test(d.value))
      .map((d) => `${d.type}[${d.value}]`);
  it.each([
    'the BOSS said SOS, B2B sales up',
    'a 8B model on S3, 70B next',
    'order 41S-5S5-0142 ok',
    'call me at 41S-SSS-0142 ok',
    'ref 078-0S-1120 ok',
    'build 5B3A 2B4C 1B8D 9S7E done',
    'card 5S55 555S 5555 4445 ok',
  ])('%j', (text) => {
    expect(numbers(text)).toEqual([]);
  });
  it('reads only words of digits and S or B', () => {
    expect(readSBDigits('+1 41S FLOWERS 5B3A SOS B2B')).toBe('+1 415 FLOWERS 5B3A SOS 828');
  });
});
