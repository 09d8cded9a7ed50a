// Session 17 (wave16/evade): a CPF with other separators between its groups (loose-cpf.ts), kept on
// its word and its check digits, over the text as written, and one value with the plain CPF.
import { describe, expect, it } from 'vitest';
import { normalizeValue } from '../token/normalize.js';
import { foundTagged as found } from '../../../test/support/detections.js';

describe('a CPF with other separators', () => {
  it.each(['123/456/789/09', '123_456_789_09', "123'456'789'09", '123 | 456 | 789 | 09', '123\t456\t789\t09', '123.456.789.09', '123 456 789 09'])('CPF %j', (value) => {
    expect(found(`meu CPF é ${value}, obrigado`)).toContain(`br_cpf[${value}]`);
    expect(normalizeValue('br_cpf', value, 'BR')).toBe(normalizeValue('br_cpf', '123.456.789-09', 'BR'));
  });

  it.each([
    // A failing check digit; no CPF word; groups joined by different separators; a longer run.
    'CPF 123/456/789/08',
    'ref 123/456/789/09',
    'CPF 123/456.789/09',
    'CPF 123/456/789/091',
    'the CPF field, then 2024/123/456/789/09',
  ])('%j stays', (text) => {
    expect(found(text).filter((tag) => tag.startsWith('br_cpf['))).toEqual([]);
  });
});

describe('a CPF written one digit at a time (session 18)', () => {
  it.each(['1-2-3-4-5-6-7-8-9-0-9', '1.2.3.4.5.6.7.8.9.0.9', '1 / 2 / 3 / 4 / 5 / 6 / 7 / 8 / 9 / 0 / 9', '1_2_3_4_5_6_7_8_9_0_9'])('CPF %j', (value) => {
    expect(found(`meu CPF é ${value}, obrigado`)).toContain(`br_cpf[${value}]`);
    expect(normalizeValue('br_cpf', value, 'BR')).toBe(normalizeValue('br_cpf', '123.456.789-09', 'BR'));
  });

  it.each([
    // A failing check digit; no CPF word; two separators; twelve digits.
    'CPF 1-2-3-4-5-6-7-8-9-0-8',
    'ref 1-2-3-4-5-6-7-8-9-0-9',
    'CPF 1-2-3-4-5-6.7-8-9-0-9',
    'CPF 1-2-3-4-5-6-7-8-9-0-9-1',
  ])('%j stays', (text) => {
    expect(found(text).filter((tag) => tag.startsWith('br_cpf['))).toEqual([]);
  });
});
