// Batch transform against the real `veil serve` process: a shared-mode batch over HTTP whose
// last result's session restores every item, and no value in the process log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startVeil, settledLogs, type ServerProcess } from './support/server.js';

const EMAIL = 'e2e.batch@example.com';
let server: ServerProcess;

beforeAll(async () => {
  server = await startVeil({ env: { VEIL_SESSION_SECRET: '5c'.repeat(32) } });
});
afterAll(async () => {
  await server.stop();
});

describe('POST /v1/batch/transform (real process)', () => {
  it('shares one session across items and restores each with the last state', async () => {
    const response = await postJson(`${server.url}/v1/batch/transform`, {
      session_mode: 'shared',
      items: [{ text: `hello ${EMAIL}` }, { input_type: 'json', input_json: { to: EMAIL } }, { text: 'x', policy: 'missing-policy' }],
    });
    expect(response.status, response.text).toBe(200);
    const [first, second, failed] = response.body.results;
    expect(failed.error).toBeDefined();
    expect(first.session_state).toBeUndefined();
    expect(typeof second.session_state).toBe('string');
    expect(response.text).not.toContain(EMAIL);
    for (const [result, expected] of [
      [first, `hello ${EMAIL}`],
      [second, JSON.stringify({ to: EMAIL })],
    ] as const) {
      const restored = await postJson(`${server.url}/v1/rehydrate`, { output: result.safe_text, session_state: second.session_state });
      expect(restored.status).toBe(200);
      expect(restored.body.restored_text).toBe(expected);
    }
    expect(await settledLogs(server)).not.toContain(EMAIL);
  });
});
