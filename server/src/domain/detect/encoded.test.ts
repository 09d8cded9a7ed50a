// Base64-encoded values (encoded.ts): a value encoded to get past a filter is the value, one
// token and one erasure with the plain spelling; ordinary long words, paths, hashes and keys are
// not decoded into values, and a run is decoded one level deep only (encoded sentences holding
// values: encoded-sentences.test.ts).
import { describe, expect, it } from 'vitest';
import { normalizeValue } from '../token/normalize.js';
import { decodeBase64Value } from './encoded.js';
import { detectAll } from './index.js';
import { found } from '../../../test/support/detections.js';

const b64 = (text: string): string => Buffer.from(text).toString('base64');
const b64url = (text: string): string => Buffer.from(text).toString('base64url');

describe('base64-encoded values', () => {
  it.each([
    ['email', 'john.doe@corp.example'],
    ['credit_card', '4111 1111 1111 1111'],
    ['us_ssn', '078-05-1120'],
    ['phone', '+1 415 555 0100'],
    ['iban', 'DE89 3704 0044 0532 0130 00'],
    ['api_key', 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH'],
  ])('finds a %s sent encoded', (type, value) => {
    for (const encoded of [b64(value), b64url(value).replace(/=+$/, ''), b64(` ${value}\n`)]) {
      expect(found(`my value: ${encoded} thanks`)).toEqual([[type, encoded]]);
    }
  });

  it.each([
    ['email', 'john.doe@corp.example'],
    ['credit_card', '4111111111111111'],
    ['phone', '(415) 555-0100'],
  ])('finds a %s sent hex-encoded', (type, value) => {
    const hex = Buffer.from(value).toString('hex');
    expect(found(`value ${hex} ok`)).toEqual([[type, hex]]);
    expect(found(`value ${hex.toUpperCase()} ok`)).toEqual([[type, hex.toUpperCase()]]);
    expect(normalizeValue(type, hex)).toBe(normalizeValue(type, value));
  });

  it('leaves hashes and hex ids alone', () => {
    for (const text of ['commit 3fa9c2d1b7e4a0c9d8e7f6a5b4c3d2e1f0a9b8c7', 'uuid 550e8400e29b41d4a716446655440000', `text ${Buffer.from('just some words').toString('hex')}`]) {
      expect(found(text), text).toEqual([]);
    }
  });

  it('normalizes an encoded value as the value it encodes (one token, one erasure)', () => {
    expect(normalizeValue('email', b64('John.Doe@Corp.Example'))).toBe('john.doe@corp.example');
    expect(normalizeValue('credit_card', b64('4111 1111 1111 1111'))).toBe('4111111111111111');
    expect(normalizeValue('phone', b64('415-555-0100'))).toBe(normalizeValue('phone', '+14155550100'));
    // A plain value whose characters happen to decode to text keeps its own form.
    expect(Buffer.from('4532456745324567', 'hex').toString('latin1')).toBe('E2EgE2Eg');
    expect(normalizeValue('credit_card', '4532456745324567')).toBe('4532456745324567');
    // Secrets stay their own exact string.
    const key = b64('sk-proj-abcdefghijklmnopqrstuvwxyz0123456789');
    expect(normalizeValue('api_key', key)).toBe(key);
  });

  it('leaves long words, paths, hashes, random keys and encoded prose alone', () => {
    for (const text of [
      'internationalization of the Wolfeschlegelsteinhausenbergerdorff family',
      'see /usr/local/lib/python3.12/site-packages/requests',
      'sha256 ASNFZ4mrze8BI0VniavN7wEjRWeJq83vASNFZ4mrze8=',
      'the word ' + b64('hello world, nice day to you'),
      'nested ' + b64(b64('john.doe@corp.example')), // one level deep only
    ]) {
      expect(found(text).filter(([type]) => type !== 'api_key' && type !== 'password'), text).toEqual([]);
    }
  });

  it('decodes printable ASCII only', () => {
    expect(decodeBase64Value(b64('john.doe@corp.example'))).toBe('john.doe@corp.example');
    expect(decodeBase64Value(b64('tab\tand\nlines ok'))).toBe('tab\tand\nlines ok');
    expect(decodeBase64Value(b64('caf\u00e9 na\u00efve text'))).toBeUndefined(); // UTF-8 bytes
    expect(decodeBase64Value(b64('bell\u0007 in text'))).toBeUndefined();
    expect(decodeBase64Value('QUFB')).toBeUndefined(); // too short
    expect(decodeBase64Value('QUFBQUFBQUFBQUFBQ')).toBeUndefined(); // 4n+1 characters encode nothing
  });

  it('scans a megabyte of encoded values in one pass (each run once)', () => {
    const text = `${b64('john.doe@corp.example')} `.repeat(40_000);
    expect(detectAll(text).length).toBe(40_000);
  });
});
