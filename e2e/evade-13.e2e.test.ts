// Values and sentences written backwards (session 13, wave12/evade; server/src/domain/detect/reversed-words.ts),
// against the real `veil serve` process: a value's word written backwards after the value
// ("1211-50-870 si NSS ym"), a value's prefix written backwards at its end ("…QAIKA", "…aoB1"), an
// IBAN whose country code and check digits end it reversed; an SSN, a phone and a national id broken
// by one line break (server/src/domain/detect/broken-lines.ts); an IBAN and a MAC address
// percent-escaped character by character. Each spelling is tokenized through
// /v1/transform as text, as a JSON body and as a chat body with no fragment of the value left in
// the safe text; restore gives back the text as written; revoking the plain (forward) value makes
// every spelling restore `[DELETED]` while another value of the same session still restores; and
// no value, in any spelling, reaches the server's logs.
import { expect, it } from 'vitest';
import { postJson } from './support/server.js';
import { describeSpellings, type SpellingCase } from './support/spellings.js';

const SECRET = '3d'.repeat(32);
/** A value that is never revoked: it must still restore next to the erased one. */
const WITNESS = 'witness.evade13@example.org';

const CASES: readonly SpellingCase[] = [
  {
    name: 'SSN in a sentence written backwards',
    type: 'us_ssn',
    label: 'read backwards:',
    plain: '078-05-1121',
    spellings: ['1211-50-870 si NSS ym', '1211-50-870 :NSS', '1211-50-870 :rebmun ytiruces laicos'],
    fragments: ['1211', '870'],
  },
  {
    name: 'phone in a sentence written backwards',
    type: 'phone',
    label: 'read backwards:',
    plain: '+1 415 555 0144',
    spellings: ['4410 555 514 1+ ta em llac', '4410-555 )514( si rebmun enohp ym'],
    fragments: ['4410', '514'],
  },
  {
    name: 'e-mail in a sentence written backwards',
    type: 'email',
    label: 'read backwards:',
    plain: 'rev.erase@corp.example',
    spellings: ['elpmaxe.proc@esare.ver ta em liame', 'elpmaxe.proc@esare.ver :liame ym'],
    fragments: ['esare', 'elpmaxe'],
  },
  {
    name: 'IBAN written backwards after its word or in a reversed sentence',
    type: 'iban',
    label: 'IBAN',
    plain: 'DE89 3704 0044 0532 0130 00',
    spellings: ['00 0310 2350 4400 4073 98ED', '00 0310 2350 4400 4073 98ED NABI ,ereh'],
    fragments: ['0310', '2350', '4073', '98ED'],
  },
  {
    name: 'AWS key written backwards',
    type: 'api_key',
    label: 'aws key',
    plain: 'AKIAQ3EGRT7VXZ4MPL2J',
    spellings: ['J2LPM4ZXV7TRGE3QAIKA', 'J2LPM4ZXV7TRGE3QAIKA yek swa'],
    fragments: ['J2LPM4', 'QAIKA'],
  },
  {
    name: 'bitcoin address written backwards',
    type: 'crypto_wallet',
    label: 'send to',
    plain: '1BoatSLRHtKNngkdXEeobR76b53LETtpyT',
    spellings: ['TyptTEL35b67RboeEXdkgnNKtHRLStaoB1', 'TyptTEL35b67RboeEXdkgnNKtHRLStaoB1 ot dnes'],
    fragments: ['Typt', 'aoB1'],
  },
  // Numbers without a check broken by one line break (broken-lines.ts).
  {
    name: 'SSN broken by a line break',
    type: 'us_ssn',
    label: 'my SSN is',
    plain: '078-05-1122',
    spellings: ['078-0\n5-1122', '078-0\r\n5-1122', '078 05 \n 1122'],
    fragments: ['078', '1122'],
  },
  {
    name: 'phone broken by a line break',
    type: 'phone',
    label: 'call me at',
    plain: '+49 30 90182045',
    spellings: ['+49 30 \n90182045', '+49 30 90\n182045', '+49 3\n0 90182045'],
    fragments: ['9018', '182045', '2045'],
  },
  {
    name: 'national id broken by a line break',
    type: 'es_dni',
    label: 'DNI',
    plain: '12345678Z',
    spellings: ['1234\n5678Z', '1234\r\n5678Z'],
    fragments: ['1234', '5678'],
  },
  // Every character percent-escaped (server/src/domain/text/fold.ts, percentSeparator).
  {
    name: 'MAC address percent-escaped character by character',
    type: 'mac_address',
    label: 'mac address',
    plain: '00:1A:2B:3C:4D:5F',
    spellings: ['%30%30%3A%31%41%3A%32%42%3A%33%43%3A%34%44%3A%35%46'],
    fragments: ['%30%30', '%35%46'],
  },
  {
    name: 'IBAN percent-escaped character by character',
    type: 'iban',
    label: 'IBAN',
    plain: 'GB82 WEST 1234 5698 7654 32',
    spellings: ['%47%42%38%32%20%57%45%53%54%20%31%32%33%34%20%35%36%39%38%20%37%36%35%34%20%33%32'],
    fragments: ['%47%42', '%33%32'],
  },
];

describeSpellings('session-13 spellings against the real server', {
  secret: SECRET,
  witness: WITNESS,
  cases: CASES,
  restoresAsWritten: true,
  // Restore gives back the text as written (backwards), not the forward value.
  untouched: {
    name: 'leaves prose whose words end like a value word backwards as it is',
    input: 'William sent the turkey to the API team; kind regards, IND; the webcam res is fine, let the outlet handle it; shelf codes A4 12CD and 2024 98ED',
  },
  more: (server) => {
    it('gives a value and its reversed spelling one token in a session', async () => {
      const made = await postJson(`${server().url}/v1/transform`, { input: 'my SSN is 078-05-1129; read backwards: 9211-50-870 si NSS ym' });
      expect(made.status, made.text).toBe(200);
      const tokens = (made.body.entities as { token: string }[]).map((entity) => entity.token);
      expect(tokens).toHaveLength(2);
      expect(new Set(tokens).size).toBe(1);
    });
  },
});
