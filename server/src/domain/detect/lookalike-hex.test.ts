// IP and MAC addresses with look-alike letters in their hex groups (session 15, wave14/evade;
// lookalike-hex.ts): read on the address's word, kept when the reading is a valid address, and the
// spelling normalizes to the plain address. Without the word, or without the shape, nothing is read.
import { describe, expect, it } from 'vitest';
import { normalizeValue } from '../token/normalize.js';
import { foundTagged as found } from '../../../test/support/detections.js';

describe('hex addresses with look-alike letters, on the value word', () => {
  it.each([
    ['server ip 2aOO:l45O:4OOl:82a::2OOe ok', 'ip_address', '2aOO:l45O:4OOl:82a::2OOe', '2a00:1450:4001:82a::200e'],
    ['host 2aoo:I45o:4ooI:82a::2ooe ok', 'ip_address', '2aoo:I45o:4ooI:82a::2ooe', '2a00:1450:4001:82a::200e'],
    ['mac address OO:lA:2B:3C:4D:5E ok', 'mac_address', 'OO:lA:2B:3C:4D:5E', '001a2b3c4d5e'],
    ['mac address 00:1A:2B:3C:4D:5E with 5E:Ol', 'mac_address', '00:1A:2B:3C:4D:5E', '001a2b3c4d5e'],
    // A group of Greek or Cyrillic letters alone (the fold leaves a word of one script as written).
    ['mac address ΟΟ:lA:2B:3C:4D:5E ok', 'mac_address', 'ΟΟ:lA:2B:3C:4D:5E', '001a2b3c4d5e'],
    ['server ip 2aОО:l45О:4ООl:82a::2ООe ok', 'ip_address', '2aОО:l45О:4ООl:82a::2ООe', '2a00:1450:4001:82a::200e'],
    // Full-width letters fold to ASCII first.
    ['server ip ２ａＯＯ:ｌ４５Ｏ:４ＯＯｌ:８２ａ::２ＯＯｅ ok', 'ip_address', '２ａＯＯ:ｌ４５Ｏ:４ＯＯｌ:８２ａ::２ＯＯｅ', '2a00:1450:4001:82a::200e'],
  ])('%s', (text, type, value, canonical) => {
    expect(found(text)).toContain(`${type}[${value}]`);
    expect(normalizeValue(type, value, 'US')).toBe(canonical);
  });
});

describe('hex runs with look-alikes and no address word, or no address shape, stay as written', () => {
  it.each([
    'build 2aOO:l45O:4OOl:82a::2OOe passed',
    'checksum OO:lA:2B:3C:4D:5E',
    'times lO:3O:OO:l5 and 1O:OO',
    'server ip lol:lol:OOO:all',
    'server host: a:b:c:d Ole:lOl',
    'mac address Ol:OO:lO',
  ])('%s', (text) => {
    expect(found(text).filter((tag) => tag.startsWith('ip_address') || tag.startsWith('mac_address'))).toEqual([]);
  });
});
