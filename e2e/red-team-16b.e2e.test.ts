// Red-team probes of the restore side, session 16 round 2 (wave15/red2; docs/api.md "Session 16
// (wave15/red2)"), against the real `veil serve` process (the red team's local mock upstream
// only). The model splits a session value across two streamed members of one answer: the content,
// then a tool call's arguments; two tool calls' arguments. The piece already sent cannot be masked;
// the piece that completes the value is (each member's stream guard is seeded with the tail of
// the member before it). At the end no probed value is in the logs.
import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { FakeOpenAi } from '../server/src/bench/fake-openai.js';
import { useRedTeam } from './support/red-team.js';
import { settledLogs, type ServerProcess } from './support/server.js';

const LOCAL = 'red.sixteenb.victim';
const DOMAIN = 'corpsixteenb.example';
const EMAIL = `${LOCAL}@${DOMAIN}`;

let veil: ServerProcess;
let fake: FakeOpenAi;
let client: OpenAI;
useRedTeam((team) => ({ veil, fake, client } = team));

/** A streamed answer through the official client: the content and each tool call's arguments, joined. */
async function streamed(): Promise<{ content: string; args: string[] }> {
  const stream = await client.chat.completions.create({ model: 'fake-model', stream: true, messages: [{ role: 'user', content: `Mail ${EMAIL} please.` }] });
  let content = '';
  const args: string[] = [];
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta;
    content += delta?.content ?? '';
    for (const call of delta?.tool_calls ?? []) args[call.index] = (args[call.index] ?? '') + (call.function?.arguments ?? '');
  }
  return { content, args };
}

describe('red team 16b: a value split across two streamed members', () => {
  it('content, then the arguments: the piece in the arguments is masked, at every chunk size', { timeout: 120_000 }, async () => {
    for (const size of [1, 4, 64]) {
      fake.reply = () => ({ content: `Write to ${LOCAL}`, toolCalls: [{ id: 'call_1', name: 'send_mail', arguments: JSON.stringify({ to: `@${DOMAIN}`, n: 2 }) }], chunkSizes: [size] });
      const answer = await streamed();
      expect(answer.args[0], `size ${size}`).toBe('{"to":"[REDACTED:email]","n":2}');
    }
  });

  it('two tool calls\' arguments: the piece in the second call is masked', { timeout: 120_000 }, async () => {
    fake.reply = () => ({
      content: null,
      toolCalls: [
        { id: 'call_1', name: 'lookup', arguments: JSON.stringify({ user: LOCAL }) },
        { id: 'call_2', name: 'send_mail', arguments: JSON.stringify({ host: `@${DOMAIN}` }) },
      ],
      chunkSizes: [3],
    });
    const answer = await streamed();
    expect(answer.args[1]).toBe('{"host":"[REDACTED:email]"}');
  });

  it('ordinary members stay as written', { timeout: 120_000 }, async () => {
    fake.reply = () => ({ content: 'I will write to the team.', toolCalls: [{ id: 'call_1', name: 'send_mail', arguments: JSON.stringify({ to: 'team', subject: 'victim notes' }) }], chunkSizes: [2] });
    const answer = await streamed();
    expect(answer).toEqual({ content: 'I will write to the team.', args: ['{"to":"team","subject":"victim notes"}'] });
  });

  it('logs no probed value', { timeout: 120_000 }, async () => {
    const logs = await settledLogs(veil);
    for (const value of [EMAIL, DOMAIN]) expect(logs).not.toContain(value);
  });
});
