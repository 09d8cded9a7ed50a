// JSON and chat input, JSON-safe rehydrate and token repair against the real server process,
// including their error cases, with a scan of the process's logs for the values sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startVeil, settledLogs, type ServerProcess } from './support/server.js';

const EMAIL = 'structured.e2e@example.com';
let server: ServerProcess;
beforeAll(async () => {
  server = await startVeil({ env: { VEIL_SESSION_SECRET: '4d'.repeat(32) } });
});
afterAll(async () => {
  await server.stop();
});

describe('structured input on the real server', () => {
  it('tokenizes a JSON document and restores it with output_json, quotes intact', async () => {
    const document = { to: EMAIL, note: 'say "hi"', count: 2, ok: true };
    const made = await postJson(`${server.url}/v1/transform`, { input_json: document });
    expect(made.status).toBe(200);
    expect(JSON.stringify(made.body.safe_json)).not.toContain(EMAIL);
    expect(made.body.safe_json.count).toBe(2);
    const restored = await postJson(`${server.url}/v1/rehydrate`, { output_json: made.body.safe_json, session_state: made.body.session_state });
    expect(restored.body.restored_json).toEqual(document);
  });

  it('tokenizes chat messages and tool-call arguments; rejects bad ones without echoing values', async () => {
    const made = await postJson(`${server.url}/v1/transform`, {
      input_messages: [
        { role: 'user', content: `mail ${EMAIL}` },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'send', arguments: JSON.stringify({ to: EMAIL }) } }] },
      ],
    });
    expect(made.status).toBe(200);
    expect(JSON.stringify(made.body.safe_messages)).not.toContain(EMAIL);
    const bad = await postJson(`${server.url}/v1/transform`, { input_messages: [{ role: 'user', content: 'x', extra: EMAIL }] });
    expect(bad.status).toBe(400);
    expect(bad.text).not.toContain(EMAIL);
    const both = await postJson(`${server.url}/v1/transform`, { input: 'x', input_json: { a: 1 } });
    expect(both.status).toBe(400);
    let deep: unknown = 'x';
    for (let level = 0; level < 70; level += 1) deep = [deep];
    const tooDeep = await postJson(`${server.url}/v1/transform`, { input_json: deep });
    expect(tooDeep.body.code).toBe('VEIL_PAYLOAD_TOO_LARGE');
  });

  it('repairs mangled tokens but never a changed cap', async () => {
    const made = await postJson(`${server.url}/v1/transform`, { input: `mail ${EMAIL}` });
    const [, id, cap] = /^\{\{email:([a-z]+_\d+):([0-9a-f]{12})\}\}$/.exec(made.body.entities[0].token as string)!;
    const repaired = await postJson(`${server.url}/v1/rehydrate`, { output: `{{ EMAIL : ${id} : ${cap} }}`, session_state: made.body.session_state });
    expect(repaired.body.restored_text).toBe(EMAIL);
    const changed = `${cap!.slice(0, 11)}${cap!.endsWith('0') ? '1' : '0'}`;
    const refused = await postJson(`${server.url}/v1/rehydrate`, { output: `{{email:${id}:${changed}}}`, session_state: made.body.session_state });
    expect(refused.body.tokens_resolved).toBe(0);
    expect(refused.body.restored_text).not.toContain(EMAIL);
  });

  it('never logs the values', async () => {
    expect(await settledLogs(server)).not.toContain(EMAIL);
  });
});
