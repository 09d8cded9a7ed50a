// Evasion round 5b (session 15, wave14/evade2), against the real `veil serve` process: IP, MAC and
// wallet addresses broken by a line break, LF or CRLF, with the next line's indentation or without
// (server/src/domain/detect/broken-addresses.ts: an IP or MAC address on its word, a checksummed
// wallet on its checksum, an Ethereum address on a wallet word); cards and SSNs with `S` for 5 and
// `B` for 8 (server/src/domain/detect/lookalike-sb.ts: a card on its check, an SSN on its word); a
// connection string with quoted-printable escapes after its scheme (server/src/domain/text/qp-connection.ts).
// Each spelling is tokenized through /v1/transform as text, as a JSON body and as a chat body with
// no fragment of the value left in the safe text; restore gives back the text as written; revoking
// the plain value makes every spelling restore `[DELETED]` while another value of the same session
// still restores; and no value, in any spelling, reaches the server's logs.
import { describeSpellings, type SpellingCase } from './support/spellings.js';

const SECRET = '5e'.repeat(32);
/** A value that is never revoked: it must still restore next to the erased one. */
const WITNESS = 'witness.evade15b@example.org';

const CASES: readonly SpellingCase[] = [
  {
    name: 'IPv4 address broken by a line break',
    type: 'ip_address',
    label: 'server ip',
    plain: '81.2.69.160',
    spellings: ['81.2.\n69.160', '81.2.69\r\n.160', '81.2.6\n    9.160'],
    fragments: ['81.2', '69.16', '9.160'],
  },
  {
    name: 'IPv6 address broken by a line break',
    type: 'ip_address',
    label: 'host',
    plain: '2a00:1450:4001:82a::2011',
    spellings: ['2a00:1450:4001\n:82a::2011', '2a00:1450:\r\n  4001:82a::2011'],
    fragments: ['2a00:1450', '82a::2011'],
  },
  {
    name: 'MAC address broken by a line break',
    type: 'mac_address',
    label: 'mac address',
    plain: '00:1A:2B:3C:4D:61',
    spellings: ['00:1A:2B\n:3C:4D:61', '00:1A:2B:\r\n  3C:4D:61'],
    fragments: ['1A:2B', '3C:4D'],
  },
  {
    name: 'bech32 wallet broken by a line break and indentation',
    type: 'crypto_wallet',
    label: 'wallet',
    plain: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
    spellings: ['bc1qar0sr\nrr7xfkvy5l643lydnw9re59gtzzwf5mdq', 'bc1qar0srrr7xfkvy5l64\r\n    3lydnw9re59gtzzwf5mdq'],
    fragments: ['qar0sr', '3lydnw9', 'zwf5mdq'],
  },
  {
    name: 'Ethereum address broken by a line break, on a wallet word',
    type: 'crypto_wallet',
    label: 'send to',
    plain: '0x52908400098527886E0F7030069857D2E4169EE7',
    spellings: ['0x52908400098527886E0\nF7030069857D2E4169EE7', '0x52908400098527886E0\r\n  F7030069857D2E4169EE7'],
    fragments: ['5290840009', '69857D2E41'],
  },
  {
    name: 'card number with S for 5 and B for 8',
    type: 'credit_card',
    label: 'card',
    plain: '5105 1051 0510 5100',
    spellings: ['S10S 10S1 0S10 S100', 'S10S10S10S10S100'],
    fragments: ['S10S', '10S1', '0S10', 'S100'],
  },
  {
    name: 'SSN with S for 5 and B for 8, on its word',
    type: 'us_ssn',
    label: 'my SSN is',
    plain: '078-05-1128',
    spellings: ['078-0S-112B', '07B-05-1128'],
    fragments: ['078', '07B', '0S', '112B', '1128'],
  },
  {
    name: 'connection string with quoted-printable escapes after its scheme',
    type: 'connection_string',
    label: 'db',
    plain: 'postgres://admin:s3cretPw15b@db.example.com:5432/app',
    spellings: ['postgres://admin=3As3cretPw15b=40db.example.com:5432/app', 'postgres:=2F=2Fadmin=3As3cretPw15b=40db.example.com=3A5432=2Fapp'],
    fragments: ['s3cretPw15b', 'db.example'],
  },
];

describeSpellings('session-15b spellings against the real server', {
  secret: SECRET,
  witness: WITNESS,
  cases: CASES,
  restoresAsWritten: true,
  untouched: {
    name: 'leaves line breaks with no address word, and joined runs failing the checksum, as they are',
    input: 'version 81.2.\n69.160 released; build 00:1A:2B\n:3C:4D:5E done; ref bc1qar0sr\nrr7xfkvy5l643lydnw9re59gtzzwf5mdx thanks; at 10:30\nbe there; the BOSS said SOS, B2B up; a 8B model on S3; ref 078-0S-1120',
  },
});
