// The red-team suites' setup (e2e/red-team*.e2e.test.ts): the real `veil serve` proxying to a
// local mock of the upstream model only (server/src/bench/fake-openai.ts), and the official
// `openai` client pointed at Veil.
import OpenAI from 'openai';
import { afterAll, beforeAll, expect } from 'vitest';
import { startFakeOpenAi, type FakeOpenAi } from '../../server/src/bench/fake-openai.js';
import { postJson, startVeil, type ServerProcess } from './server.js';

export interface RedTeam {
  readonly fake: FakeOpenAi;
  readonly veil: ServerProcess;
  readonly client: OpenAI;
  stop(): Promise<void>;
}

export async function startRedTeam(): Promise<RedTeam> {
  const fake = await startFakeOpenAi();
  const veil = await startVeil({ env: { VEIL_PROXY__UPSTREAM_URL: fake.url, VEIL_PROXY__UPSTREAM_API_KEY: 'sk-upstream-red-0123456789' } });
  const client = new OpenAI({ baseURL: `${veil.url}/openai/v1`, apiKey: 'not-used-by-veil', maxRetries: 0 });
  return {
    fake,
    veil,
    client,
    stop: async () => {
      await veil.stop();
      await fake.close();
    },
  };
}

/**
 * Start the red team before the suite's tests and stop it after them; `take` receives it once
 * started (the suite keeps `fake`, `veil` and `client` in its own variables).
 */
export function useRedTeam(take: (team: RedTeam) => void): void {
  let team: RedTeam | undefined;
  beforeAll(async () => {
    team = await startRedTeam();
    take(team);
  }, 120_000);
  afterAll(async () => {
    await team?.stop();
  });
}

/** A fresh session holding `email`: its token and state. */
export async function sessionWith(veil: ServerProcess, email: string): Promise<{ token: string; state: string }> {
  const response = await postJson(`${veil.url}/v1/transform`, { input: `Write to ${email}.` });
  expect(response.status).toBe(200);
  return { token: response.body.entities[0].token as string, state: response.body.session_state as string };
}

/**
 * One prompt's answers through the proxy, for the red-team files that probe streamed members:
 * `streamed()` reads it with the official client (the content and each tool call's arguments,
 * joined), `raw(stream)` is the proxy's own answer (status and body text). `team` is read at call
 * time (the suite's variables are set once `useRedTeam` has started).
 */
export function promptAnswers(team: () => { veil: ServerProcess; client: OpenAI }, prompt: string) {
  return {
    streamed: async (): Promise<{ content: string; args: string[] }> => {
      const stream = await team().client.chat.completions.create({ model: 'fake-model', stream: true, messages: [{ role: 'user', content: prompt }] });
      let content = '';
      const args: string[] = [];
      for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta;
        content += delta?.content ?? '';
        for (const call of delta?.tool_calls ?? []) args[call.index] = (args[call.index] ?? '') + (call.function?.arguments ?? '');
      }
      return { content, args };
    },
    raw: async (stream: boolean): Promise<{ status: number; text: string }> => {
      const response = await fetch(`${team().veil.url}/openai/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer not-used-by-veil' },
        body: JSON.stringify({ model: 'fake-model', stream, messages: [{ role: 'user', content: prompt }] }),
      });
      return { status: response.status, text: await response.text() };
    },
  };
}

/** Writers of a mock upstream's SSE chunks with the completion id `id`: a whole event, one choice's delta. */
export function chunkWriters(id: string) {
  const base = { id, object: 'chat.completion.chunk', created: 1, model: 'fake-model' };
  const event = (chunk: Record<string, unknown>): string => `data: ${JSON.stringify({ ...base, ...chunk })}\n\n`;
  const choice = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}): string =>
    event({ choices: [{ index: 0, delta, finish_reason: finish, ...extra }] });
  return { event, choice };
}
