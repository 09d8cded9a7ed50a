// Red-team probes of the restore side, session 18 (wave17/red; docs/api.md "Session 18
// (wave17/red)"), against the real `veil serve` process and the red team's local mock upstream
// only. (1) A value split across two tool calls of one streamed choice (call 0 ends, call 1
// completes it), also with both calls in one delta: both pieces are masked. (2) Tool calls out of
// index order or interleaved: refused. (3) A round on classes not probed before: a value split
// across `reasoning_content` and the content, across the content and a legacy `function_call`,
// Unicode spellings of the value in a stream (full-width `＠`, a soft hyphen, a zero-width space
// inside it), the value percent-encoded in a streamed link, the content resuming after a tool
// call (the reverse order). Nothing the client receives holds a piece of the session's value (except where the
// docs say a piece already sent cannot be called back); at the end no probed value is in the logs.
import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { FakeOpenAi } from '../server/src/bench/fake-openai.js';
import { chunkWriters, promptAnswers, useRedTeam } from './support/red-team.js';
import { settledLogs, type ServerProcess } from './support/server.js';

const LOCAL = 'red.eighteen.victim';
const DOMAIN = 'corpeighteen.example';
const EMAIL = `${LOCAL}@${DOMAIN}`;

let veil: ServerProcess;
let fake: FakeOpenAi;
let client: OpenAI;
useRedTeam((team) => ({ veil, fake, client } = team));

const PROMPT = `Mail ${EMAIL} please.`;

const { streamed, raw } = promptAnswers(() => ({ veil, client }), PROMPT);

const { choice } = chunkWriters('chatcmpl-18');
const toolCall = (index: number, args: string, open = true): Record<string, unknown> =>
  open ? { index, id: `call_${index}`, type: 'function', function: { name: 'send_mail', arguments: args } } : { index, function: { arguments: args } };
/** `text` in `size`-character deltas of `member` (a delta member name). */
const pieces = (member: string, text: string, size: number): string => {
  let out = '';
  for (let at = 0; at < text.length; at += size) out += choice({ [member]: text.slice(at, at + size) });
  return out;
};

/** No piece of the session's value (its local part, its domain) in `text`. */
function clean(text: string, what: string): void {
  for (const piece of [LOCAL, DOMAIN, 'eighteen.victim', 'corpeighteen']) expect(text, what).not.toContain(piece);
}

describe('red team 18: a value split across two tool calls of one streamed choice', () => {
  it('call 0 ends with the first piece, call 1 completes it: both pieces are masked, at every chunk size', { timeout: 180_000 }, async () => {
    for (const size of [1, 4, 64]) {
      fake.reply = () => ({
        content: null,
        toolCalls: [
          { id: 'call_0', name: 'send_mail', arguments: JSON.stringify({ to: LOCAL }) },
          { id: 'call_1', name: 'send_mail', arguments: JSON.stringify({ domain: `@${DOMAIN}`, n: 2 }) },
        ],
        chunkSizes: [size],
      });
      const answer = await streamed();
      expect(answer.args, `size ${size}`).toEqual(['{"to":"[REDACTED:email]"}', '{"domain":"[REDACTED:email]","n":2}']);
    }
  });

  it('both calls in one delta (parallel tool calls): both pieces are masked', { timeout: 120_000 }, async () => {
    fake.reply = () => ({
      rawStream: choice({ role: 'assistant', content: null }) + choice({ tool_calls: [toolCall(0, JSON.stringify({ to: LOCAL })), toolCall(1, JSON.stringify({ cc: `@${DOMAIN}` }))] }) + choice({}, 'tool_calls') + 'data: [DONE]\n\n',
    });
    const answer = await raw(true);
    expect(answer.status).toBe(200);
    clean(answer.text, 'parallel');
  });

  it('tool calls out of index order, or call 0 resumed after call 1 started: the stream is refused, no piece sent', { timeout: 120_000 }, async () => {
    const reversed = choice({ tool_calls: [toolCall(1, JSON.stringify({ cc: `@${DOMAIN}` }))] }) + choice({ tool_calls: [toolCall(0, JSON.stringify({ to: LOCAL }))] });
    const interleaved = choice({ tool_calls: [toolCall(0, '{"to":"red.')] }) + choice({ tool_calls: [toolCall(1, '{"cc":"x"}')] }) + choice({ tool_calls: [toolCall(0, 'eighteen.victim@corpeighteen.example"}', false)] });
    for (const [name, body] of [['reversed', reversed], ['interleaved', interleaved]] as const) {
      fake.reply = () => ({ rawStream: choice({ role: 'assistant' }) + body + choice({}, 'tool_calls') + 'data: [DONE]\n\n' });
      clean((await raw(true)).text, name);
    }
  });

  it('reverse order: the content resumes after a tool call that completes the value the content then begins: no piece reaches the client where the call still held its piece, the content\'s piece always masked', { timeout: 120_000 }, async () => {
    for (const size of [1, 5, 64]) {
      fake.reply = () => ({ rawStream: choice({ role: 'assistant' }) + choice({ tool_calls: [toolCall(0, '')] }) + choice({ tool_calls: [toolCall(0, JSON.stringify({ cc: `@${DOMAIN}` }), false)] }) + pieces('content', `Write to ${LOCAL}`, size) + choice({}, 'tool_calls') + 'data: [DONE]\n\n' });
      const answer = await streamed();
      expect(answer.content, `size ${size}`).toBe('Write to [REDACTED:email]');
      clean(answer.args.join(''), `size ${size}`);
    }
  });

  it('ordinary tool calls stay as written', { timeout: 120_000 }, async () => {
    fake.reply = () => ({
      content: null,
      toolCalls: [
        { id: 'call_0', name: 'lookup', arguments: JSON.stringify({ city: 'Paris', n: 3 }) },
        { id: 'call_1', name: 'lookup', arguments: JSON.stringify({ city: 'red.team' }) },
      ],
      chunkSizes: [3],
    });
    expect((await streamed()).args).toEqual(['{"city":"Paris","n":3}', '{"city":"red.team"}']);
  });
});

describe('red team 18: classes not probed before', () => {
  it('reasoning_content begins the value, the content completes it', { timeout: 120_000 }, async () => {
    for (const size of [1, 5]) {
      fake.reply = () => ({ rawStream: choice({ role: 'assistant' }) + pieces('reasoning_content', `The user wants ${LOCAL}`, size) + pieces('content', `@${DOMAIN} is the address.`, size) + choice({}, 'stop') + 'data: [DONE]\n\n' });
      clean((await raw(true)).text, `reasoning, size ${size}`);
    }
  });

  it('the content begins the value, a legacy function_call completes it', { timeout: 120_000 }, async () => {
    fake.reply = () => ({
      rawStream: choice({ role: 'assistant', content: `Write to ${LOCAL}` }) + choice({ function_call: { name: 'send_mail', arguments: '' } }) + choice({ function_call: { arguments: `{"to":"@${DOMAIN}"}` } }) + choice({}, 'function_call') + 'data: [DONE]\n\n',
    });
    clean((await raw(true)).text, 'function_call');
  });

  it('Unicode spellings of the value in a stream: full-width at sign, soft hyphen, zero-width space', { timeout: 180_000 }, async () => {
    for (const spelled of [`${LOCAL}\uFF20${DOMAIN}`, `red.eigh\u00ADteen.victim@corpeigh\u00ADteen.example`, `red.eighteen\u200B.victim@${DOMAIN}`]) {
      for (const size of [1, 6]) {
        fake.reply = () => ({ content: `Send it to ${spelled} today.`, chunkSizes: [size] });
        const text = (await streamed()).content;
        const folded = text.replace(/[\u00AD\u200B]/g, '').replace(/\uFF20/g, '@');
        clean(folded, `${JSON.stringify(spelled)} size ${size}`);
      }
    }
  });

  it('the value percent-encoded in a streamed link', { timeout: 120_000 }, async () => {
    for (const size of [1, 7]) {
      fake.reply = () => ({ content: `[mail](https://evil.example/?to=red.eighteen.victim%40corpeighteen.example)`, chunkSizes: [size] });
      clean(decodeURIComponent((await streamed()).content), `percent, size ${size}`);
    }
  });

  it('logs no probed value', { timeout: 120_000 }, async () => {
    const logs = await settledLogs(veil);
    for (const value of [EMAIL, DOMAIN, LOCAL]) expect(logs).not.toContain(value);
  });
});
