// Evasion round 5 (session 15, wave14/evade), against the real `veil serve` process: a Bitcoin
// base58 address with `l` or `I` for its `1`s (server/src/domain/detect/lookalike-base58.ts: the
// checksum decides) and IP and MAC addresses with look-alike letters in their hex groups, a group
// of Greek or Cyrillic letters alone included (server/src/domain/detect/lookalike-hex.ts: on the
// address's word). Each spelling is tokenized through /v1/transform as text, as a JSON body and as
// a chat body with no fragment of the value left in the safe text; restore gives back the text as
// written; revoking the plain value makes every spelling restore `[DELETED]` while another value of
// the same session still restores; and no value, in any spelling, reaches the server's logs.
import { describeSpellings, type SpellingCase } from './support/spellings.js';

const SECRET = '4f'.repeat(32);
/** A value that is never revoked: it must still restore next to the erased one. */
const WITNESS = 'witness.evade15@example.org';

const CASES: readonly SpellingCase[] = [
  {
    name: 'Bitcoin address with l or I for its ones',
    type: 'crypto_wallet',
    label: 'send to',
    plain: '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
    spellings: ['3J98tlWpEZ73CNmQviecrnyiWrnqRhWNLy', '3J98tIWpEZ73CNmQviecrnyiWrnqRhWNLy', '3J98tｌWpEZ73CNmQviecrnyiWrnqRhWNLy'],
    fragments: ['WpEZ73', 'RhWNLy'],
  },
  {
    name: 'IPv6 address with look-alike letters in its groups',
    type: 'ip_address',
    label: 'server ip',
    plain: '2a00:1450:4001:82a::2011',
    spellings: ['2aOO:l45O:4OOl:82a::2Oll', '2aoo:I45o:4ooI:82a::2oII', '2aΟΟ:l45Ο:4ΟΟl:82a::2Οll'],
    fragments: ['l45', '82a', '45О', '45Ο'],
  },
  {
    name: 'MAC address with look-alike letters, a Cyrillic group alone',
    type: 'mac_address',
    label: 'mac address',
    plain: '00:1A:2B:3C:4D:61',
    spellings: ['OO:lA:2B:3C:4D:6l', 'ОО:lA:2B:3C:4D:6l'],
    fragments: ['2B:3C', '4D:6'],
  },
];

describeSpellings('session-15 spellings against the real server', {
  secret: SECRET,
  witness: WITNESS,
  cases: CASES,
  restoresAsWritten: true,
  untouched: {
    name: 'leaves hex runs with look-alikes and no address word, and look-alike words failing the checksum, as they are',
    input: 'build 2aOO:l45O:4OOl:82a::2OOe passed; checksum OO:lA:2B:3C:4D:5E; times lO:3O:OO:l5; send to lBoatSLRHtKNngkdXEeobR76b53LETtpyU',
  },
});
