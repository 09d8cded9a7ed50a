// Red-team probes of the restore side, session 17 (wave16/red; docs/api.md "Session 17
// (wave16/red)"), against the real `veil serve` process and the red team's local mock upstream
// only. (1) A value split across two streamed members whose first piece the content still holds
// when the arguments complete it: both pieces are masked. (2) A value the content begins and an
// annotation string completes. (3) A round on classes not probed before: tool-call names,
// logprobs tokens, a JSON answer's keys, a JSON answer split across deltas, SSE comments and
// `event:`/`id:` lines, upstream error bodies (status and mid-stream), the envelope (usage,
// system_fingerprint). Nothing the client receives holds a piece of the session's value; at the
// end no probed value is in the logs.
import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { FakeOpenAi } from '../server/src/bench/fake-openai.js';
import { chunkWriters, promptAnswers, useRedTeam } from './support/red-team.js';
import { settledLogs, type ServerProcess } from './support/server.js';

const LOCAL = 'red.seventeen.victim';
const DOMAIN = 'corpseventeen.example';
const EMAIL = `${LOCAL}@${DOMAIN}`;

let veil: ServerProcess;
let fake: FakeOpenAi;
let client: OpenAI;
useRedTeam((team) => ({ veil, fake, client } = team));

const PROMPT = `Mail ${EMAIL} please.`;

const { streamed, raw } = promptAnswers(() => ({ veil, client }), PROMPT);

const { event, choice } = chunkWriters('chatcmpl-17');

/** No piece of the session's value (its local part, its domain) in `text`. */
function clean(text: string, what: string): void {
  for (const piece of [LOCAL, DOMAIN, 'seventeen.victim', 'corpseventeen']) expect(text, what).not.toContain(piece);
}

describe('red team 17: the first piece of a value split across two streamed members', () => {
  it('the content still holds the first piece when the arguments complete the value: both pieces are masked, at every chunk size', { timeout: 180_000 }, async () => {
    for (const size of [1, 4, 64]) {
      fake.reply = () => ({ content: `Write to ${LOCAL}`, toolCalls: [{ id: 'call_1', name: 'send_mail', arguments: JSON.stringify({ to: `@${DOMAIN}`, n: 2 }) }], chunkSizes: [size] });
      const answer = await streamed();
      expect(answer, `size ${size}`).toEqual({ content: 'Write to [REDACTED:email]', args: ['{"to":"[REDACTED:email]","n":2}'] });
    }
  });

  it('ordinary members stay as written', { timeout: 120_000 }, async () => {
    fake.reply = () => ({ content: 'I will write to red.team', toolCalls: [{ id: 'call_1', name: 'send_mail', arguments: JSON.stringify({ to: '@team', subject: 'victim notes' }) }], chunkSizes: [2] });
    expect(await streamed()).toEqual({ content: 'I will write to red.team', args: ['{"to":"@team","subject":"victim notes"}'] });
  });
});

describe('red team 17: a value split across the content and an annotation or the refusal (streamed)', () => {
  it('the content begins it, an annotation title completes it: neither piece reaches the client', { timeout: 120_000 }, async () => {
    fake.reply = () => ({
      rawStream:
        choice({ role: 'assistant', content: `Write to ${LOCAL}` }) +
        choice({ annotations: [{ type: 'url_citation', url_citation: { title: `@${DOMAIN}`, url: 'https://docs.example/a', start_index: 0, end_index: 5 } }] }) +
        choice({}, 'stop') +
        'data: [DONE]\n\n',
    });
    const answer = await raw(true);
    expect(answer.status).toBe(200);
    clean(answer.text, 'annotation');
  });

  it('the content begins it, the refusal completes it', { timeout: 120_000 }, async () => {
    fake.reply = () => ({ rawStream: choice({ role: 'assistant', content: `Write to ${LOCAL}` }) + choice({ refusal: `@${DOMAIN} is not allowed` }) + choice({}, 'stop') + 'data: [DONE]\n\n' });
    const answer = await raw(true);
    clean(answer.text, 'refusal');
  });
});

describe('red team 17: classes not probed before', () => {
  it('a tool call named with the value (streamed and whole) is refused, never sent', { timeout: 120_000 }, async () => {
    fake.reply = () => ({ content: null, toolCalls: [{ id: 'call_1', name: EMAIL, arguments: '{}' }], chunkSizes: [3] });
    for (const stream of [true, false]) clean((await raw(stream)).text, `tool name, stream ${String(stream)}`);
  });

  it('logprobs tokens and top_logprobs holding the value are not sent', { timeout: 120_000 }, async () => {
    const logprobs = { content: [{ token: EMAIL, logprob: -0.1, bytes: null, top_logprobs: [{ token: LOCAL, logprob: -0.2, bytes: null }, { token: `@${DOMAIN}`, logprob: -0.3, bytes: null }] }], refusal: null };
    fake.reply = () => ({ rawStream: choice({ role: 'assistant', content: 'Done.' }, null, { logprobs }) + choice({}, 'stop') + 'data: [DONE]\n\n' });
    clean((await raw(true)).text, 'logprobs');
  });

  it('a JSON answer with the value as a key (content and arguments, whole and streamed)', { timeout: 120_000 }, async () => {
    fake.reply = () => ({ content: JSON.stringify({ [EMAIL]: { ok: true } }), toolCalls: [{ id: 'call_1', name: 'save', arguments: JSON.stringify({ [EMAIL]: 1 }) }], chunkSizes: [1] });
    for (const stream of [true, false]) clean((await raw(stream)).text, `JSON keys, stream ${String(stream)}`);
  });

  it('a JSON answer (response_format) whose string value is split across deltas at every size', { timeout: 180_000 }, async () => {
    for (const size of [1, 2, 7]) {
      fake.reply = () => ({ content: JSON.stringify({ contact: { email: EMAIL, note: 'ok' } }), chunkSizes: [size] });
      const answer = await streamed();
      clean(answer.content, `size ${size}`);
      expect(JSON.parse(answer.content)).toEqual({ contact: { email: '[REDACTED:email]', note: 'ok' } });
    }
  });

  it('SSE comments, event:, id: and retry: lines holding the value are not relayed', { timeout: 120_000 }, async () => {
    fake.reply = () => ({
      rawStream: `: ${EMAIL}\n\nevent: ${EMAIL}\nid: ${EMAIL}\nretry: 1000\n` + choice({ role: 'assistant', content: 'Done.' }).slice(0) + `: ${LOCAL}\n` + choice({}, 'stop') + 'data: [DONE]\n\n',
    });
    const answer = await raw(true);
    expect(answer.status).toBe(200);
    clean(answer.text, 'SSE lines');
  });

  it('an upstream error body holding the value (error status, whole and streamed; an error event mid-stream) relays no piece of it', { timeout: 120_000 }, async () => {
    for (const status of [400, 422, 500]) {
      fake.reply = () => ({ status, errorBody: { error: { message: `The address ${EMAIL} is invalid`, type: 'invalid_request_error', param: EMAIL } } });
      for (const stream of [true, false]) clean((await raw(stream)).text, `status ${status}, stream ${String(stream)}`);
    }
    fake.reply = () => ({ rawStream: choice({ role: 'assistant', content: 'Working' }) + `data: ${JSON.stringify({ error: { message: `Failed for ${EMAIL}`, type: 'server_error' } })}\n\n` });
    clean((await raw(true)).text, 'error event');
  });

  it('the envelope (usage, system_fingerprint, model, service_tier) holding the value is refused', { timeout: 120_000 }, async () => {
    for (const extra of [{ system_fingerprint: EMAIL }, { model: EMAIL }, { service_tier: EMAIL }, { usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, note: EMAIL } }]) {
      fake.reply = () => ({ rawStream: choice({ role: 'assistant', content: 'Done.' }) + event({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], ...extra }) + 'data: [DONE]\n\n' });
      clean((await raw(true)).text, JSON.stringify(Object.keys(extra)));
    }
  });

  it('logs no probed value', { timeout: 120_000 }, async () => {
    const logs = await settledLogs(veil);
    for (const value of [EMAIL, DOMAIN, LOCAL]) expect(logs).not.toContain(value);
  });
});
