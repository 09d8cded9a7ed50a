// The output guard's labelled values (domain/guard/labelled.ts) with the label pre-test (issue
// 20): skipping the password and secret regexes when an all-ASCII text contains none of their
// label stems must find exactly what running every regex finds, on any text: every label word in
// any casing, the letters that case-fold across ASCII (Kelvin sign, long s), and non-ASCII text.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { labelledValues, labelledValuesUnscreened } from './labelled.js';

/** Every label word of the PASSWORD and SECRET_WORD regexes, and verbs and separators around them. */
const LABELS = [
  'password', 'passwort', 'kennwort', 'passcode', 'passphrase', 'mot de passe', 'contraseña', 'contrasena', 'senha', 'wachtwoord',
  'hasło', 'lösenord', 'adgangskode', 'salasana', 'token', 'key', 'secret', 'credential', 'credentials', 'bearer', 'api key',
  'apikey', 'access key', 'schlüssel', 'clé', 'clave', 'chiave',
];
const GLUE = [' is ', ' was ', ': ', '=', ' ', ' lautet ', ' est ', '\n', ', ', ' the ', ' my ', ' call +44 20 7946 0958 '];
const VALUES = ['Rp34s!BGt4AZ', 'hunter2x!', 'aB3dE6gH9jK2mN5pQ8rS1tV4wX7z', 'sk_live_51HbQ2eKZ3vR8yT6uW9xA0bC', 'incorrect', '12345678', 'ghp_Zx81Qw93Er57Ty'];
/** Letters that case-fold with ASCII ones under /iu (Kelvin sign, long s), and other non-ASCII text. */
const ODD = ['\u212a', '\u017f', 'é', 'ł', 'ö', '１２３', '–', 'İ', '\u00a0'];

/** A word in a random casing. */
const cased = (word: string) =>
  fc.array(fc.boolean(), { minLength: word.length, maxLength: word.length }).map((upper) => [...word].map((ch, index) => (upper[index] === true ? ch.toUpperCase() : ch)).join(''));

const piece = fc.oneof(
  fc.constantFrom(...LABELS).chain(cased),
  fc.constantFrom(...GLUE),
  fc.constantFrom(...VALUES),
  fc.constantFrom(...ODD),
  fc.string({ maxLength: 6 }),
);

/** A label word with one letter swapped for a letter that case-folds with it (k → Kelvin sign, s → long s). */
function folded(word: string): string {
  return word.replace('k', '\u212a').replace('s', '\u017f');
}

describe('labelledValues', () => {
  it('finds what every regex finds on any text (label pre-test)', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 24 }), (pieces) => {
        const text = pieces.join('');
        expect(labelledValues(text)).toEqual(labelledValuesUnscreened(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('finds a password or secret after each ASCII label word, however cased', () => {
    for (const label of LABELS.filter((word) => /^[\x20-\x7e]+$/.test(word))) {
      for (const form of [label, label.toUpperCase(), label[0]!.toUpperCase() + label.slice(1)]) {
        const text = `Here it is: the ${form} is aB3dE6gH9jK2mN5pQ8rS1tV4wX7z, keep it safe.`;
        const expected = labelledValuesUnscreened(text);
        expect(expected.length, text).toBeGreaterThan(0);
        expect(labelledValues(text), text).toEqual(expected);
      }
    }
  });

  it('runs the regexes on text with letters that fold into ASCII ones', () => {
    for (const label of ['token', 'key', 'passcode', 'secret']) {
      const text = `${folded(label)}: aB3dE6gH9jK2mN5pQ8rS1tV4wX7z`;
      expect(labelledValues(text), text).toEqual(labelledValuesUnscreened(text));
    }
  });

  it('finds nothing labelled in text without a label word', () => {
    const text = 'The quick brown fox replies to every billing question politely. Ticket 4 is closed.';
    expect(labelledValues(text)).toEqual([]);
    expect(labelledValuesUnscreened(text)).toEqual([]);
  });
});
