// Evasion round 6 (session 16, wave15/evade), against the real `veil serve` process: values broken
// by a line break and the next line's indentation (server/src/domain/detect/broken-indent.ts: a card
// on its Luhn sum, an IBAN on its mod 97, a prefixed key or a JWT on its shape, an SSN, a phone or
// a national id on its word), LF or CRLF. Each spelling is tokenized through /v1/transform as text,
// as a JSON body and as a chat body with no fragment of the value left in the safe text; restore
// gives back the text as written; revoking the plain value makes every spelling restore
// `[DELETED]` while another value of the same session still restores; and no value, in any
// spelling, reaches the server's logs. A connection string whose scheme's `://` is escaped
// (server/src/domain/detect/escaped-scheme.ts) is read the same way, and so are an e-mail address
// and a connection string broken over a line and national ids with look-alike letters for digits
// (server/src/domain/detect/lookalike-ids.ts): their erasure forms are the plain value's
// (server/src/domain/token/normalize.ts, server/src/domain/text/qp-connection.ts; the lead, session 16).
import { describeSpellings, type SpellingCase } from './support/spellings.js';

const SECRET = '6a'.repeat(32);
/** A value that is never revoked: it must still restore next to the erased one. */
const WITNESS = 'witness.evade16@example.org';

const JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxNjE2MTYxNjE2IiwibmFtZSI6IkphbmUgRG9lIn0.Q7rK2pX9vV4nL8wZ3cT6yB1hJ5dF0sG2aE9uMm4Np7o';

const CASES: readonly SpellingCase[] = [
  {
    name: 'card number broken by a line break and indentation',
    type: 'credit_card',
    label: 'my card is',
    plain: '4111 1111 1111 1111',
    spellings: ['4111 1111\n     1111 1111', '4111 1111 11\r\n\t11 1111'],
    fragments: ['4111 1111', '1111 1111', '11 1111'],
  },
  {
    name: 'IBAN broken by a line break and indentation',
    type: 'iban',
    label: 'IBAN',
    plain: 'GB82 WEST 1234 5698 7654 32',
    spellings: ['GB82 WEST 123\n    4 5698 7654 32', 'GB82 WEST 1234 56\r\n  98 7654 32'],
    fragments: ['GB82', '5698', '7654'],
  },
  {
    name: 'SSN broken by a line break and indentation, on its word',
    type: 'us_ssn',
    label: 'my SSN is',
    plain: '078-05-1120',
    spellings: ['078-0\n    5-1120', '078-05\r\n  -1120'],
    fragments: ['078-0', '5-1120', '1120'],
  },
  {
    name: 'phone number broken by a line break and indentation, on its word',
    type: 'phone',
    label: 'call me at',
    plain: '+91 98765 43210',
    spellings: ['+91 987\n    65 43210', '+91 98765 \n\t43210'],
    fragments: ['98765', '43210', '987'],
  },
  {
    name: 'national id broken by a line break and indentation, on its word',
    type: 'es_dni',
    label: 'DNI',
    plain: '12345678Z',
    spellings: ['1234\n    5678Z', '12345\r\n  678Z'],
    fragments: ['1234', '5678Z', '678Z'],
  },
  {
    name: 'AWS key broken by a line break and indentation',
    type: 'api_key',
    label: 'aws key',
    plain: 'AKIAQ3EGRT7VXZ4MPL6K',
    spellings: ['AKIAQ3EGRT\n    7VXZ4MPL6K', 'AKIAQ3EG\r\n\tRT7VXZ4MPL6K'],
    fragments: ['AKIAQ3EG', '7VXZ4MPL6K'],
  },
  {
    name: 'GitHub token broken by a line break and indentation',
    type: 'api_key',
    label: 'token',
    plain: 'ghp_R7mK2pQ9xV4nL8wZ3cT6yB1hJ5dF0sG2a16X',
    spellings: ['ghp_R7mK2pQ9xV4nL8wZ\n    3cT6yB1hJ5dF0sG2a16X'],
    fragments: ['R7mK2pQ9', '3cT6yB1hJ5'],
  },
  {
    name: 'JWT broken by a line break and indentation',
    type: 'jwt',
    label: 'auth',
    plain: JWT,
    spellings: [`${JWT.slice(0, 66)}\n    ${JWT.slice(66)}`],
    fragments: [JWT.slice(0, 40), JWT.slice(70, 110)],
  },
  {
    name: 'connection string with a quoted-printable scheme',
    type: 'connection_string',
    label: 'db',
    plain: 'postgres://admin:s3cretPw16@db.example.com:5432/app',
    spellings: ['postgres=3A//admin:s3cretPw16@db.example.com:5432/app'],
    fragments: ['s3cretPw16', 'db.example', '5432/app'],
  },
  // Session 16 (lead): spellings this round's readers find whose erasure needed normalization
  // (token/normalize.ts, text/qp-connection.ts): revoking the plain value erases them too.
  {
    name: 'e-mail address broken by a line break and indentation',
    type: 'email',
    label: 'email me at',
    plain: 'jane.doe16@corp.example',
    spellings: ['jane.d\n    oe16@corp.example'],
    fragments: ['jane.d', 'oe16@corp'],
  },
  {
    name: 'connection string broken over a line, and with an escaped scheme',
    type: 'connection_string',
    label: 'db',
    plain: 'postgres://admin:S3cretPw16@db.corp.example:5432/app',
    spellings: [
      'postgres://admin:S3cretPw\n    16@db.corp.example:5432/app',
      'postgres://admin:S3cretPw\r\n16@db.corp.example:5432/app',
      'postgres%3A%2F%2Fadmin%3AS3cretPw16%40db%2Ecorp%2Eexample%3A5432%2Fapp',
      'postgres=3A%2F=2Fadmin%3AS3cretPw16=40db%2Ecorp=2Eexample%3A5432=2Fapp',
    ],
    fragments: ['S3cretPw', '16@db', 'db.corp', '5432%2Fapp', 'corp%2Eexample', 'postgres=3A', '5432=2Fapp'],
  },
  {
    name: 'UK NINO with a look-alike digit',
    type: 'uk_nino',
    label: 'my NI number is',
    plain: 'AB123456C',
    spellings: ['ABl23456C'],
    fragments: ['ABl23456C', '23456C'],
  },
  {
    name: 'Spanish DNI with a look-alike digit',
    type: 'es_dni',
    label: 'DNI',
    plain: '71234567W',
    spellings: ['7l234567W'],
    fragments: ['7l234567W', '234567W'],
  },
];

describeSpellings('session-16 spellings against the real server', {
  secret: SECRET,
  witness: WITNESS,
  cases: CASES,
  restoresAsWritten: true,
  untouched: {
    name: 'leaves indented lines with no value word, and joined runs failing the checksum, as they are',
    input:
      'see https%3A%2F%2Fexample.com%2Fdocs; ref ABl23456C; NIF 71854089I; build 078-0\n    5-1120 done; IBAN DE89 3704 00\n    44 0532 0130 01 ok; x = 1\n    y = 2; - step 1\n    - step 2; Contact Bob\n    for more',
  },
});
