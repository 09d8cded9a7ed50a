// Look-alike letters in numbers read on the value's word (session 14, wave13/evade;
// lookalike-worded.ts): a chain with more letters than digits, and IP addresses, dates and
// national ids, are read with the letters as digits when the value's word stands before them and
// the value is valid; the spelling normalizes to the plain value (one token, one erasure). Words of
// letters alone and chains without the value's word are left alone.
import { describe, expect, it } from 'vitest';
import { normalizeValue } from '../token/normalize.js';
import { foundTagged as found } from '../../../test/support/detections.js';

describe('look-alike letters read as digits on the value word', () => {
  it.each([
    // The matrix's spellings (tools/evade-matrix/matrix.mjs: O0-l1, cyr+O0).
    ['my card is 4lll llll llll llll ok', 'credit_card', '4lll llll llll llll', '4111111111111111'],
    ['card number 55OOOOOOOOOOOOO4 ok', 'credit_card', '55OOOOOOOOOOOOO4', '5500000000000004'],
    ['my SSN is O78-O5-ll2O ok', 'us_ssn', 'O78-O5-ll2O', '078051120'],
    ['server ip 8l.2.69.l6O ok', 'ip_address', '8l.2.69.l6O', '81.2.69.160'],
    ['date of birth l985-O3-O4 ok', 'date', 'l985-O3-O4', '1985-03-04'],
    ['passport number 9l28O3456 ok', 'us_passport', '9l28O3456', '912803456'],
    ['CPF l23.456.789-O9 ok', 'br_cpf', 'l23.456.789-O9', '12345678909'],
    // Other look-alike sets, folded to the ASCII letters first: Greek omicron, mathematical bold,
    // full-width, the small roman numeral ⅼ.
    ['my SSN is Ο78-Ο5-ll2Ο ok', 'us_ssn', 'Ο78-Ο5-ll2Ο', '078051120'],
    ['my SSN is 𝐎78-𝐎5-𝐥𝐥2𝐎 ok', 'us_ssn', '𝐎78-𝐎5-𝐥𝐥2𝐎', '078051120'],
    ['my card is ４ｌｌｌ ｌｌｌｌ ｌｌｌｌ ｌｌｌｌ ok', 'credit_card', '４ｌｌｌ ｌｌｌｌ ｌｌｌｌ ｌｌｌｌ', '4111111111111111'],
    ['my card is 4ⅼⅼⅼ ⅼⅼⅼⅼ ⅼⅼⅼⅼ ⅼⅼⅼⅼ ok', 'credit_card', '4ⅼⅼⅼ ⅼⅼⅼⅼ ⅼⅼⅼⅼ ⅼⅼⅼⅼ', '4111111111111111'],
    ['born on l98O-l2-O9', 'date', 'l98O-l2-O9', '1980-12-09'],
  ])('%s', (text, type, value, canonical) => {
    expect(found(text)).toContain(`${type}[${value}]`);
    expect(normalizeValue(type, value, 'US')).toBe(canonical);
  });
});

describe('look-alike letters without the value word, or without a digit, stay letters', () => {
  it.each([
    'lol lol 1 lOl lOOl SOLO BOB',
    'SSN: lOl lO1 lOOl',
    'the code 4lll llll llll llll is printed on the box',
    'version l985-O3-O4 of the file',
    'build 8l.2.69.l6O passed',
    'ref 9l28O3456',
    // An id's own check letter is no digit (data/hard-negatives.jsonl).
    'Por favor, revise el expediente: NIF 71854089I.',
    'DNI 1234567l',
  ])('%s', (text) => {
    expect(found(text)).toEqual([]);
  });
});

describe('an Ethereum address with look-alike letters, on its word (lookalike-wallet.ts)', () => {
  it.each([
    ['wallet Ox529O84OOO98527886EOF7O3OO69857D2E4l69EE7 ok', 'Ox529O84OOO98527886EOF7O3OO69857D2E4l69EE7'],
    ['wallet Οx529Ο84ΟΟΟ98527886EΟF7Ο3ΟΟ69857D2E4l69EE7 ok', 'Οx529Ο84ΟΟΟ98527886EΟF7Ο3ΟΟ69857D2E4l69EE7'],
    ['send to Ｏx529Ｏ84ＯＯＯ98527886EＯF7Ｏ3ＯＯ69857D2E4ｌ69EE7', 'Ｏx529Ｏ84ＯＯＯ98527886EＯF7Ｏ3ＯＯ69857D2E4ｌ69EE7'],
  ])('%s', (text, value) => {
    expect(found(text)).toContain(`crypto_wallet[${value}]`);
    expect(normalizeValue('crypto_wallet', value, 'US')).toBe('0x52908400098527886E0F7030069857D2E4169EE7');
  });

  it.each(['hash Ox529O84OOO98527886EOF7O3OO69857D2E4l69EE7', 'wallet Ox529O84OOO98527886EOF7O3OO69857D2E4l69EE', 'wallet 0xdeadbeef'])('%s stays as written', (text) => {
    expect(found(text)).toEqual([]);
  });
});
