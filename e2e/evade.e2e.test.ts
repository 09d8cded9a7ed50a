// Spellings an adversary uses to get a value to the model raw (session 11, wave10/evade), against
// the real `veil serve` process: digits written as look-alike letters (`415-555-O1OO`) and markup
// inside a value (`4111<b></b>1111 …`, `john<span>@</span>corp.example`), quoted-printable soft
// line breaks and Cyrillic look-alike letters in e-mail addresses and IBANs. Each spelling is
// tokenized through /v1/transform (text, JSON and chat modes), /v1/transform/stream and
// /v1/batch/transform with no
// fragment of the value left in the safe text, and revoking the plain value erases every
// spelling, while another value of the same session still restores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, settledLogs, startVeil, type ServerProcess } from './support/server.js';
import { expectErased, expectNoFragment, transformEveryMode, type SpellingCase } from './support/spellings.js';

const SECRET = '7a'.repeat(32);
/** A value that is never revoked: it must still restore next to the erased one. */
const WITNESS = 'witness.evade@example.org';

const CASES: readonly SpellingCase[] = [
  {
    name: 'phone with look-alike letters',
    type: 'phone',
    label: 'call me at',
    plain: '+1 415 555 0142',
    spellings: ['415-555-O142', '(415) 555-Ol42', '4l5 555 Ol42', '\uff14\uff11\uff15\u30fc\uff15\uff15\uff15\u30fc\uff10\uff11\uff14\uff12'],
    fragments: ['415', '4l5', '555', 'O142', 'Ol42'],
  },
  {
    name: 'card with look-alike letters',
    type: 'credit_card',
    label: 'card',
    plain: '4012 8888 8888 1881',
    spellings: ['4Ol2 8888 8888 l88l', '4012-8888-8888-I88I'],
    fragments: ['4Ol2', '4012', '8888', 'l88l', 'I88I'],
  },
  {
    name: 'SSN with look-alike letters',
    type: 'us_ssn',
    label: 'my ssn is',
    plain: '078-05-1120',
    spellings: ['O78-O5-1120', '078 O5 ll20', '078-05-\n1120'],
    fragments: ['O78', '078', '1120', 'll20'],
  },
  {
    name: 'card with markup inside',
    type: 'credit_card',
    label: 'pay with',
    plain: '5500 0000 0000 0004',
    spellings: ['5500<b></b>0000 0000 0004', '5500**0000**0000 0004', '5500<!-- x -->0000 0000 0004', '5500[b]0000[/b] 0000 0004', '`5500` 0000 0000 0004'],
    fragments: ['5500', '0004'],
  },
  {
    name: 'SSN and phone with markup inside',
    type: 'us_ssn',
    label: 'ssn',
    plain: '078-05-1121',
    spellings: ['078-05-<i>1121</i>', '078<span>-</span>05-1121'],
    fragments: ['078', '1121'],
  },
  {
    name: 'e-mail with markup inside',
    type: 'email',
    label: 'mail',
    plain: 'markup.erase@corp.example',
    spellings: ['markup.erase<span>@</span>corp.example', 'markup<wbr>.erase<wbr>@corp<wbr>.example', '[b]markup.erase[/b]@corp.example', 'markup.erase[@]corp[.]example'],
    fragments: ['markup', 'erase', 'corp.example'],
  },
  {
    name: 'IBAN with a Cyrillic letter, wrapped by a mail client, with look-alike digits',
    type: 'iban',
    label: 'IBAN',
    plain: 'DE89 3704 0044 0532 0130 00',
    spellings: ['D\u041589 3704 0044 0532 0130 00', 'DE89 3704 0044 05=\n32 0130 00', 'DE89370400440532013000'.toLowerCase(), 'DE89 37O4 OO44 O532 O13O OO'],
    fragments: ['3704', '0044', '0130', '37O4', 'O532'],
  },
  {
    name: 'e-mail with Cyrillic letters, wrapped by a mail client',
    type: 'email',
    label: 'mail',
    plain: 'glyph.erase@corp.example',
    spellings: ['gl\u0443ph.\u0435r\u0430se@c\u043erp.example', 'glyph.erase@corp.exa=\nmple'],
    fragments: ['ph.', 'se@', 'corp', 'mple'],
  },
];

/** The safe text of a /v1/transform/stream response (its frames' `safe_text`, joined). */
async function streamedSafeText(server: ServerProcess, input: string): Promise<string> {
  const response = await fetch(`${server.url}/v1/transform/stream`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input }) });
  expect(response.status).toBe(200);
  const frames = (await response.text())
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => JSON.parse(block.slice(6)) as { safe_text?: string; complete?: boolean });
  expect(frames.at(-1)?.complete).toBe(true);
  return frames.map((frame) => frame.safe_text ?? '').join('');
}

describe('adversarial spellings against the real server', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startVeil({ env: { VEIL_SESSION_SECRET: SECRET } });
  });
  afterAll(async () => {
    await server.stop();
  });

  it.each(CASES)('$name: tokenized whole in every mode, erased with the plain value', async ({ type, label, plain, spellings, fragments }) => {
    const sessions: { spelling: string; safe: string; state: string }[] = [];
    for (const spelling of spellings) {
      const input = `${label} ${spelling} ; contact ${WITNESS}`;
      const { text, chat } = await transformEveryMode(server, type, input, spelling, fragments);
      sessions.push(text, chat);

      expectNoFragment(await streamedSafeText(server, input), fragments, spelling);

      const batch = await postJson(`${server.url}/v1/batch/transform`, { items: [{ text: input }] });
      expect(batch.status, batch.text).toBe(200);
      expectNoFragment(batch.body.results[0].safe_text as string, fragments, spelling);
    }
    await expectErased(server, type, plain, sessions, WITNESS);
  });

  it('logged none of the values, in any spelling', async () => {
    const logs = await settledLogs(server);
    for (const { plain, spellings } of CASES) for (const value of [plain, ...spellings]) expect(logs, value).not.toContain(value);
  });

  it('leaves ordinary words, ids and markup as they are', async () => {
    const input = 'O2 and B2B, S3 bucket, 10x faster, IOI 2024, v1.0.l, 0o777, `npm ci` **bold** <b>note</b> a[i] ~~old~~';
    const made = await postJson(`${server.url}/v1/transform`, { input });
    expect(made.status, made.text).toBe(200);
    expect(made.body.safe_text).toBe(input);
  });
});
