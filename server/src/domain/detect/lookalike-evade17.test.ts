// Session 17 (wave16/evade): a one-letter look-alike word opening a number after the value's word
// (text/lookalike.ts `opensAt`, lookalike-digits.ts), Greek and Cyrillic look-alikes in a word of
// one script beside a number's digits or an e-mail address's `@` (text/fold.ts, digitGroupWord),
// and ids whose one letter before the digits meets a look-alike (lookalike-ids.ts, the places of
// lookalike-id-places.ts). Each spelling is found over the text as written and normalizes to the
// plain value (one token, one erasure); without the word, the digits or the ASCII beside it, nothing changes.
import { describe, expect, it } from 'vitest';
import { foldText } from '../text/fold.js';
import { normalizeValue } from '../token/normalize.js';
import { foundTagged as found } from '../../../test/support/detections.js';

describe('look-alike spellings read as the plain value', () => {
  it.each([
    // 1. A one-letter look-alike word opening the number, after the value's word.
    ['call O 20 7946 0958 today', 'phone', 'O 20 7946 0958', '020 7946 0958'],
    ['call me on o 20 7946 0958.', 'phone', 'o 20 7946 0958', '020 7946 0958'],
    // 2. Greek and Cyrillic look-alikes in a word of one script.
    ['call me at +33 l 42 68 53 ΟΟ ok', 'phone', '+33 l 42 68 53 ΟΟ', '+33 1 42 68 53 00'],
    ['appelez-moi au +33 1 42 68 53 ОО', 'phone', '+33 1 42 68 53 ОО', '+33 1 42 68 53 00'],
    ['call me at +1 415 555 ΟΙ42', 'phone', '+1 415 555 ΟΙ42', '+1 415 555 0142'],
    ['email me at оо@corp.example ok', 'email', 'оо@corp.example', 'oo@corp.example'],
    ['email me at jane@ѕес.example ok', 'email', 'jane@ѕес.example', 'jane@sec.example'],
    // 3. The id's letter before its digits meets a look-alike.
    ['NIE Xl234567L ok', 'es_nie', 'Xl234567L', 'X1234567L'],
    ['NIE XI234567L ok', 'es_nie', 'XI234567L', 'X1234567L'],
    ['NIE Y12345O7L ok', 'es_nie', 'Y12345O7L', 'Y1234507L'],
    ['my NRIC is Sl234567D', 'sg_nric', 'Sl234567D', 'S1234567D'],
  ])('%s', (text, type, value, plain) => {
    expect(found(text)).toContain(`${type}[${value}]`);
    expect(normalizeValue(type, value, 'US')).toBe(normalizeValue(type, plain, 'US'));
  });
});

describe('words of one script, one-letter words and look-alike ids with no value stay as written', () => {
  it.each([
    // No value word before a one-letter word by a number; a failing card.
    ['billing o 4111 1111 1111 1111 paid', ['phone']],
    ['rows O 20 7946 and I 12', ['phone']],
    // No id word; a check letter that fails; a word of letters.
    ['ref Xl234567L ok', ['es_nie']],
    ['NIE Xl234567A ok', ['es_nie']],
    ['NIE Hollywood1 ok', ['es_nie']],
  ])('%j', (text, types) => {
    expect(found(text).filter((tag) => types.some((type) => tag.startsWith(`${type}[`)))).toEqual([]);
  });

  it('folds no word of Greek or Russian prose, nor a one-script address', () => {
    for (const text of [
      'Ο Γιάννης γεννήθηκε το 1985 και ΟΧΙ 2024.',
      'Он сказал: о 2024 году, ОАО 12 и т.д., в 1985 году.',
      'почта@пример.рф',
      'Ο 2024 ήταν καλή χρονιά, 12 Ο',
    ]) {
      expect(foldText(text), text).toBe(text);
    }
  });
});
