// Session 19 (wave18/evade): dates, IPv4 addresses and passport numbers after their word written
// one digit at a time, as digit words, backwards, with S/B for 5/8, or (passports) encoded
// (loose-numbers.ts), and values written with the marks of strikethrough or underline text
// generators (text/fold.ts, DECORATION_MARKS; marks on a blank). Each spelling is found over the
// text as written and normalizes to the plain value (one token, one erasure); without the word, or
// when the run reads as a value forwards or as none backwards, nothing changes.
import { describe, expect, it } from 'vitest';
import { foldText } from '../text/fold.js';
import { normalizeValue } from '../token/normalize.js';
import { foundTagged as found } from '../../../test/support/detections.js';
import { looseReading, numericDateValid, strictIpv4 } from './loose-numbers.js';

const strike = (value: string): string => [...value].map((c) => `${c}\u0336`).join('');
const underline = (value: string): string => [...value].map((c) => `${c}\u0332`).join('');

describe('loose spellings of dates, IPv4 addresses and passport numbers after their word', () => {
  it.each([
    ['date of birth 1-9-8-5-0-3-0-4 ok', 'date', '1-9-8-5-0-3-0-4', '1985-03-04'],
    ['DOB: 1.9.8.5.0.3.0.4', 'date', '1.9.8.5.0.3.0.4', '1985-03-04'],
    ['born 0 / 4 / 0 / 3 / 1 / 9 / 8 / 5', 'date', '0 / 4 / 0 / 3 / 1 / 9 / 8 / 5', '04/03/1985'],
    ['date of birth 19BS-03-04 ok', 'date', '19BS-03-04', '1985-03-04'],
    ['date of birth 40-30-5891 ok', 'date', '40-30-5891', '1985-03-04'],
    ['geboren am 5891.21.13', 'date', '5891.21.13', '31.12.1985'],
    ['date of birth one nine eight five zero three zero four ok', 'date', 'one nine eight five zero three zero four', '1985-03-04'],
    ['server ip B1.2.69.160 ok', 'ip_address', 'B1.2.69.160', '81.2.69.160'],
    ['server ip 061.96.2.18 ok', 'ip_address', '061.96.2.18', '81.2.69.160'],
    ['my ip: 1.0.861.291 is down', 'ip_address', '1.0.861.291', '192.168.0.1'],
    ['passport number 9-1-2-8-0-3-4-5-6 ok', 'us_passport', '9-1-2-8-0-3-4-5-6', '912803456'],
    ['passport number nine one two eight zero three four five six ok', 'us_passport', 'nine one two eight zero three four five six', '912803456'],
    ['passport number OTEyODAzNDU2 ok', 'us_passport', 'OTEyODAzNDU2', '912803456'],
    ['passport number 393132383033343536 ok', 'us_passport', '393132383033343536', '912803456'],
    ['passport number HEYTEOBQGM2DKNQ= ok', 'us_passport', 'HEYTEOBQGM2DKNQ=', '912803456'],
  ])('%s', (text, type, value, plain) => {
    expect(found(text)).toContain(`${type}[${value}]`);
    expect(normalizeValue(type, value, 'US')).toBe(normalizeValue(type, plain, 'US'));
  });

  it.each([
    'born in 1985, moved in 2003', // no run of the spellings
    'date of birth 2024-99-99', // no date either way
    'date of birth 12-34-5678', // backwards 8765-43-21: no date
    'ip 1-2-3-4-5-6-7-8 down', // an address one digit at a time has no dots left: not read
    'server ip 300.1.2.3', // backwards 3.2.1.003: a leading zero
    'the host has eight one two six nine one six zero users', // digit words, an address: not read
    'passport number SGVsbG8gd29ybGQ=', // decodes to prose, no passport
  ])('leaves %s', (text) => {
    expect(found(text).filter((tag) => /^(?:date|ip_address|us_passport)\[/.test(tag))).toEqual([]);
  });

  it('reads a run forwards first', () => {
    expect(looseReading('date', '1985-03-04')).toBeUndefined();
    expect(looseReading('ip', '81.2.69.160')).toBeUndefined();
    expect(looseReading('ip', '161.96.2.18')).toBeUndefined(); // a valid address backwards is found as itself
    expect(numericDateValid('04/03/1985')).toBe(true);
    expect(strictIpv4('061.96.2.18')).toBe(false);
  });

  it('normalizes the plain values as before', () => {
    expect(normalizeValue('date', '1985-03-04', 'US')).toBe('1985-03-04');
    expect(normalizeValue('ip_address', '81.2.69.160', 'US')).toBe('81.2.69.160');
    expect(normalizeValue('us_passport', '912803456', 'US')).toBe('912803456');
  });
});

describe('values written with decoration marks', () => {
  it.each([
    [`my card is ${strike('4111 1111 1111 1111')} ok`, 'credit_card', '4111 1111 1111 1111'],
    [`my NI number is ${strike('AB123456C')} ok`, 'uk_nino', 'AB123456C'],
    [`key ${strike('sk-proj-Xq7Lm2Rt9Vb4Kp8Zc3Wn6Hy1Jd5Fs0Ga')} ok`, 'api_key', 'sk-proj-Xq7Lm2Rt9Vb4Kp8Zc3Wn6Hy1Jd5Fs0Ga'],
    [`IBAN ${underline('GB82 WEST 1234 5698 7654 32')} ok`, 'iban', 'GB82 WEST 1234 5698 7654 32'],
    ['my card is 41\u030111\u0301 1\u030111\u03011 \u030111\u030111\u0301 1\u030111\u03011 ok', 'credit_card', '4111 1111 1111 1111'],
  ])('%s', (text, type, plain) => {
    const tags = found(text).filter((tag) => tag.startsWith(`${type}[`));
    expect(tags).toHaveLength(1);
    const value = tags[0]!.slice(type.length + 1, -1);
    expect(normalizeValue(type, value, 'US')).toBe(normalizeValue(type, plain, 'US'));
  });

  it('keeps marks that spell a word', () => {
    expect(found('cafe\u0301 at 5 ok')).toEqual([]);
    expect(foldText('le cafe\u0301 de 1e\u0300re classe, re\u0301sume\u0301 2024')).toBe('le cafe\u0301 de 1e\u0300re classe, re\u0301sume\u0301 2024');
    expect(foldText('Noe\u0308l a\u0300 Paris')).toBe('Noe\u0308l a\u0300 Paris');
  });
});
