// Evasion round 8 (session 18, wave17/evade), against the real `veil serve` process: passwords
// broken over a line (server/src/domain/detect/broken-secret.ts), grouped numbers whose groups are
// written wholly in Cyrillic or Greek look-alikes (server/src/domain/text/fold.ts), and ids with two
// or more look-alikes in a row after their letter prefix (server/src/domain/detect/lookalike-ids.ts),
// and a CPF written one digit at a time (server/src/domain/detect/loose-cpf.ts).
// Each spelling is tokenized whole as text, JSON and chat, restored as written, and erased with the
// plain value (server/src/domain/token/normalize.ts reads each spelling as the plain value).
import { describeSpellings, type SpellingCase } from './support/spellings.js';

const SECRET = '18'.repeat(32);
/** A value that is never revoked: it must still restore next to the erased one. */
const WITNESS = 'witness.evade18@example.org';

const CASES: readonly SpellingCase[] = [
  {
    name: 'password after its word broken over a line, bare, CRLF or indented',
    type: 'password',
    label: 'my password is',
    plain: 'Tr0ub4dor&3x',
    spellings: ['Tr0ub4\ndor&3x', 'Tr0ub4\r\ndor&3x', 'Tr0ub4\n    dor&3x'],
    fragments: ['dor&3x', 'Tr0ub4'],
  },
  {
    name: 'password of a key: value pair broken over a line',
    type: 'password',
    label: 'password:',
    plain: 'Hunter2!Blue',
    spellings: ['Hunter\n2!Blue', 'Hunter\n\t2!Blue', 'Hunter2\\\n  !Blue'],
    fragments: ['Blue', 'Hunter'],
  },
  {
    name: 'password that says it goes on (a hyphen before the break)',
    type: 'password',
    label: 'PASSWORD=',
    plain: 'hunter2-continued',
    spellings: ['hunter2-\n  continued'],
    fragments: ['hunter2', 'continued'],
  },
  {
    name: 'IBAN whose groups are written wholly in Greek or Cyrillic look-alikes',
    type: 'iban',
    label: 'IBAN',
    plain: 'DE89 3704 0044 0532 0130 00',
    spellings: ['DE89 37Ο4 ΟΟ44 Ο532 Οl3Ο ΟΟ', 'DE89 37О4 ОО44 О532 Оl3О ОО'],
    fragments: ['DE89', '44', '532'],
  },
  {
    name: 'card whose middle groups are written wholly in Greek look-alikes',
    type: 'credit_card',
    label: 'my card is',
    plain: '4111 1111 1111 1111',
    spellings: ['4111 ΙΙΙΙ ΙΙΙΙ 1111'],
    fragments: ['4111', 'ΙΙΙΙ'],
  },
  {
    name: 'Spanish NIE with two or three look-alikes after its letter',
    type: 'es_nie',
    label: 'NIE',
    plain: 'X1134567T',
    spellings: ['Xll34567T', 'XlI34567T', 'XIl34567T'],
    fragments: ['34567'],
  },
  {
    name: 'Spanish DNI opened by two look-alikes',
    type: 'es_dni',
    label: 'DNI',
    plain: '11345678P',
    spellings: ['ll345678P', 'lI345678P'],
    fragments: ['345678'],
  },
  {
    name: 'Brazilian CPF written one digit at a time',
    type: 'br_cpf',
    label: 'CPF',
    plain: '123.456.789-09',
    spellings: ['1-2-3-4-5-6-7-8-9-0-9', '1.2.3.4.5.6.7.8.9.0.9'],
    fragments: ['1-2-3-4', '1.2.3.4', '8-9-0-9', '8.9.0.9'],
  },
];

describeSpellings('session-18 spellings against the real server', {
  secret: SECRET,
  witness: WITNESS,
  cases: CASES,
  restoresAsWritten: true,
  untouched: {
    name: 'leaves the next line of a config or of prose after a password, and Greek and Russian words after numbers, as they are',
    input: 'the password field\nThanks,\nBob; το 2024 ΟΧΙ ΟΙ; в 1985 году ОО; ref Xll34567T ok',
  },
});
