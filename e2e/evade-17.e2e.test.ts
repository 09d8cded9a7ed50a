// Evasion round 7 (session 17, wave16/evade), against the real `veil serve` process: a one-letter
// look-alike word opening a number after the value's word (`call O 20 7946 0958`,
// server/src/domain/text/lookalike.ts and server/src/domain/detect/lookalike-digits.ts), Greek and
// Cyrillic look-alikes in a word of one script beside a number's digits or an address's `@`
// (`+33 l 42 68 53 ΟΟ`, `оо@corp.example`, server/src/domain/text/fold.ts), and ids whose letter
// before the digits meets a look-alike (`NIE Xl234567L`, `NRIC Sl234567D`,
// server/src/domain/detect/lookalike-ids.ts with server/src/domain/detect/lookalike-id-places.ts).
// A CPF with other separators between its groups (`123/456/789/09`, server/src/domain/detect/loose-cpf.ts).
// Each spelling is tokenized whole as text, JSON and chat, restored as written, and erased with the
// plain value (server/src/domain/token/normalize.ts reads each spelling as the plain value).
import { describeSpellings, type SpellingCase } from './support/spellings.js';

const SECRET = '17'.repeat(32);
/** A value that is never revoked: it must still restore next to the erased one. */
const WITNESS = 'witness.evade17@example.org';

const CASES: readonly SpellingCase[] = [
  {
    name: 'UK national number opened by a one-letter look-alike word after the phone word',
    type: 'phone',
    label: 'call',
    plain: '020 7946 0958',
    spellings: ['O 20 7946 0958', 'o 20 7946 0958'],
    fragments: ['O 20', 'o 20', '7946'],
  },
  {
    name: 'French phone number with a Greek or Cyrillic look-alike group',
    type: 'phone',
    label: 'appelez-moi au',
    plain: '+33 1 42 68 53 00',
    spellings: ['+33 l 42 68 53 ΟΟ', '+33 1 42 68 53 ОО', '+33 1 42 68 53 οο'],
    fragments: ['+33', '42 68 53', 'ΟΟ', 'ОО', 'οο'],
  },
  {
    name: 'e-mail address whose local part is written wholly in Cyrillic look-alikes',
    type: 'email',
    label: 'email me at',
    plain: 'oo@corp.example',
    spellings: ['оо@corp.example', 'οο@corp.example'],
    fragments: ['@corp.example'],
  },
  {
    name: 'Spanish NIE with a look-alike after its letter',
    type: 'es_nie',
    label: 'NIE',
    plain: 'X1234567L',
    spellings: ['Xl234567L', 'XI234567L'],
    fragments: ['234567', 'Xl', 'XI'],
  },
  {
    name: 'Singapore NRIC with a look-alike after its letter',
    type: 'sg_nric',
    label: 'my NRIC is',
    plain: 'S1234567D',
    spellings: ['Sl234567D', 'SI234567D'],
    fragments: ['234567', 'Sl', 'SI'],
  },
  {
    name: 'Brazilian CPF with other separators between its groups',
    type: 'br_cpf',
    label: 'CPF',
    plain: '123.456.789-09',
    spellings: ['123/456/789/09', '123_456_789_09', "123'456'789'09", '123 | 456 | 789 | 09', '123.456.789.09'],
    fragments: ['123', '456', '789'],
  },
];

describeSpellings('session-17 spellings against the real server', {
  secret: SECRET,
  witness: WITNESS,
  cases: CASES,
  restoresAsWritten: true,
  untouched: {
    name: 'leaves Greek and Russian words by numbers, one-letter words with no value word and look-alike words with no id word as they are',
    input: 'Ο 2024 ήταν καλή, ΟΧΙ 12 φορές; он сказал о 2024 году; billing o 41 and rows O 20 of them; ref Xl234567L ok',
  },
});
