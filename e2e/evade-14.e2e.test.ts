// Evasion round 4 (session 14, wave13/evade), against the real `veil serve` process: values split
// by markup that renders as nothing (server/src/domain/detect/markup-joined.ts: HTML tags, comments,
// BBCode, markdown emphasis, code marks and links, concatenated literals) and numbers written with
// look-alike letters on the value's word (server/src/domain/detect/lookalike-worded.ts), and values
// with their punctuation quoted-printable escaped (server/src/domain/detect/qp-joined.ts). Each spelling is
// tokenized through /v1/transform as text, as a JSON body and as a chat body with no fragment of
// the value left in the safe text; restore gives back the text as written; revoking the plain
// value makes every spelling restore `[DELETED]` while another value of the same session still
// restores; and no value, in any spelling, reaches the server's logs.
import { describeSpellings, type SpellingCase } from './support/spellings.js';

const SECRET = '4e'.repeat(32);
/** A value that is never revoked: it must still restore next to the erased one. */
const WITNESS = 'witness.evade14@example.org';

const CASES: readonly SpellingCase[] = [
  // Markup inside the value (markup-joined.ts).
  {
    name: 'DNI split by a tag, BBCode or a string concatenation',
    type: 'es_dni',
    label: 'DNI',
    plain: '87654321X',
    spellings: ['8765<b></b>4321X', '8765[b][/b]4321X', '"8765" + "4321X"'],
    fragments: ['8765', '4321'],
  },
  {
    name: 'passport number split by markdown marks or a tag with attributes',
    type: 'us_passport',
    label: 'passport number',
    plain: '912803457',
    spellings: ['**9128**03457', '9128`03457`', '9128<span class="x">03457</span>', '9128~~03457~~'],
    fragments: ['9128', '3457'],
  },
  {
    name: 'MAC address split by a tag beside its colon',
    type: 'mac_address',
    label: 'mac address',
    plain: '00:1A:2B:3C:4D:60',
    spellings: ['00:1A:2B<b></b>:3C:4D:60', '<span>00:1A:2B</span><span>:3C:4D:60</span>'],
    fragments: ['1A:2B', '4D:60'],
  },
  {
    name: 'IPv6 address split by a tag or bold marks',
    type: 'ip_address',
    label: 'server ip',
    plain: '2a00:1450:4001:82a::200f',
    spellings: ['2a00:1450:40<b></b>01:82a::200f', '2a00:1450:40**01:82a::200f'],
    fragments: ['1450', '82a'],
  },
  {
    name: 'password split by tags',
    type: 'password',
    label: 'my password is',
    plain: 'Tr0ub4dor&3y',
    spellings: ['<span>Tr0ub4</span><span>dor&3y</span>'],
    fragments: ['Tr0ub4', 'dor&3y'],
  },
  {
    name: 'card split by a markdown link',
    type: 'credit_card',
    label: 'card',
    plain: '4111 1111 1111 1111',
    spellings: ['[41](x)11 1111 1111 1111', '[4111 1111](https://x.example) 1111 1111'],
    fragments: ['4111', '1111'],
  },
  {
    name: 'Slack token split by a tag between two digits',
    type: 'api_key',
    label: 'slack',
    plain: 'xoxb-2417350914-8812094412-Rt9Vb4Kp8Zc3Wn6Hy1Jd5Ft',
    spellings: ['xoxb-2417350914-881209441<b></b>2-Rt9Vb4Kp8Zc3Wn6Hy1Jd5Ft'],
    fragments: ['Rt9Vb4', '881209441'],
  },
  // Look-alike letters in numbers, on the value's word (lookalike-worded.ts).
  {
    name: 'card with more look-alike letters than digits',
    type: 'credit_card',
    label: 'my card is',
    plain: '5500 0000 0000 0004',
    spellings: ['55OO OOOO OOOO OOO4', '55ＯＯ ＯＯＯＯ ＯＯＯＯ ＯＯＯ4'],
    fragments: ['55OO', 'OOO4', 'ＯＯＯ4'],
  },
  {
    name: 'SSN with Latin and Greek look-alike letters',
    type: 'us_ssn',
    label: 'my SSN is',
    plain: '078-05-1120',
    spellings: ['O78-O5-ll2O', 'Ο78-Ο5-ll2Ο'],
    fragments: ['78-', 'll2'],
  },
  {
    name: 'IP address with look-alike letters',
    type: 'ip_address',
    label: 'server ip',
    plain: '81.2.69.160',
    spellings: ['8l.2.69.l6O'],
    fragments: ['8l.2', 'l6O'],
  },
  {
    name: 'date of birth with look-alike letters',
    type: 'date',
    label: 'date of birth',
    plain: '1985-03-04',
    spellings: ['l985-O3-O4'],
    fragments: ['l985', 'O3-O4'],
  },
  {
    name: 'passport number with look-alike letters',
    type: 'us_passport',
    label: 'passport number',
    plain: '912803458',
    spellings: ['9l28O3458'],
    fragments: ['9l28', 'O3458'],
  },
  {
    name: 'Ethereum address with look-alike letters',
    type: 'crypto_wallet',
    label: 'wallet',
    plain: '0x52908400098527886E0F7030069857D2E4169EE8',
    spellings: ['Ox529O84OOO98527886EOF7O3OO69857D2E4l69EE8', 'Οx529Ο84ΟΟΟ98527886EΟF7Ο3ΟΟ69857D2E4l69EE8'],
    fragments: ['529O84', '69EE8', '529Ο84'],
  },
  // Punctuation written as quoted-printable escapes (qp-joined.ts).
  {
    name: 'SSN with its dashes quoted-printable escaped',
    type: 'us_ssn',
    label: 'my SSN is',
    plain: '078-05-1126',
    spellings: ['078=2D05=2D1126', '078=2D05%2D1126', '078=2D05&#45;1126'],
    fragments: ['078', '1126'],
  },
  {
    name: 'phone with its plus and parentheses quoted-printable escaped',
    type: 'phone',
    label: 'call me at',
    plain: '+1 415 555 0143',
    spellings: ['=2B1 415 555 0143', '=2B1 =28415=29 555=2D0143'],
    fragments: ['415', '0143'],
  },
  {
    name: 'MAC address with its colons quoted-printable escaped',
    type: 'mac_address',
    label: 'mac address',
    plain: '00:1A:2B:3C:4D:61',
    spellings: ['00=3A1A=3A2B=3A3C=3A4D=3A61'],
    fragments: ['1A=3A', '4D=3A61'],
  },
  {
    name: 'OpenAI key with its dashes quoted-printable escaped',
    type: 'api_key',
    label: 'key',
    plain: 'sk-proj-Xq7Lm2Rt9Vb4Kp8Zc3Wn6Hy1Jd5Fs0Gb',
    spellings: ['sk=2Dproj=2DXq7Lm2Rt9Vb4Kp8Zc3Wn6Hy1Jd5Fs0Gb'],
    fragments: ['Xq7Lm2', 'Fs0Gb'],
  },
];

describeSpellings('session-14 spellings against the real server', {
  secret: SECRET,
  witness: WITNESS,
  cases: CASES,
  restoresAsWritten: true,
  // Restore gives back the text as written, markup and all.
  untouched: {
    name: 'leaves markup between numbers that prove nothing, and look-alikes without a value word, as they are',
    input: 'Version **2024**:12 and <b>10</b>:30 and **Note**: 123<b>4</b>5 items; ref 9128**03456 closed; see [page 12](x)3; lol lOl SOLO BOB 4lll llll llll llll; width=2D4 id=2D4F ref 078=2D05=2D1120',
  },
});
