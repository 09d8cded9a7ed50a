// Evasion round 6b (session 16, wave15/evade2), against the real `veil serve` process: a phone
// number with a one-letter look-alike group (`+33 l 42 68 53 00`, `+l 4l5 555 Ol42`,
// server/src/domain/text/lookalike.ts), a MAC address with `-` between look-alike groups
// (`0O-1A-2B-3C-4D-5E`, server/src/domain/detect/lookalike-hex.ts), and look-alikes in the middle
// of a digit word whose own check passes (a card's Luhn sum, a DNI's letter). Each spelling is
// tokenized whole as text, JSON and chat, restored as written, and erased with the plain value
// (server/src/domain/token/normalize.ts reads each spelling as the plain value).
import { describeSpellings, type SpellingCase } from './support/spellings.js';

const SECRET = '6b'.repeat(32);
/** A value that is never revoked: it must still restore next to the erased one. */
const WITNESS = 'witness.evade16b@example.org';

const CASES: readonly SpellingCase[] = [
  {
    name: 'French phone number with a one-letter look-alike group after the country code',
    type: 'phone',
    label: 'appelez-moi au',
    plain: '+33 1 42 68 53 00',
    spellings: ['+33 l 42 68 53 OO', '+33 I 42 68 53 oo', '+33 l 42 68 53 00'],
    fragments: ['+33 l', '+33 I', '42 68 53'],
  },
  {
    name: 'US phone number with a look-alike country code after the plus',
    type: 'phone',
    label: 'call me at',
    plain: '+1 415 555 0142',
    spellings: ['+l 4l5 555 Ol42', '+I 4I5 555 oI42', '+l 415 555 0142'],
    fragments: ['+l', '+I', '555'],
  },
  {
    name: 'MAC address with look-alike groups joined by hyphens',
    type: 'mac_address',
    label: 'mac address',
    plain: '00:1A:2B:3C:4D:5E',
    spellings: ['0O-1A-2B-3C-4D-5E', 'OO-lA-2B-3C-4D-5E'],
    fragments: ['0O-1A', 'OO-lA', '2B-3C-4D'],
  },
  {
    name: 'card number with a look-alike in the middle of its digit word',
    type: 'credit_card',
    label: 'my card is',
    plain: '4111 1111 1111 1111',
    spellings: ['4111111l11111111', '41111111lI111111'],
    fragments: ['4111111', '11111111'],
  },
  {
    name: 'Spanish DNI with look-alikes in the middle of its digit word',
    type: 'es_dni',
    label: 'DNI',
    plain: '12345101N',
    spellings: ['1234510lN', '12345lO1N'],
    fragments: ['12345', '0lN', 'O1N'],
  },
];

describeSpellings('session-16b spellings against the real server', {
  secret: SECRET,
  witness: WITNESS,
  cases: CASES,
  restoresAsWritten: true,
  untouched: {
    name: 'leaves one-letter words by numbers, hyphenated hex words with no MAC word, and failing checks as they are',
    input:
      'I 42 68 53 and O 20 of them; build 0O-1A-2B-3C-4D-5E passed; part OO-lA-2B-3C-4D-5E-6F; ref 1234567lZ; total 4111111l11111112 ok',
  },
});
