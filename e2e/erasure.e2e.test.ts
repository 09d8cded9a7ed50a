// Erasure across spellings, against the real `veil serve` process (issue 15 item 8): revoking a
// value in one spelling erases every other spelling of it. For each class (phones in national,
// international, dotted, full-width and 00 forms; emails in any case, IDN and full-width; IBANs,
// cards, SSNs and VAT numbers with any separators and case; IPv6 in any compression; MACs;
// dates), each spelling is tokenized in its own session, one spelling is revoked, and every
// session restores `[DELETED]`, while another value in the same session still restores. Then
// the regions: a German session's national number erases with its +49 spelling, and
// detector.default_region reads a revoke request's national number.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, settledLogs, startVeil, type ServerProcess } from './support/server.js';
import { restore } from './support/spellings.js';

const SECRET = '6f'.repeat(32);
/** A value that is never revoked: it must still restore next to the erased one. */
const WITNESS = 'witness.e2e@example.org';

interface SpellingCase {
  readonly name: string;
  readonly type: string;
  /** The label before each spelling, so it is detected as `type`. */
  readonly label: string;
  readonly revoked: string;
  readonly others: readonly string[];
  readonly language?: string;
}

const CASES: readonly SpellingCase[] = [
  {
    name: 'phone: international revoked, national spellings erased',
    type: 'phone',
    label: 'call',
    revoked: '+1 (415) 555-0100',
    others: ['415-555-0100', '415.555.0100', '(415) 555 0100', '1-415-555-0100', '＋１ ４１５ ５５５ ０１００', '001 415 555 0100', '+14155550100'],
  },
  {
    name: 'phone: national revoked, international spellings erased',
    type: 'phone',
    label: 'call',
    revoked: '415.555.0101',
    others: ['+1 (415) 555-0101', '415-555-0101', '+1 415 555 0101', '415\u2011555\u20110101'],
  },
  {
    name: 'phone: revoking a number erases it with an extension',
    type: 'phone',
    label: 'call',
    revoked: '(345) 899-3560',
    others: ['345-899-3560x4587', '+1 345 899 3560 ext. 12'],
  },
  {
    name: 'email: case, full-width and IDN forms',
    type: 'email',
    label: 'mail',
    revoked: 'Jörg.Erase@Bücher.example',
    others: ['jörg.erase@bücher.example', 'JÖRG.ERASE@xn--bcher-kva.example', 'jörg.erase＠bücher。example'],
  },
  {
    name: 'email (session 10): code point escapes, percent-encoding, foreign @ words, base64 and hex',
    type: 'email',
    label: 'mail',
    revoked: 'evasion.erase@corp.example',
    others: [
      'evasion.erase\\u0040corp.example',
      '%65vasion.erase%40corp.example',
      'evasion.erase arroba corp punto example',
      'ZXZhc2lvbi5lcmFzZUBjb3JwLmV4YW1wbGU=',
      '65766173696f6e2e657261736540636f72702e6578616d706c65',
    ],
  },
  {
    name: 'phone (session 10): loose gaps, + read out, digits read out with dashes',
    type: 'phone',
    label: 'call',
    revoked: '+1 415 555 0166',
    others: ['415 | 555 | 0166', 'plus 1 415 555 0166', 'four one five dash five five five dash zero one six six', '4 1 5 5 5 5 0 1 6 6'],
  },
  {
    name: 'credit card (session 10): loose and mixed gaps, a line break, CJK numerals',
    type: 'credit_card',
    label: 'card',
    revoked: '5500 0000 0000 0004',
    others: ['5500 | 0000 | 0000 | 0004', '5500-0000 0000-0004', '5500 0000\n0000 0004', '五五零零零零零零零零零零零零零四'],
  },
  {
    name: 'email (session 11): a space on one side of the @, spaced dots, blanks, keycaps, (a), one character at a time',
    type: 'email',
    label: 'mail',
    revoked: 'blank.erase@corp.example',
    others: ['blank.erase@ corp.example', 'blank.erase @corp.example', 'blank . erase @ corp . example', 'blank\u2800.\u2800erase\u2800@\u2800corp.example', 'blank\u20e3.erase\u20e3@\u20e3corp.example', 'blank.erase(a)corp.example', 'b l a n k . e r a s e @ c o r p . e x a m p l e', 'blank.erase at corp.example', "'blank.erase' + '@corp.example'"],
  },
  {
    name: 'credit card (session 11): line and paragraph separators, NEL, braille blanks, a digit word among numerals',
    type: 'credit_card',
    label: 'card',
    revoked: '4000 0566 5566 5556',
    others: ['4000\u20280566\u20285566\u20285556', '4000\u20290566 5566 5556', '4000\u00850566 5566 5556', '4000\u28000566\u28005566\u28005556', 'four 0 0 0 0566 5566 5556', "4000'0566'5566'5556"],
  },
  {
    name: 'password (session 11): a passphrase of plain words, without quotes, after a colon or a copula',
    type: 'password',
    label: 'my password is',
    revoked: 'lantern orchid velvet comet',
    others: ['lantern orchid velvet comet.', 'lantern orchid velvet comet\n'],
  },
  {
    name: 'api key (session 11): wrapped over lines by a terminal',
    type: 'api_key',
    label: 'token',
    revoked: 'ghp_9aB3cD5eF7gH9iJ1kL3mN5oP7qR9sT1uV3w',
    others: ['ghp_9aB3cD5eF7gH9i\nJ1kL3mN5oP7qR9sT1uV3w', 'ghp_9aB3cD5eF7gH9iJ1kL3m\r\nN5oP7qR9sT1uV3w'],
  },
  {
    name: 'iban: spaces, dashes, dots and lower case',
    type: 'iban',
    label: 'IBAN',
    revoked: 'GB82 WEST 1234 5698 7654 32',
    others: ['GB82WEST12345698765432', 'gb82west12345698765432', 'GB82-WEST-1234-5698-7654-32', 'GB82.WEST.1234.5698.7654.32'],
  },
  {
    name: 'credit card: separators and full-width digits',
    type: 'credit_card',
    label: 'card',
    revoked: '4012888888881881',
    others: ['4012 8888 8888 1881', '4012-8888-8888-1881', '４０１２ ８８８８ ８８８８ １８８１'],
  },
  {
    name: 'SSN: dashes, dots, spaces and Arabic-Indic digits',
    type: 'us_ssn',
    label: 'SSN',
    revoked: '078-05-1120',
    others: ['078.05.1120', '078 05 1120', '٠٧٨-٠٥-١١٢٠', '078\u201305\u20131120', '078/05/1120', '078_05_1120', '07 80 51 120', Buffer.from('my ssn is 078-05-1120, thanks').toString('base64')],
  },
  {
    name: 'IPv6: compressed, expanded, upper case',
    type: 'ip_address',
    label: 'host',
    // A global address: documentation ones (2001:db8::/32) identify no one and are not detected.
    revoked: '2a00:1450:4001:82a:0:0:0:200e',
    others: ['2a00:1450:4001:82a::200e', '2A00:1450:4001:082A:0000:0000:0000:200E', '2A00:1450:4001:82A::200E'],
  },
  {
    name: 'MAC: separators and case',
    type: 'mac_address',
    label: 'mac',
    revoked: '00:1A:2B:3C:4D:5F',
    others: ['00-1a-2b-3c-4d-5f', '001A.2B3C.4D5F'],
  },
  {
    name: 'VAT: prefix separators and lower case',
    type: 'eu_vat',
    label: 'VAT',
    revoked: 'DE136695976',
    others: ['DE 136 695 976', 'DE-136-695-976', 'de136695976'],
  },
  {
    name: 'date: written and numeric forms',
    type: 'date',
    label: 'born',
    revoked: '1987-04-23',
    others: ['April 23, 1987', '23 April 1987', '04/23/1987'],
  },
];

async function tokenize(server: ServerProcess, label: string, spelling: string, language?: string): Promise<{ safe: string; state: string; types: string[] }> {
  const transformed = await postJson(`${server.url}/v1/transform`, {
    input: `${label} ${spelling} ; contact ${WITNESS}`,
    ...(language !== undefined ? { language } : {}),
  });
  expect(transformed.status, transformed.text).toBe(200);
  return {
    safe: transformed.body.safe_text as string,
    state: transformed.body.session_state as string,
    types: (transformed.body.entities as { type: string }[]).map((entity) => entity.type),
  };
}

describe('erasure across spellings (default region US)', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startVeil({ env: { VEIL_SESSION_SECRET: SECRET } });
  });
  afterAll(async () => {
    await server.stop();
  });

  it.each(CASES)('$name', async ({ type, label, revoked, others, language }) => {
    const sessions = [];
    for (const spelling of [revoked, ...others]) {
      const session = await tokenize(server, label, spelling, language);
      expect(session.types, spelling).toContain(type);
      expect(session.safe).not.toContain(spelling);
      sessions.push({ spelling, session });
    }
    const done = await postJson(`${server.url}/v1/revoke`, { entity_type: type, value: revoked });
    expect(done.status, done.text).toBe(200);
    for (const { spelling, session } of sessions) {
      const text = await restore(server, session);
      expect(text, spelling).toContain('[DELETED]');
      expect(text, spelling).not.toContain(spelling);
      expect(text).toContain(WITNESS);
    }
  });

  it('logged none of the values, in any spelling', async () => {
    const logs = await settledLogs(server);
    for (const { revoked, others } of CASES) for (const value of [revoked, ...others]) expect(logs, value).not.toContain(value);
  });

  it('erases a German national number with its +49 spelling, and the reverse', async () => {
    const national = await tokenize(server, 'Telefon', '030 12345670', 'de');
    const international = await tokenize(server, 'phone', '+49 30 12345671');
    expect(national.types).toContain('phone');
    expect((await postJson(`${server.url}/v1/revoke`, { entity_type: 'phone', value: '+49 30 12345670' })).status).toBe(200);
    expect(await restore(server, national)).toContain('[DELETED]');
    // A revoke request's national number is read in the default region (US): the German
    // session's own spelling still erases it, whatever region the request was read in.
    const same = await tokenize(server, 'Telefon', '030 12345671', 'de');
    expect((await postJson(`${server.url}/v1/revoke`, { entity_type: 'phone', value: '030 12345671' })).status).toBe(200);
    expect(await restore(server, same)).toContain('[DELETED]');
    expect(international.types).toContain('phone');
  });

  it('leaves a different number alone', async () => {
    const other = await tokenize(server, 'call', '415-555-0177');
    expect((await postJson(`${server.url}/v1/revoke`, { entity_type: 'phone', value: '+1 415 555 0178' })).status).toBe(200);
    expect(await restore(server, other)).toContain('415-555-0177');
  });
});

describe('erasure with detector.default_region GB', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startVeil({ env: { VEIL_SESSION_SECRET: SECRET, VEIL_DETECTOR__DEFAULT_REGION: 'GB' } });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('reads a national number in the default region, for detection and for the revoke request', async () => {
    const international = await tokenize(server, 'phone', '+44 20 7946 0958');
    const national = await tokenize(server, 'phone', '020 7946 0958');
    expect(national.types).toContain('phone');
    expect((await postJson(`${server.url}/v1/revoke`, { entity_type: 'phone', value: '(020) 7946-0958' })).status).toBe(200);
    expect(await restore(server, international)).toContain('[DELETED]');
    expect(await restore(server, national)).toContain('[DELETED]');
  });
});
