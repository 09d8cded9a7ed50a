// SSE against the real `veil serve` process: a transform stream's frames and its session feed a
// rehydrate stream whose frames restore the original text; no value in the process log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVeil, settledLogs, type ServerProcess } from './support/server.js';

const EMAIL = 'e2e.stream@example.com';
const INPUT = `First line for ${EMAIL}.\n\nSecond paragraph, same ${EMAIL}. Done.`;
let server: ServerProcess;

beforeAll(async () => {
  server = await startVeil({ env: { VEIL_SESSION_SECRET: '4b'.repeat(32) } });
});
afterAll(async () => {
  await server.stop();
});

async function frames(path: string, body: unknown): Promise<Record<string, any>[]> {
  const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => JSON.parse(block.slice(6)) as Record<string, any>);
}

describe('SSE routes (real process)', () => {
  it('streams a transform and restores it through the rehydrate stream', async () => {
    const transformed = await frames('/v1/transform/stream', { input: INPUT });
    const last = transformed.at(-1)!;
    expect(last.complete).toBe(true);
    const safeText = transformed.slice(0, -1).map((frame) => frame.safe_text as string).join('');
    expect(safeText).not.toContain(EMAIL);
    const restored = await frames('/v1/rehydrate/stream', { output: safeText, session_state: last.session_state });
    expect(restored.at(-1)).toMatchObject({ complete: true, tokens_resolved: 2 });
    expect(restored.slice(0, -1).map((frame) => frame.restored_text as string).join('')).toBe(INPUT);
    expect(await settledLogs(server)).not.toContain(EMAIL);
  });
});
