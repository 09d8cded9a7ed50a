// Red-team probes of the restore side, session 14 (wave13/red; docs/api.md "Session 14"), against
// the real `veil serve` process (the red team's local mock upstream only). The model's answer
// writes a session value base64-encoded (of letters, not only digits: a value no detector reads,
// from a request's custom pattern) or backwards; `/v1/rehydrate` and `output_json` must mask
// every one, and leave ordinary base64 alone. At the end no probed value is in the logs.
import { describe, expect, it } from 'vitest';
import type OpenAI from 'openai';
import type { FakeOpenAi } from '../server/src/bench/fake-openai.js';
import { sessionWith, useRedTeam } from './support/red-team.js';
import { postJson, settledLogs, type ServerProcess } from './support/server.js';

const CODE = 'Zyxwortquentin Brightwater';
const EMAIL = 'red.fourteen.victim@corp.example';
const PATTERNS = [{ entity_type: 'holder', pattern: 'Zyxwortquentin Brightwater' }];

let veil: ServerProcess;
let fake: FakeOpenAi;
let client: OpenAI;
useRedTeam((team) => ({ veil, fake, client } = team));

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');
function reverse(text: string): string {
  let out = '';
  for (const match of text.matchAll(/./gsu)) out = match[0] + out;
  return out;
}

/** [name, what the model writes in place of the value]; the answer is `… ${written} ok`. */
const PROBES: readonly (readonly [string, string])[] = [
  ['a letters-only value in base64', b64(CODE)],
  ['a letters-only value in URL-safe base64 without padding', Buffer.from(CODE).toString('base64url')],
  ['a sentence holding the value, in base64 (a data URI)', b64(`The holder is ${CODE}, as asked.`)],
  ['the value backwards', reverse(CODE)],
  ['an address backwards', reverse(EMAIL)],
  ['the value backwards, then base64', b64(reverse(CODE))],
];

async function session(): Promise<string> {
  const made = await postJson(`${veil.url}/v1/transform`, { input: `Holder ${CODE}, mail ${EMAIL}.`, custom_patterns: PATTERNS });
  expect(made.status).toBe(200);
  expect(made.body.safe_text as string).not.toContain('Zyxwortquentin');
  return made.body.session_state as string;
}

describe('red team 14: the model writes a session value base64-encoded or backwards', () => {
  it.each(PROBES)('%s is masked by /v1/rehydrate and in output_json', async (_name, written) => {
    const state = await session();
    const output = `As asked: data:text/plain;base64,${written} ok`;
    const restored = await postJson(`${veil.url}/v1/rehydrate`, { output, session_state: state });
    expect(restored.status).toBe(200);
    const text = restored.body.restored_text as string;
    expect(text).toContain('[REDACTED:');
    expect(text).not.toContain(written);
    const json = await postJson(`${veil.url}/v1/rehydrate`, { output_json: { answer: output }, session_state: state });
    expect(json.status).toBe(200);
    const answer = (json.body.restored_json as { answer: string }).answer;
    expect(answer).toContain('[REDACTED:');
    expect(answer).not.toContain(written);
  });

  it('leaves ordinary base64 in an answer as it is', async () => {
    const state = await session();
    const bytes = Buffer.from(Array.from({ length: 120 }, (_, index) => (index * 97 + 13) % 256)).toString('base64');
    const output = `An image data:image/png;base64,${bytes} and ${b64('Hello there, how are you today?')} as text.`;
    const restored = await postJson(`${veil.url}/v1/rehydrate`, { output, session_state: state });
    expect(restored.status).toBe(200);
    expect(restored.body.restored_text).toBe(output);
  });

  it('a token that is the whole url of a streamed citation restores as a link target (the label), through the official client', async () => {
    const { token, state } = await sessionWith(veil, EMAIL);
    const chunk = (delta: unknown, finish: string | null = null): string =>
      `data: ${JSON.stringify({ id: 'chatcmpl-red14', object: 'chat.completion.chunk', created: 1, model: 'fake-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    fake.reply = () => ({
      rawStream: `${chunk({ role: 'assistant', content: 'See the source.' })}${chunk({ annotations: [{ type: 'url_citation', url_citation: { url: token, title: token, start_index: 0, end_index: 3 } }] })}${chunk({}, 'stop')}data: [DONE]\n\n`,
    });
    let text = '';
    const stream = await client.chat.completions.create({ model: 'fake-model', messages: [{ role: 'user', content: 'Go on.' }], stream: true }, { headers: { 'x-veil-session-state': state } });
    for await (const part of stream) text += JSON.stringify(part);
    expect(text).toContain('"url":"[email address]"');
    expect(text).toContain(`"title":"${EMAIL}"`);
  });

  it('logs no probed value', async () => {
    const logs = await settledLogs(veil);
    for (const value of [CODE, 'Zyxwortquentin', EMAIL, 'red.fourteen', b64(CODE).slice(0, 16), reverse(CODE).slice(0, 12), reverse(EMAIL).slice(0, 12)]) expect(logs).not.toContain(value);
  });
});
