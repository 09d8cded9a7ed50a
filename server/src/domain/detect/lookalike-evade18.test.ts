// Session 18 (wave17/evade): grouped numbers whose groups are written wholly in Cyrillic or Greek
// look-alikes past other such groups (text/fold.ts, digitGroupWord's walk back: `DE89 37Ο4 ΟΟ44 Ο532
// Οl3Ο ΟΟ`, `4111 ΙΙΙΙ ΙΙΙΙ 1111`), and ids with two or more look-alikes in a row after their letter
// prefix, or first (lookalike-ids.ts, the scan's quiet-word path: `Xll34567T`, `XlIO4567S`,
// `ll345678P`). Each spelling is found over the text as written and normalizes to the plain value
// (one token, one erasure); without the digits or the id's word nothing changes.
import { describe, expect, it } from 'vitest';
import { foldText } from '../text/fold.js';
import { normalizeValue } from '../token/normalize.js';
import { foundTagged as found } from '../../../test/support/detections.js';

describe('look-alike spellings read as the plain value', () => {
  it.each([
    // 1. Whole groups of one script after a group that mixes in ASCII or after other such groups.
    ['IBAN DE89 37Ο4 ΟΟ44 Ο532 Οl3Ο ΟΟ ok', 'iban', 'DE89 37Ο4 ΟΟ44 Ο532 Οl3Ο ΟΟ', 'DE89 3704 0044 0532 0130 00'],
    ['IBAN DE89 37О4 ОО44 О532 Оl3О ОО ok', 'iban', 'DE89 37О4 ОО44 О532 Оl3О ОО', 'DE89 3704 0044 0532 0130 00'],
    ['my card is 4111 ΙΙΙΙ ΙΙΙΙ 1111 ok', 'credit_card', '4111 ΙΙΙΙ ΙΙΙΙ 1111', '4111 1111 1111 1111'],
    ['card number 5500 ΟΟΟΟ ΟΟΟΟ ΟΟΟ4', 'credit_card', '5500 ΟΟΟΟ ΟΟΟΟ ΟΟΟ4', '5500 0000 0000 0004'],
    // 2. Two or three look-alikes in a row after the id's letter, or first.
    ['NIE Xll34567T ok', 'es_nie', 'Xll34567T', 'X1134567T'],
    ['NIE XOO14567P ok', 'es_nie', 'XOO14567P', 'X0014567P'],
    ['NIE XlIO4567S ok', 'es_nie', 'XlIO4567S', 'X1104567S'],
    ['DNI ll345678P ok', 'es_dni', 'll345678P', '11345678P'],
    ['DNI lI345678P ok', 'es_dni', 'lI345678P', '11345678P'],
    ['my NI number is ABll3456C', 'uk_nino', 'ABll3456C', 'AB113456C'],
  ])('%s', (text, type, value, plain) => {
    expect(found(text)).toContain(`${type}[${value}]`);
    expect(normalizeValue(type, value, 'US')).toBe(normalizeValue(type, plain, 'US'));
  });
});

describe('words of one script and look-alike ids with no value stay as written', () => {
  it.each([
    ['ref Xll34567T ok', ['es_nie']],
    ['NIE Xll34567A ok', ['es_nie']],
    ['DNI looking12 ok', ['es_dni']],
  ])('%j', (text, types) => {
    expect(found(text).filter((tag) => types.some((type) => tag.startsWith(`${type}[`)))).toEqual([]);
  });

  it('folds no word of Greek or Russian prose after a number', () => {
    for (const text of [
      'Ο Γιάννης γεννήθηκε το 1985 και ΟΧΙ 2024.',
      'Он сказал: о 2024 году, ОАО 12 и т.д., в 1985 году.',
      'в 1985 году ОО и ОІ',
      'το 2024 ΟΧΙ ΟΙ',
    ]) {
      expect(foldText(text), text).toBe(text);
    }
  });
});
