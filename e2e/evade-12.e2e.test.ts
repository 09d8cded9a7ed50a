// Spellings the session-12 probe matrix found reaching the model raw (tools/evade-matrix/matrix.mjs,
// wave11/evade), against the real `veil serve` process: digits written one by one with a spacing
// and wider group gaps, percent-escaped separators of a number, quoted-printable e-mail addresses,
// an address split before its top-level label, IBANs grouped by `+` or apostrophes or with
// look-alike digits after a bank code, international phones in loose groups after a `+`, cards
// and phones written backwards, values written one character at a time, and values sent
// base32-encoded. Each spelling is
// tokenized through /v1/transform as text, as a JSON body and as a chat body with no fragment of
// the value left in the safe text; revoking the plain value makes every spelling restore
// `[DELETED]` while another value of the same session still restores; and no value, in any
// spelling, reaches the server's logs. Round 2 (wave11/evade2): values written wholly in
// quoted-printable escapes; an e-mail address, a wallet and a JWT broken by one line break.
import { expect, it } from 'vitest';
import { describeSpellings, type SpellingCase } from './support/spellings.js';

const SECRET = '3c'.repeat(32);
/** A value that is never revoked: it must still restore next to the erased one. */
const WITNESS = 'witness.evade12@example.org';

const CASES: readonly SpellingCase[] = [
  {
    name: 'card written one digit at a time',
    type: 'credit_card',
    label: 'my card is',
    plain: '4012 8888 8888 1881',
    spellings: ['4 0 1 2  8 8 8 8  8 8 8 8  1 8 8 1', '4 0 1 2 - 8 8 8 8 - 8 8 8 8 - 1 8 8 1', '4 0 1 2 &#32; 8 8 8 8 &#32; 8 8 8 8 &#32; 1 8 8 1', '4012%208888%208888%201881'],
    fragments: ['4 0 1 2', '8 8 8 8', '1 8 8 1', '4012', '8888', '1881'],
  },
  {
    name: 'SSN written one digit at a time',
    type: 'us_ssn',
    label: 'my SSN is',
    plain: '078-05-1121',
    spellings: ['0 7 8 - 0 5 - 1 1 2 1', "0'7'8'0'5'1'1'2'1", '0_7_8_0_5_1_1_2_1', '078%2005%201121'],
    fragments: ['0 7 8', '1 1 2 1', "0'7'8", '0_7_8', '1121', '078'],
  },
  {
    name: 'phone with percent-escaped separators and written one digit at a time',
    type: 'phone',
    label: 'call me at',
    plain: '+1 415 555 0143',
    spellings: ['%2B1%20415%20555%200143', '%28415%29%20555%2D0143', '4 1 5  5 5 5  0 1 4 3', '4-1-5-5-5-5-0-1-4-3'],
    fragments: ['415', '555', '0143', '4 1 5', '0 1 4 3', '4-1-5'],
  },
  {
    name: 'e-mail in quoted-printable and split before its dot',
    type: 'email',
    label: 'mail',
    plain: 'qp.erase@corp.example',
    spellings: ['qp.erase=40corp.example', 'qp=2Eerase=40corp=2Eexample', 'qp.erase@corp .example', 'qp.erase@corp . example'],
    fragments: ['qp', 'erase', 'corp'],
  },
  {
    name: 'IBAN grouped by a form-encoded space or apostrophes, look-alike digits after its bank code',
    type: 'iban',
    label: 'IBAN',
    plain: 'GB82 WEST 1234 5698 7654 32',
    spellings: ['GB82+WEST+1234+5698+7654+32', "GB82'WEST'1234'5698'7654'32", 'GB82 WEST l234 5698 7654 32'],
    fragments: ['1234', 'l234', '5698', '7654'],
  },
  {
    name: 'international phone in loose groups after a +',
    type: 'phone',
    label: 'call me at',
    plain: '+33 1 42 68 53 01',
    spellings: ['+33 | 1 | 42 | 68 | 53 | 01', '+33_1_42_68_53_01', '+ 3 3   1   4 2   6 8   5 3   0 1'],
    fragments: ['42', '68', '53', '4 2', '6 8'],
  },
  {
    name: 'card written backwards',
    type: 'credit_card',
    label: 'my card number backwards:',
    plain: '5500 0000 0000 0004',
    spellings: ['4000 0000 0000 0055', '4000000000000055'],
    fragments: ['4000', '0055', '4000000000000055'],
  },
  {
    name: 'phone written backwards',
    type: 'phone',
    label: 'call me at',
    plain: '+1 415 555 0144',
    spellings: ['4410 555 514 1+', '4410-555-514-1+'],
    fragments: ['4410', '555', '514'],
  },
  {
    name: 'IP address written one character at a time',
    type: 'ip_address',
    label: 'server ip',
    plain: '81.2.69.161',
    spellings: ['8 1 . 2 . 6 9 . 1 6 1'],
    fragments: ['8 1', '6 9', '1 6 1'],
  },
  {
    name: 'UK NI number written one character at a time',
    type: 'uk_nino',
    label: 'my NI number is',
    plain: 'AB123457C',
    spellings: ['A B 1 2 3 4 5 7 C'],
    fragments: ['A B', '1 2', '5 7', '1 2 3 4'],
  },
  {
    name: 'values sent base32-encoded',
    type: 'email',
    label: 'mail',
    plain: 'b32.erase@corp.example',
    // base32 of "b32.erase@corp.example"
    spellings: ['MIZTELTFOJQXGZKAMNXXE4BOMV4GC3LQNRSQ===='],
    fragments: ['MIZTELTFOJQXGZKAMNXXE4BOMV4GC3LQNRSQ'],
  },
  // Round 2 (wave11/evade2).
  {
    name: 'card written wholly in quoted-printable escapes',
    type: 'credit_card',
    label: 'my card is',
    plain: '4012 8888 8888 1881',
    spellings: ['=34=30=31=32=20=38=38=38=38=20=38=38=38=38=20=31=38=38=31', '=34=30=31=32=38=38=38=38=38=38=38=38=31=38=38=31'],
    fragments: ['=34=30=31=32', '=34=30', '=31=38=38=31'],
  },
  {
    name: 'phone written wholly in quoted-printable escapes',
    type: 'phone',
    label: 'call me at',
    plain: '+1 415 555 0145',
    spellings: ['=2B=31=20=34=31=35=20=35=35=35=20=30=31=34=35', '=28=34=31=35=29=20=35=35=35=2D=30=31=34=35'],
    fragments: ['=34=31=35', '=35=35=35', '=30=31=34=35'],
  },
  {
    name: 'e-mail broken by one line break in its domain',
    type: 'email',
    label: 'email me at',
    plain: 'nl.erase@corp.example',
    spellings: ['nl.erase@c\norp.example', 'nl.erase@co\r\nrp.example'],
    fragments: ['nl.erase', 'orp.example', 'rp.example'],
  },
  {
    name: 'wallet broken by one line break',
    type: 'crypto_wallet',
    label: 'send to',
    plain: '1BoatSLRHtKNngkdXEeobR76b53LETtpyT',
    spellings: ['1BoatSLRHtKNngkdX\nEeobR76b53LETtpyT', '1BoatSLRHtKNngkdXEeob\r\nR76b53LETtpyT'],
    fragments: ['1BoatSLRHtKNngkdX', 'EeobR76b53LETtpyT', 'R76b53LETtpyT'],
  },
  {
    name: 'JWT broken by one line break inside its payload',
    type: 'jwt',
    label: 'auth',
    plain: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI5ODc2NTQzMjEwIn0.c2lnbmF0dXJlLW9mLXRoZS1ldmFkZTEyYi10ZXN0',
    spellings: ['eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI5O\nDc2NTQzMjEwIn0.c2lnbmF0dXJlLW9mLXRoZS1ldmFkZTEyYi10ZXN0'],
    fragments: ['eyJzdWIiOiI5O', 'Dc2NTQzMjEwIn0', 'c2lnbmF0dXJl'],
  },
];

describeSpellings('session-12 spellings against the real server', {
  secret: SECRET,
  witness: WITNESS,
  cases: CASES,
  restoresAsWritten: false,
  untouched: {
    name: 'leaves ordinary text that looks alike as it is',
    input: 'width=40px; token count 1, 2, 3, 4, 5, 6, 7; see /docs/report%202024%2001.pdf; scp a user@host .ssh/; README2FIRST',
  },
  more: () => {
    it('the base32 spelling encodes the plain value', () => {
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
      let bits = '';
      for (const byte of Buffer.from('b32.erase@corp.example')) bits += byte.toString(2).padStart(8, '0');
      let out = '';
      for (let k = 0; k < bits.length; k += 5) out += alphabet[parseInt(bits.slice(k, k + 5).padEnd(5, '0'), 2)] ?? '';
      expect(`${out}${'='.repeat((8 - (out.length % 8)) % 8)}`).toBe(CASES[10]!.spellings[0]);
    });
  },
});
