// Red-team probes of the restore side, session 19 (wave18/red; docs/api.md "Session 19
// (wave18/red)"), against the real `veil serve` process and the red team's local mock upstream
// only. (1) The fields of one streamed choice interleave: the reasoning or a refusal resumes
// after the content began a value (and the content after the reasoning). (2) A value over three
// members or more: three tool calls (the middle a whole call), the content and two calls, three
// fields. (3) The same classes in a whole (not streamed) answer. (4) Classes not probed before:
// the audio transcript resumed after the content, the reasoning resumed after a tool call, a
// value split between a tool call's name and its arguments. Nothing the client receives holds
// a piece of the session's value; at the end no probed value is in the logs.
import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { FakeOpenAi } from '../server/src/bench/fake-openai.js';
import { chunkWriters, promptAnswers, useRedTeam } from './support/red-team.js';
import { settledLogs, type ServerProcess } from './support/server.js';

const LOCAL = 'red.nineteen.victim';
const DOMAIN = 'corpnineteen.example';
const EMAIL = `${LOCAL}@${DOMAIN}`;

let veil: ServerProcess;
let fake: FakeOpenAi;
let client: OpenAI;
useRedTeam((team) => ({ veil, fake, client } = team));

const { raw } = promptAnswers(() => ({ veil, client }), `Mail ${EMAIL} please.`);
const { choice } = chunkWriters('chatcmpl-19');
const DONE = 'data: [DONE]\n\n';
const toolCall = (index: number, args: string, name = 'send_mail'): Record<string, unknown> => ({ index, id: `call_${index}`, type: 'function', function: { name, arguments: args } });
/** `text` in `size`-character deltas of `member`. */
const pieces = (member: string, text: string, size: number): string => {
  let out = '';
  for (let at = 0; at < text.length; at += size) out += choice({ [member]: text.slice(at, at + size) });
  return out;
};
/** Tool call `index` opened, then its arguments in `size`-character deltas. */
const callPieces = (index: number, args: string, size: number): string => {
  let out = choice({ tool_calls: [toolCall(index, '')] });
  for (let at = 0; at < args.length; at += size) out += choice({ tool_calls: [{ index, function: { arguments: args.slice(at, at + size) } }] });
  return out;
};

/** No piece of the session's value in `text` (its parts as written, JSON-escaped or not). */
function clean(text: string, what: string): void {
  for (const piece of ['red.nineteen', 'nineteen.victim', 'corpnineteen', 'victim@']) expect(text, what).not.toContain(piece);
}
async function streamedRaw(body: string, what: string): Promise<string> {
  fake.reply = () => ({ rawStream: choice({ role: 'assistant' }) + body + DONE });
  const answer = await raw(true);
  expect(answer.status, what).toBe(200);
  return answer.text;
}

describe('red team 19: the fields of one streamed choice interleave', () => {
  it('the reasoning or a refusal resumes after the content began the value: both pieces masked', { timeout: 180_000 }, async () => {
    for (const member of ['reasoning_content', 'refusal']) {
      for (const size of [1, 5, 64]) {
        const text = await streamedRaw(pieces(member, 'Thinking. ', size) + pieces('content', 'Write to red.nineteen', size) + pieces(member, '.victim@corpnineteen.example ok', size) + choice({}, 'stop'), `${member} ${size}`);
        clean(text, `${member} size ${size}`);
        expect(text).toContain('[REDACTED:email]');
      }
    }
  });

  it('the content resumes after the reasoning began the value', { timeout: 120_000 }, async () => {
    clean(await streamedRaw(pieces('content', 'Hi. ', 3) + pieces('reasoning_content', 'Write to red.nineteen', 3) + pieces('content', '.victim@corpnineteen.example', 3) + choice({}, 'stop'), 'content'), 'content resumed');
  });
});

describe('red team 19: a value over three members or more', () => {
  it('three tool calls (the middle a whole call), the content and two calls, three fields', { timeout: 180_000 }, async () => {
    for (const size of [1, 6, 64]) {
      clean(await streamedRaw(callPieces(0, '{"a":"red."}', size) + callPieces(1, '{"b":"nineteen.victim"}', size) + callPieces(2, '{"c":"@corpnineteen.example"}', size) + choice({}, 'tool_calls'), 'calls'), `three calls, size ${size}`);
      clean(await streamedRaw(pieces('content', 'Write to red.', size) + callPieces(0, '{"b":"nineteen.victim"}', size) + callPieces(1, '{"c":"@corpnineteen.example"}', size) + choice({}, 'tool_calls'), 'mixed'), `content and two calls, size ${size}`);
      clean(await streamedRaw(pieces('content', 'Write to red.', size) + pieces('reasoning_content', 'nineteen', size) + pieces('refusal', '.victim@corpnineteen.example', size) + choice({}, 'stop'), 'fields'), `three fields, size ${size}`);
    }
  });

  it('ordinary interleaved fields and calls stay as written', { timeout: 120_000 }, async () => {
    const text = await streamedRaw(pieces('reasoning_content', 'Plan: ', 4) + pieces('content', 'Write to red.team', 4) + pieces('reasoning_content', ' then stop.', 4) + callPieces(0, '{"city":"Paris"}', 4) + callPieces(1, '{"city":"Rome"}', 4) + choice({}, 'tool_calls'), 'ordinary');
    expect(text).not.toContain('REDACTED');
  });
});

describe('red team 19: the same classes in a whole answer', () => {
  /** A whole answer with `message`, as the upstream's exact body. */
  async function wholeRaw(message: Record<string, unknown>): Promise<string> {
    fake.reply = () => ({ status: 200, errorBody: { id: 'chatcmpl-19w', object: 'chat.completion', created: 1, model: 'fake-model', choices: [{ index: 0, message, finish_reason: 'stop' }] } });
    const answer = await raw(false);
    expect(answer.status).toBe(200);
    return answer.text;
  }

  it('a value across the reasoning, the content and a refusal; over three tool calls; across the content and two calls', { timeout: 120_000 }, async () => {
    clean(await wholeRaw({ role: 'assistant', reasoning_content: 'Write to red.', content: 'nineteen', refusal: '.victim@corpnineteen.example' }), 'whole fields');
    clean(await wholeRaw({ role: 'assistant', content: null, tool_calls: [toolCall(0, '{"a":"red."}'), toolCall(1, '{"b":"nineteen.victim"}'), toolCall(2, '{"c":"@corpnineteen.example"}')] }), 'whole calls');
    clean(await wholeRaw({ role: 'assistant', content: 'Write to red.nineteen', tool_calls: [toolCall(0, '{"b":".victim@corpnineteen"}'), toolCall(1, '{"c":".example"}')] }), 'whole mixed');
  });
});

describe('red team 19: classes not probed before', () => {
  it('the audio transcript resumes after the content began the value', { timeout: 120_000 }, async () => {
    const audio = (transcript: string): string => choice({ audio: { id: 'audio_1', transcript } });
    clean(await streamedRaw(audio('Sure. ') + pieces('content', 'Write to red.nineteen', 4) + audio('.victim@corpnineteen.example') + choice({}, 'stop'), 'audio'), 'audio');
  });

  it('the reasoning resumes after a tool call that began the value', { timeout: 120_000 }, async () => {
    clean(await streamedRaw(pieces('reasoning_content', 'Plan. ', 4) + callPieces(0, '{"to":"red.nineteen"}', 4) + pieces('reasoning_content', '.victim@corpnineteen.example', 4) + choice({}, 'tool_calls'), 'call then reasoning'), 'call then reasoning');
  });

  it('a value split between a tool call\'s name and its arguments: no piece passes', { timeout: 120_000 }, async () => {
    const text = await streamedRaw(choice({ tool_calls: [toolCall(0, '', 'red_nineteen_victim')] }) + choice({ tool_calls: [{ index: 0, function: { arguments: '{"at":"@corpnineteen.example"}' } }] }) + choice({}, 'tool_calls'), 'name');
    expect(text).not.toContain('corpnineteen');
  });

  it('logs no probed value', { timeout: 120_000 }, async () => {
    const logs = await settledLogs(veil);
    for (const value of [EMAIL, DOMAIN, LOCAL]) expect(logs).not.toContain(value);
  });
});
