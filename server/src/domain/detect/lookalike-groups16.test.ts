// Session 16 (wave15/evade2): a one-letter look-alike group in a number (text/lookalike.ts,
// singleAt), a MAC address with `-` between look-alike groups (lookalike-hex.ts), and look-alikes in
// the middle of a digit word whose own check passes. Each is kept on its detector's checks and its
// value word, and normalizes to the plain value; without the word or the check, nothing is read.
import { describe, expect, it } from 'vitest';
import { normalizeValue } from '../token/normalize.js';
import { foundTagged as found } from '../../../test/support/detections.js';

describe('one-letter look-alike groups, hyphenated MAC groups, look-alikes inside digit words', () => {
  it.each([
    ['appelez-moi au +33 l 42 68 53 00 ok', 'phone', '+33 l 42 68 53 00', '+33142685300'],
    ['appelez-moi au +33 I 42 68 53 oo ok', 'phone', '+33 I 42 68 53 oo', '+33142685300'],
    ['call me at +l 4l5 555 Ol42.', 'phone', '+l 4l5 555 Ol42', '+14155550142'],
    ['call me at +I 415 555 0142.', 'phone', '+I 415 555 0142', '+14155550142'],
    ['call me at +44 O 20 7946 0958', 'phone', '+44 O 20 7946 0958', '+442079460958'],
    ['mac 0O-1A-2B-3C-4D-5E ok', 'mac_address', '0O-1A-2B-3C-4D-5E', '001a2b3c4d5e'],
    ['mac address OO-lA-2B-3C-4D-5E.', 'mac_address', 'OO-lA-2B-3C-4D-5E', '001a2b3c4d5e'],
    ['my card is 4111111l11111111', 'credit_card', '4111111l11111111', '4111111111111111'],
    ['DNI 1234510lN ok', 'es_dni', '1234510lN', '12345101N'],
  ])('%s', (text, type, value, canonical) => {
    expect(found(text)).toContain(`${type}[${value}]`);
    expect(normalizeValue(type, value, 'US')).toBe(canonical);
  });
});

describe('one-letter words by numbers and hyphenated hex words with no MAC shape or word stay as written', () => {
  it.each([
    // A one-letter word before or after numbers, with no phone word or no valid reading.
    ['I 42 68 53 00 of them', ['phone']],
    ['rows O 20 7946 and I 12', ['phone']],
    ['call me at 415 555 0142 I said', ['phone[415 555 0142]']],
    // Hyphenated hex words: no MAC word, seven groups, or three-character groups.
    ['build 0O-1A-2B-3C-4D-5E passed', ['mac_address']],
    ['mac OO-lA-2B-3C-4D-5E-6F', ['mac_address']],
    ['mac address OOl-lA-2B-3C-4D-5E', ['mac_address']],
    // A look-alike inside a digit word whose check fails (`1234567lZ` reads 12345671Z, whose letter is F).
    ['DNI 1234567lZ ok', ['es_dni']],
    ['my card is 4111111l11111112', ['credit_card']],
  ])('%s', (text, expected) => {
    const tags = found(text).filter((tag) => /^(?:phone|mac_address|es_dni|credit_card)\[/.test(tag));
    // Either nothing of the listed types, or exactly the plain values listed.
    expect(tags).toEqual(expected.filter((tag) => tag.includes('[')));
  });
});
