// Unit tests of per-type value normalization (decisions.md section 3).
import { describe, expect, it } from 'vitest';
import { normalizeValue } from './normalize.js';

describe('normalizeValue', () => {
  it('applies NFC and trims for every type', () => {
    expect(normalizeValue('person', '  Jose\u0301 García \n')).toBe('Jos\u00e9 García');
    expect(normalizeValue('custom:ticket', '\tTCK-000123 ')).toBe('TCK-000123');
    // Case is kept for names: it may carry meaning.
    expect(normalizeValue('person', 'McDonald')).toBe('McDonald');
  });

  it('lowercases emails and IP addresses', () => {
    expect(normalizeValue('email', ' Alice.Smith@Example.COM ')).toBe('alice.smith@example.com');
    expect(normalizeValue('ip_address', '2001:DB8::1')).toBe('2001:db8::1');
  });

  it('keeps digits only for cards and SSNs', () => {
    expect(normalizeValue('credit_card', '4111 1111-1111 1111')).toBe('4111111111111111');
    expect(normalizeValue('us_ssn', '123-45-6789')).toBe('123456789');
  });

  it('keeps digits and a leading plus for phones', () => {
    expect(normalizeValue('phone', '+1 (415) 555-0100')).toBe('+14155550100');
    expect(normalizeValue('phone', '(415) 555-0100')).toBe('4155550100');
    expect(normalizeValue('phone', '0044 20 7946 0000')).toBe('00442079460000');
  });

  it('uppercases IBANs and keeps letters and digits only', () => {
    expect(normalizeValue('iban', 'de89 3704 0044 0532 0130 00')).toBe('DE89370400440532013000');
  });

  it('lowercases MAC addresses and keeps hex digits only', () => {
    expect(normalizeValue('mac_address', '00:1A:2B-3C.4D:5E')).toBe('001a2b3c4d5e');
  });

  it('falls back to the trimmed value when stripping would leave nothing', () => {
    expect(normalizeValue('credit_card', ' n/a ')).toBe('n/a');
    expect(normalizeValue('phone', '+')).toBe('+');
    expect(normalizeValue('credit_card', 'n/a')).not.toBe(normalizeValue('credit_card', 'none'));
  });
});
