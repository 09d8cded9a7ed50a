// Values broken by a line break and the next line's indentation (session 16, wave15/evade;
// broken-indent.ts): read with the break and the indentation taken out, a card on its Luhn sum, an
// IBAN on its mod 97, a prefixed key or a JWT on its shape, a connection string on its scheme, an
// SSN, a phone, a national id or an e-mail address on its word; each spelling is the exact slice of
// the text, and numbers, keys and tokens normalize to the plain value.
import { describe, expect, it } from 'vitest';
import { found, only } from '../../../test/support/detections.js';
import { normalizeValue } from '../token/normalize.js';
import { mayJoinIndentedAt, userInfoBreaks } from './broken-indent.js';

const JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkphbmUgRG9lIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';

describe('values broken by a line break and indentation read whole', () => {
  it.each([
    ['my card is 4111 1111\n     1111 1111 thanks', 'credit_card', '4111 1111\n     1111 1111', '4111 1111 1111 1111'],
    ['card number 55000000\r\n\t00000004 ok', 'credit_card', '55000000\r\n\t00000004', '5500000000000004'],
    ['IBAN DE89 3704 00\n    44 0532 0130 00 ok', 'iban', 'DE89 3704 00\n    44 0532 0130 00', 'DE89 3704 0044 0532 0130 00'],
    ['IBAN GB82 WEST 123\n    4 5698 7654 32 ok', 'iban', 'GB82 WEST 123\n    4 5698 7654 32', 'GB82 WEST 1234 5698 7654 32'],
    ['my SSN is 078-0\n    5-1120 ok', 'us_ssn', '078-0\n    5-1120', '078-05-1120'],
    ['call me at +91 987\n    65 43210 ok', 'phone', '+91 987\n    65 43210', '+91 98765 43210'],
    ['call me at +1 415 \n    555 0142 ok', 'phone', '+1 415 \n    555 0142', '+1 415 555 0142'],
    ['my phone number is (415) \n  555-0142 ok', 'phone', '(415) \n  555-0142', '(415) 555-0142'],
    ['DNI 1234\n    5678Z ok', 'es_dni', '1234\n    5678Z', '12345678Z'],
    ['my NI number is AB12\n    3456C ok', 'uk_nino', 'AB12\n    3456C', 'AB123456C'],
    ['CPF 123.456\n    .789-09 ok', 'br_cpf', '123.456\n    .789-09', '123.456.789-09'],
    ['aws key AKIAQ3EGRT\n    7VXZ4MPL2K ok', 'api_key', 'AKIAQ3EGRT\n    7VXZ4MPL2K', 'AKIAQ3EGRT7VXZ4MPL2K'],
    ['token ghp_R7mK2pQ9xV4nL8wZ\n    3cT6yB1hJ5dF0sG2aE9u ok', 'api_key', 'ghp_R7mK2pQ9xV4nL8wZ\n    3cT6yB1hJ5dF0sG2aE9u', 'ghp_R7mK2pQ9xV4nL8wZ3cT6yB1hJ5dF0sG2aE9u'],
    ['key sk-proj-Xq7Lm2Rt9Vb4\n    Kp8Zc3Wn6Hy1Jd5Fs0Ga ok', 'api_key', 'sk-proj-Xq7Lm2Rt9Vb4\n    Kp8Zc3Wn6Hy1Jd5Fs0Ga', 'sk-proj-Xq7Lm2Rt9Vb4Kp8Zc3Wn6Hy1Jd5Fs0Ga'],
    [`auth ${JWT.slice(0, 66)}\n    ${JWT.slice(66)} ok`, 'jwt', `${JWT.slice(0, 66)}\n    ${JWT.slice(66)}`, JWT],
  ])('%j', (text, type, value, plain) => {
    const hit = only(text, type);
    expect(hit.value).toBe(value);
    expect(hit.canonical).toBe(normalizeValue(type, plain, 'US'));
  });

  it.each([
    ['email me at jane.d\n    oe@corp.example ok', 'email', 'jane.d\n    oe@corp.example'],
    ['db postgres://admin:S3cretPw\n    9@db.corp.example:5432/app ok', 'connection_string', 'postgres://admin:S3cretPw\n    9@db.corp.example:5432/app'],
    ['db postgres://admin:S3cretPw\r\n9@db.corp.example:5432/app ok', 'connection_string', 'postgres://admin:S3cretPw\r\n9@db.corp.example:5432/app'],
  ])('%j (the exact slice; its erasure form keeps the blanks: see docs/detection.md)', (text, type, value) => {
    expect(only(text, type).value).toBe(value);
  });
});

describe('indented lines that break no value stay apart', () => {
  it.each([
    // A joined run that fails the card's Luhn sum or the IBAN's mod 97.
    'my card is 4111 1111\n    1111 1112 thanks',
    'IBAN DE89 3704 00\n    44 0532 0130 01 ok',
    // No value word before an SSN, a phone or a national id.
    'build 078-0\n    5-1120 done',
    'ticket 1234\n    5678Z done',
    'order 987\n    65 43210 shipped',
    // An e-mail address with no word: the line before stays its own.
    'Contact Bob\n    bob@corp.example',
    // Code and lists.
    'x = 1\n    y = 2',
    'for (let i = 0; i < 10; i++)\n    total += i;',
    '- step 1\n    - step 2',
  ])('%j', (text) => {
    expect(found(text).filter(([, value]) => value.includes('\n'))).toEqual([]);
  });

  it.each([
    // A line that ends a value: the next line is other text.
    ['my card is 4111 1111 1111 1111\n    2 items left', 'credit_card', '4111 1111 1111 1111'],
    ['my SSN is 078-05-1120\n    12 more', 'us_ssn', '078-05-1120'],
    ['email me at jane@corp.example\n    thanks', 'email', 'jane@corp.example'],
  ])('%j', (text, type, value) => {
    expect(only(text, type).value).toBe(value);
  });
});

describe('mayJoinIndentedAt', () => {
  it.each([
    ['4111 1111\n    1111', true],
    ['+1 415 \n    555', true],
    ['jane.d\n    oe@corp', true],
    ['sk-proj-Xq7Lm2Rt9Vb4\n    Kp8', true],
    ['postgres://admin:pw\n    x@db', true],
    // No indentation: userInfoBreaks reads those.
    ['4111 1111\n1111', false],
    ['postgres://admin:pw\nx@db', false],
    // Prose, and a line ending in a blank after a word.
    ['the end\n    of it', false],
    ['word \n    1234', false],
    // No digit or @ near the break, a short run.
    ['foo.bar\n    baz', false],
    // A URL ending a line, followed by a mention or a mail address: no user info broken.
    ['see https://example.com/docs\n@channel hi', false],
    ['web https://host.example:8080/\nmail@corp.example', false],
  ])('%j', (text, expected) => {
    expect(mayJoinIndentedAt(text, text.indexOf('\n'))).toBe(expected);
  });
});

describe('userInfoBreaks', () => {
  it.each([
    ['db postgres://admin:pw\nx@db.example', [22]],
    ['db postgres://admin:pw\r\nx@db.example', [23]],
    // A URL ending a line, a scheme with no user info, a user info whose `@` is on the first line.
    ['see https://example.com/docs\n@channel hi', []],
    ['web https://host.example:8080/\nmail@corp.example', []],
    ['db postgres://admin:pw@db\nx@y.example', []],
  ])('%j', (text, expected) => {
    expect(userInfoBreaks(text)).toEqual(expected);
  });
});
