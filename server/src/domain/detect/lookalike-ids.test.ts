// National ids with letters of their own and look-alike letters for digits (session 16,
// wave15/evade; lookalike-ids.ts): read with the look-alikes as digits outside the id's own letter
// places, kept on the id's detector (its check letter, its prefix rules) and the id's word.
import { describe, expect, it } from 'vitest';
import { found, only } from '../../../test/support/detections.js';
import { lookalikeIdMayStart } from './lookalike-ids.js';

describe('ids with look-alike digits read on their word', () => {
  it.each([
    ['my NI number is ABl23456C ok', 'uk_nino', 'ABl23456C'],
    ['my NI number is ABI23456C ok', 'uk_nino', 'ABI23456C'],
    ['NINO: AB12345OC.', 'uk_nino', 'AB12345OC'],
    ['DNI l2345678Z ok', 'es_dni', 'l2345678Z'],
    ['DNI I2345678Z ok', 'es_dni', 'I2345678Z'],
  ])('%j', (text, type, value) => {
    expect(only(text, type).value).toBe(value);
  });
});

describe('look-alike words that are no id stay as written', () => {
  it.each([
    // No id word before the word.
    'ref ABl23456C ok',
    'order l2345678Z shipped',
    // A check letter that fails (the DNI's letter), and a look-alike last: the id's own letter.
    'DNI l2345678A ok',
    'NIF 71854089I.',
    // Words of letters, versions, hashes.
    'my NI number is ABlOlOlOC',
    'DNI v1.2.3 and build l2O3',
  ])('%j', (text) => {
    expect(found(text).filter(([type]) => type === 'uk_nino' || type === 'es_dni' || type === 'pt_nif')).toEqual([]);
  });
});

describe('lookalikeIdMayStart', () => {
  it.each([
    ['ABl23456C', true],
    ['ABI23456C', true],
    ['AB123456C', false],
    ['ABOUT', false],
    ['HELLOWORLD', false],
    ['ABCDEFGHl', false],
  ])('%j', (word, expected) => {
    expect(lookalikeIdMayStart(word, 0, word.length)).toBe(expected);
  });
});
