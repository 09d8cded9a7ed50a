// Red-team probes of the restore side, session 15 (wave14/red; docs/api.md "Session 15"), against
// the real `veil serve` process (the red team's local mock upstream only). The model splits a
// session value across two text members of one whole answer: the end of the content and the
// tool-call arguments (through the official client), two strings of an `output_json` document
// (`/v1/rehydrate`), two strings of a JSON file (`/v1/rehydrate/file`). Each member alone holds
// no value; every piece must be masked. At the end no probed value is in the logs.
import { describe, expect, it } from 'vitest';
import type OpenAI from 'openai';
import type { FakeOpenAi } from '../server/src/bench/fake-openai.js';
import { sessionWith, useRedTeam } from './support/red-team.js';
import { postJson, settledLogs, type ServerProcess } from './support/server.js';

const LOCAL = 'red.fifteen.victim';
const DOMAIN = 'corpfifteen.example';
const EMAIL = `${LOCAL}@${DOMAIN}`;

let veil: ServerProcess;
let fake: FakeOpenAi;
let client: OpenAI;
useRedTeam((team) => ({ veil, fake, client } = team));

describe('red team 15: a session value split across two members of one answer', () => {
  it('content ending with the first piece, tool-call arguments with the rest: both masked (whole answer, official client)', { timeout: 120_000 }, async () => {
    fake.reply = () => ({ content: `I will write to ${LOCAL}`, toolCalls: [{ id: 'call_1', name: 'send_mail', arguments: JSON.stringify({ domain: DOMAIN, body: 'hello' }) }] });
    const answer = await client.chat.completions.create({ model: 'fake-model', messages: [{ role: 'user', content: `Mail ${EMAIL} please.` }] });
    const message = answer.choices[0]!.message;
    expect(message.content).toBe('I will write to [REDACTED:email]');
    const args = JSON.parse(message.tool_calls![0]!.type === 'function' ? (message.tool_calls![0] as { function: { arguments: string } }).function.arguments : '{}') as Record<string, string>;
    expect(args).toEqual({ domain: '[REDACTED:email]', body: 'hello' });
  });

  it('two strings of an output_json document, and of a JSON file', { timeout: 120_000 }, async () => {
    const { state } = await sessionWith(veil, EMAIL);
    const json = await postJson(`${veil.url}/v1/rehydrate`, { output_json: { user: LOCAL, host: DOMAIN, note: 'ok' }, session_state: state });
    expect(json.status).toBe(200);
    expect(json.body.restored_json).toEqual({ user: '[REDACTED:email]', host: '[REDACTED:email]', note: 'ok' });
    const form = new FormData();
    form.append('session_state', state);
    form.append('file', new Blob([JSON.stringify({ rows: [[LOCAL, DOMAIN]] })]), 'reply.json');
    const file = await fetch(`${veil.url}/v1/rehydrate/file`, { method: 'POST', body: form });
    expect(file.status).toBe(200);
    expect(JSON.parse(await file.text())).toEqual({ rows: [['[REDACTED:email]', '[REDACTED:email]']] });
  });

  it('leaves two ordinary members of an answer as they are', { timeout: 120_000 }, async () => {
    fake.reply = () => ({ content: 'I will write to the team', toolCalls: [{ id: 'call_2', name: 'send_mail', arguments: JSON.stringify({ domain: 'example.org', body: 'hello' }) }] });
    const answer = await client.chat.completions.create({ model: 'fake-model', messages: [{ role: 'user', content: `Mail ${EMAIL} please.` }] });
    const message = answer.choices[0]!.message;
    expect(message.content).toBe('I will write to the team');
    expect((message.tool_calls![0] as { function: { arguments: string } }).function.arguments).toBe(JSON.stringify({ domain: 'example.org', body: 'hello' }));
  });

  it('logs no probed value', { timeout: 120_000 }, async () => {
    const logs = await settledLogs(veil);
    for (const value of [EMAIL, LOCAL, DOMAIN]) expect(logs).not.toContain(value);
  });
});
