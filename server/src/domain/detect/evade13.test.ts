// Values and sentences written backwards (session 13, wave12/evade; reversed-words.ts): a value's
// word written backwards after the value ("0211-50-870 si NSS ym"), a value's prefix written
// backwards at the end of the value ("…QAIKA", "…_phg", "…x0"), an IBAN whose country code and
// check digits end it reversed. Each is found over its whole span, marked `reading: 'reversed'`,
// and tokenized under its forward value (one token with it; the entry's wholes hold it, so revoking
// the forward value erases the spelling); prose that ends words alike is left alone.
import { parsePolicy } from '@veil/common';
import { describe, expect, it } from 'vitest';
import { CompiledPolicy } from '../policy/index.js';
import { tokenizeText } from '../tokenize.js';
import { TokenAllocator } from '../token/allocator.js';
import { normalizeValue } from '../token/normalize.js';
import type { Detection } from '../types.js';
import { detectAll } from './index.js';
import { reversedIbanAt, reversedWordAt, reverseText, REVERSED_PREFIX, REVERSED_WORD } from './reversed-words.js';
import { found } from '../../../test/support/detections.js';

/** The one detection of `type` in `text`: its value, whether it is marked reversed, its forward canonical form. */
function reversedOnly(text: string, type: string): { value: string; reversed: boolean; canonical: string } {
  const hits = detectAll(text).filter((d) => d.confidence >= 0.5 && d.type === type);
  expect(hits, text).toHaveLength(1);
  const hit = hits[0]!;
  expect(text.slice(hit.start, hit.end)).toBe(hit.value);
  return { value: hit.value, reversed: hit.reading === 'reversed', canonical: normalizeValue(type, reverseText(hit.value), 'US') };
}

describe('a sentence written backwards (the value word after the value)', () => {
  it.each([
    // The matrix's spellings (tools/evade-matrix/matrix.mjs, reversed-sentence).
    ['read backwards: 0211-50-870 si NSS ym', 'us_ssn', '0211-50-870', '078051120'],
    ['read backwards: 1111 1111 1111 1114 si drac ym', 'credit_card', '1111 1111 1111 1114', '4111111111111111'],
    ['read backwards: 00 0310 2350 4400 4073 98ED NABI', 'iban', '00 0310 2350 4400 4073 98ED', 'DE89370400440532013000'],
    ['read backwards: 2410-555 )514( si rebmun enohp ym', 'phone', '2410-555 )514(', '+14155550142'],
    ['read backwards: x3&rod4bu0rT si drowssap ym', 'password', 'x3&rod4bu0rT', 'Tr0ub4dor&3x'],
    ['read backwards: 40-30-5891 htrib fo etad', 'date', '40-30-5891', '1985-03-04'],
    ['read backwards: E5:D4:C3:B2:A1:00 sserdda cam', 'mac_address', 'E5:D4:C3:B2:A1:00', '001a2b3c4d5e'],
    ['read backwards: elpmaxe.proc@eod.enaj ta em liame', 'email', 'elpmaxe.proc@eod.enaj', 'jane.doe@corp.example'],
    // Spellings of this session's own: a label with a colon, other words, no lead-in.
    ['0211-50-870 :NSS', 'us_ssn', '0211-50-870', '078051120'],
    ['0211-50-870 :rebmun ytiruces laicos', 'us_ssn', '0211-50-870', '078051120'],
    ['2410-555-514 :enohp', 'phone', '2410-555-514', '+14155550142'],
    ['2410 555 514 1+ :nofeleT', 'phone', '2410 555 514 1+', '+14155550142'],
    ['moc.elpmaxe@eod.enaj :liame ym', 'email', 'moc.elpmaxe@eod.enaj', 'jane.doe@example.com'],
    ['eulB!2retnuH :drowssap', 'password', 'eulB!2retnuH', 'Hunter2!Blue'],
  ])('%s', (text, type, value, canonical) => {
    expect(reversedOnly(text, type)).toEqual({ value, reversed: true, canonical });
  });
});

describe('a value written backwards after its word (its prefix at the end)', () => {
  it.each([
    ['aws key K2LPM4ZXV7TRGE3QAIKA', 'api_key', 'K2LPM4ZXV7TRGE3QAIKA', 'AKIAQ3EGRT7VXZ4MPL2K'],
    ['token u9Ea2Gs0Fd5Jh1By6Tc3Zw8Ln4Vx9Qp2Km7R_phg', 'api_key', 'u9Ea2Gs0Fd5Jh1By6Tc3Zw8Ln4Vx9Qp2Km7R_phg', 'ghp_R7mK2pQ9xV4nL8wZ3cT6yB1hJ5dF0sG2aE9u'],
    ['key aG0sF5dJ1yH6nW3cZ8pK4bV9tR2mL7qX-jorp-ks', 'api_key', 'aG0sF5dJ1yH6nW3cZ8pK4bV9tR2mL7qX-jorp-ks', 'sk-proj-Xq7Lm2Rt9Vb4Kp8Zc3Wn6Hy1Jd5Fs0Ga'],
    ['slack sF5dJ1yH6nW3cZ8pK4bV9tR-2144902188-4190537142-bxox', 'api_key', 'sF5dJ1yH6nW3cZ8pK4bV9tR-2144902188-4190537142-bxox', 'xoxb-2417350914-8812094412-Rt9Vb4Kp8Zc3Wn6Hy1Jd5Fs'],
    ['send to TyptTEL35b67RboeEXdkgnNKtHRLStaoB1', 'crypto_wallet', 'TyptTEL35b67RboeEXdkgnNKtHRLStaoB1', '1BoatSLRHtKNngkdXEeobR76b53LETtpyT'],
    ['IBAN 00 0310 2350 4400 4073 98ED', 'iban', '00 0310 2350 4400 4073 98ED', 'DE89370400440532013000'],
    ['IBAN: 23 4567 8965 4321 TSEW 28BG, thanks', 'iban', '23 4567 8965 4321 TSEW 28BG', 'GB82WEST12345698765432'],
    // Of this session's own: a key in quotes, a reversed key with no word before it.
    ['AWS_ACCESS_KEY_ID="K2LPM4ZXV7TRGE3QAIKA"', 'api_key', 'K2LPM4ZXV7TRGE3QAIKA', 'AKIAQ3EGRT7VXZ4MPL2K'],
    ['here: sF5dJ1yH6nW3cZ8pK4bV9tR-2144902188-4190537142-bxox', 'api_key', 'sF5dJ1yH6nW3cZ8pK4bV9tR-2144902188-4190537142-bxox', 'xoxb-2417350914-8812094412-Rt9Vb4Kp8Zc3Wn6Hy1Jd5Fs'],
  ])('%s', (text, type, value, canonical) => {
    expect(reversedOnly(text, type)).toEqual({ value, reversed: true, canonical });
  });

  it('keeps a value that is written forwards as it was', () => {
    for (const [text, type] of [
      ['aws key AKIAQ3EGRT7VXZ4MPL2K', 'api_key'],
      ['IBAN DE89 3704 0044 0532 0130 00', 'iban'],
      ['my SSN is 078-05-1120', 'us_ssn'],
      ['email me at jane.doe@corp.example', 'email'],
    ] as const) {
      const hits = detectAll(text).filter((d) => d.type === type);
      expect(hits, text).toHaveLength(1);
      expect(hits[0]!.reading, text).toBeUndefined();
    }
  });
});

describe('prose whose words end like a value word backwards', () => {
  it('is read as before', () => {
    for (const text of [
      'William sent the turkey to the API team; kind regards, IND; pi is 3.14159265; bd; figures and measures',
      'The webcam res is fine, let the outlet handle it; sap flows in spring; the ssap build.',
      'model A4 12CD and 2024 98ED are shelf codes',
      'IBAN 00 0310 2350 4400 4073 99ED', // a reversed IBAN whose forward form fails mod 97
      'ks -ks sk: the sk- prefix',
      'read backwards: 1111 1111 1111 1112 si drac ym', // Luhn fails both ways
    ]) {
      expect(found(text), text).toEqual([]);
    }
  });

  it('tests word ends with the pair table', () => {
    const at = (word: string): number => reversedWordAt(` ${word} `, 1, 1 + word.length);
    expect(at('NSS')).toBe(REVERSED_WORD);
    expect(at('enohp')).toBe(REVERSED_WORD);
    expect(at('drowssap')).toBe(REVERSED_WORD);
    expect(at('ind')).toBe(REVERSED_WORD); // a whole word only
    expect(at('kind')).toBe(0);
    expect(at('William')).toBe(0);
    expect(at('figures')).toBe(0);
    expect(at('K2LPM4ZXV7TRGE3QAIKA')).toBe(REVERSED_PREFIX);
    expect(at('AIKA')).toBe(0); // a prefix needs the value's length
    expect(reversedIbanAt('98ED', 0, 4)).toBe(true);
    expect(reversedIbanAt('DE89', 0, 4)).toBe(false);
  });

  it('reverses by code point', () => {
    expect(reverseText('a😀b')).toBe('b😀a');
    expect(reverseText('0211-50-870')).toBe('078-05-1120');
  });
});

describe('tokenization of a value written backwards', () => {
  const policy = new CompiledPolicy(parsePolicy('name: all\nversion: "1"\nrules:\n  - {name: rest, match: {}, action: tokenize, restore_mode: full}\n', 'all.yaml').policy!);
  const tokenize = (text: string, allocator = new TokenAllocator()) =>
    tokenizeText({ text, detections: detectAll(text).filter((d: Detection) => d.confidence >= 0.5), policy, context: {}, allocator });

  it('records the text as written and the forward value in the entry wholes', () => {
    const result = tokenize('read backwards: 0211-50-870 si NSS ym');
    expect(result.newEntries).toHaveLength(1);
    expect(result.newEntries[0]).toMatchObject({ type: 'us_ssn', value: '0211-50-870', wholes: ['078-05-1120'] });
  });

  it('gives the forward and the reversed spelling one token', () => {
    const result = tokenize('my SSN is 078-05-1120; read backwards: 0211-50-870 si NSS ym');
    expect(result.newEntries).toHaveLength(1);
    expect(result.entities.map((entity) => entity.token)).toHaveLength(2);
    expect(new Set(result.entities.map((entity) => entity.token)).size).toBe(1);
  });
});

describe('an SSN, a phone or a national id broken by one line break (broken-lines.ts)', () => {
  it.each([
    // The matrix's spellings (newline-mid, crlf-mid).
    ['my SSN is 078-0\n5-1120', 'us_ssn', '078-0\n5-1120', '078051120'],
    ['my SSN is 078-0\r\n5-1120', 'us_ssn', '078-0\r\n5-1120', '078051120'],
    ['call me at +1 415 \n555 0142', 'phone', '+1 415 \n555 0142', '+14155550142'],
    ['my phone number is (415) 5\n55-0142', 'phone', '(415) 5\n55-0142', '+14155550142'],
    ['ruf mich an unter +49 30 \n90182044', 'phone', '+49 30 \n90182044', '+493090182044'],
    ['appelez-moi au +33 1 42\n 68 53 00', 'phone', '+33 1 42\n 68 53 00', '+33142685300'],
    ['DNI 1234\n5678Z', 'es_dni', '1234\n5678Z', '12345678Z'],
    ['my NI number is AB12\n3456C', 'uk_nino', 'AB12\n3456C', 'AB123456C'],
    ['CPF 123.456\n.789-09', 'br_cpf', '123.456\n.789-09', '12345678909'],
    ['passport number 9128\n03456', 'us_passport', '9128\n03456', '912803456'],
    // Of this session's own: a break at a group's edge, a blank on both sides, a tax word.
    ['SSN:\t078-05-\n1120', 'us_ssn', '078-05-\n1120', '078051120'],
    ['my social security number is 078 05 \n 1120', 'us_ssn', '078 05 \n 1120', '078051120'],
    ['please call +44 20 7946\n0958 after six', 'phone', '+44 20 7946\n0958', '+442079460958'],
  ])('%s', (text, type, value, canonical) => {
    const hits = detectAll(text).filter((d) => d.confidence >= 0.5 && d.type === type);
    expect(hits, text).toHaveLength(1);
    expect(hits[0]!.value).toBe(value);
    expect(normalizeValue(type, value, 'US')).toBe(canonical);
  });

  it('needs the value word, and a first line that ends no value', () => {
    for (const [text, type] of [
      ['ids 078-0\n5-1120', 'us_ssn'], // no SSN word
      ['order 1234\n5678Z', 'es_dni'], // no DNI word
      ['the totals were 415\n555 0142', 'phone'], // no phone word
      ['call me at +1 415 555 0142\n2 items left', 'phone'], // the first line ends the phone
    ] as const) {
      const hits = detectAll(text).filter((d) => d.confidence >= 0.5 && d.type === type);
      expect(hits.every((d) => !d.value.includes('\n')), text).toBe(true);
    }
  });

  it('leaves lines of ordinary numbers as they are', () => {
    for (const text of ['Totals:\n1. 415 apples\n2. 555 pears', 'version 2.4\n5.1 notes', 'page 12\n34 lines', 'call list\n1\n2\n3']) {
      expect(found(text), text).toEqual([]);
    }
  });
});

describe('an IBAN, an IPv6 or a MAC address percent-escaped character by character (text/fold.ts)', () => {
  it.each([
    ['IBAN %47%42%38%32%20%57%45%53%54%20%31%32%33%34%20%35%36%39%38%20%37%36%35%34%20%33%32', 'iban', 'GB82WEST12345698765432'],
    ['server ip %32%61%30%30%3A%31%34%35%30%3A%34%30%30%31%3A%38%32%61%3A%3A%32%30%30%65', 'ip_address', '2a00:1450:4001:82a::200e'],
    ['mac address %30%30%3A%31%41%3A%32%42%3A%33%43%3A%34%44%3A%35%45', 'mac_address', '001a2b3c4d5e'],
    // Of this session's own: lower-case hex, a DE IBAN.
    ['mac %30%30%3a%31%41%3a%32%42%3a%33%43%3a%34%44%3a%35%45', 'mac_address', '001a2b3c4d5e'],
    ['IBAN %44%45%38%39%20%33%37%30%34%20%30%30%34%34%20%30%35%33%32%20%30%31%33%30%20%30%30', 'iban', 'DE89370400440532013000'],
  ])('%s', (text, type, canonical) => {
    const hits = detectAll(text).filter((d) => d.confidence >= 0.5 && d.type === type);
    expect(hits, text).toHaveLength(1);
    expect(normalizeValue(type, hits[0]!.value, 'US')).toBe(canonical);
  });

  it('leaves a blank or a colon between words of a path or prose escaped', () => {
    for (const text of ['see /docs/report%202024%20%41nnex.pdf', 'see page%201%20%41nnex', 'ratio 1%3A%32 then']) expect(found(text), text).toEqual([]);
  });
});
