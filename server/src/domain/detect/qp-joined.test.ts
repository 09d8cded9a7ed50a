// Values with their punctuation written as quoted-printable escapes (session 14, wave13/evade;
// qp-joined.ts, text/qp-punct.ts): found over the text as written, normalized to the plain value
// (one token, one erasure); assignments and numbers without their value word stay as written.
import { describe, expect, it } from 'vitest';
import { normalizeValue } from '../token/normalize.js';
import { decodeQpPunct, qpEscapesInText } from '../text/qp-punct.js';
import { foundTagged as found } from '../../../test/support/detections.js';

describe('punctuation written as quoted-printable escapes inside a value', () => {
  it.each([
    // The matrix's spellings (tools/evade-matrix/matrix.mjs, qp-special).
    ['my SSN is 078=2D05=2D1120 ok', 'us_ssn', '078=2D05=2D1120', '078051120'],
    ['call me at =2B1 415 555 0142 ok', 'phone', '=2B1 415 555 0142', '+14155550142'],
    ['my phone number is =28415=29 555=2D0142 ok', 'phone', '=28415=29 555=2D0142', '+14155550142'],
    ['my phone is =2B81 3=2D1234=2D5678 ok', 'phone', '=2B81 3=2D1234=2D5678', '+81312345678'],
    ['server ip 81=2E2=2E69=2E160 ok', 'ip_address', '81=2E2=2E69=2E160', '81.2.69.160'],
    ['server ip 2a00=3A1450=3A4001=3A82a=3A=3A200e ok', 'ip_address', '2a00=3A1450=3A4001=3A82a=3A=3A200e', '2a00:1450:4001:82a::200e'],
    ['mac address 00=3A1A=3A2B=3A3C=3A4D=3A5E ok', 'mac_address', '00=3A1A=3A2B=3A3C=3A4D=3A5E', '001a2b3c4d5e'],
    ['CPF 123=2E456=2E789=2D09 ok', 'br_cpf', '123=2E456=2E789=2D09', '12345678909'],
    ['key sk=2Dproj=2DXq7Lm2Rt9Vb4Kp8Zc3Wn6Hy1Jd5Fs0Ga ok', 'api_key', 'sk=2Dproj=2DXq7Lm2Rt9Vb4Kp8Zc3Wn6Hy1Jd5Fs0Ga', 'sk-proj-Xq7Lm2Rt9Vb4Kp8Zc3Wn6Hy1Jd5Fs0Ga'],
    ['stripe sk=5Flive=5F51HqLm2Rt9Vb4Kp8Zc3Wn6Hy1Jd5Fs ok', 'api_key', 'sk=5Flive=5F51HqLm2Rt9Vb4Kp8Zc3Wn6Hy1Jd5Fs', 'sk_live_51HqLm2Rt9Vb4Kp8Zc3Wn6Hy1Jd5Fs'],
    ['date of birth 1985=2D03=2D04 ok', 'date', '1985=2D03=2D04', '1985-03-04'],
    // Spellings of this session's own: escapes mixed with percent escapes and HTML references,
    // an IBAN's blanks escaped.
    ['my SSN is 078=2D05%2D1120 ok', 'us_ssn', '078=2D05%2D1120', '078051120'],
    ['my SSN is 078=2D05&#45;1120 ok', 'us_ssn', '078=2D05&#45;1120', '078051120'],
    ['IBAN DE89=203704=200044=200532=200130=2000 ok', 'iban', 'DE89=203704=200044=200532=200130=2000', 'DE89370400440532013000'],
  ])('%s', (text, type, value, canonical) => {
    expect(found(text)).toContain(`${type}[${value}]`);
    expect(normalizeValue(type, value, 'US')).toBe(canonical);
  });
});

describe('escapes in assignments and numbers without their value word stay as written', () => {
  it.each([
    'width=2D4 id=2D4F token=2E9f version 1=2E2=2E3 and 2024=2D01=2D05 build',
    'ref 078=2D05=2D1120 is closed',
    'ratio 81=2E2=2E69=2E160 today',
  ])('%s', (text) => {
    expect(found(text)).toEqual([]);
  });

  it('reads escapes inside runs only, and maps the reading back exactly', () => {
    expect(qpEscapesInText('a = 2D b =2D', 8)).toEqual([]);
    const text = 'x 078=2D05=2D1120';
    const reading = decodeQpPunct(text, 0, text.length);
    expect(reading.text).toBe('x 078-05-1120');
    expect(reading.decoded).toEqual([5, 8]);
    expect(text.slice(reading.origin[5], reading.origin[6])).toBe('=2D');
    expect(reading.origin[reading.text.length]).toBe(text.length);
  });
});
