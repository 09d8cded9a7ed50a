// End to end against the real server process: transform, model-like edits, rehydrate under
// every mode and channel, tampered blobs, wrong caps, malformed bodies with canaries, the CLI,
// and a scan of the process's own log output for any value it was sent.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logsWith, postJson, ROOT, startVeil, VEIL_BIN, type ServerProcess } from './support/server.js';

const SECRET = '5e'.repeat(32);
const CANARY_EMAIL = 'e2e.canary.person@example.com';
const CANARY_IBAN = 'DE89370400440532013000';
const CANARY_PHONE = '+1 415 555 0134';

let server: ServerProcess;
beforeAll(async () => {
  server = await startVeil({ env: { VEIL_SESSION_SECRET: SECRET } });
});
afterAll(async () => {
  await server.stop();
});

describe('veil serve (real process)', () => {
  it('runs the transform -> model -> rehydrate loop', async () => {
    const input = `Hi, I am ${CANARY_EMAIL}, IBAN ${CANARY_IBAN}, call ${CANARY_PHONE}.`;
    const transformed = await postJson(`${server.url}/v1/transform`, { input });
    expect(transformed.status).toBe(200);
    const safe: string = transformed.body.safe_text;
    for (const value of [CANARY_EMAIL, CANARY_IBAN, '555 0134']) expect(safe).not.toContain(value);
    const tokens: string[] = transformed.body.entities.map((entity: any) => entity.token);
    expect(tokens.length).toBe(3);

    // A model that reorders, repeats and wraps tokens in markdown.
    const modelOutput = `**Summary**: ${tokens[2]} belongs to ${tokens[0]}.\n- account: \`${tokens[1]}\`\n- again ${tokens[0]}`;
    const restored = await postJson(`${server.url}/v1/rehydrate`, { output: modelOutput, session_state: transformed.body.session_state });
    expect(restored.status).toBe(200);
    expect(restored.body.restored_text).toBe(
      `**Summary**: ${CANARY_PHONE} belongs to ${CANARY_EMAIL}.\n- account: \`${CANARY_IBAN}\`\n- again ${CANARY_EMAIL}`,
    );
    expect(restored.body.tokens_resolved).toBe(4);

    for (const mode of ['partial', 'masked', 'abstract', 'none']) {
      const response = await postJson(`${server.url}/v1/rehydrate`, { output: safe, session_state: transformed.body.session_state, restore_mode: mode });
      expect(response.status).toBe(200);
      expect(response.body.restored_text).not.toContain(CANARY_EMAIL);
      expect(response.body.restored_text).not.toContain(CANARY_IBAN);
    }
    const formatted = await postJson(`${server.url}/v1/rehydrate`, { output: safe, session_state: transformed.body.session_state, restore_mode: 'formatted' });
    expect(formatted.body.restored_text).toContain(CANARY_EMAIL);

    for (const channel of ['internal_summary', 'customer_email', 'export', 'log_safe', 'my_custom_sink']) {
      const response = await postJson(`${server.url}/v1/rehydrate`, { output: safe, session_state: transformed.body.session_state, output_channel: channel });
      expect(response.status).toBe(200);
      expect(response.body.restored_text).not.toContain(CANARY_IBAN);
    }
    const tool = await postJson(`${server.url}/v1/rehydrate`, { output: safe, session_state: transformed.body.session_state, output_channel: 'tool_payload' });
    expect(tool.body.restored_text).toBe(input);
  });

  it('rejects tampered blobs and wrong caps', async () => {
    const transformed = await postJson(`${server.url}/v1/transform`, { input: `mail ${CANARY_EMAIL}` });
    const blob: string = transformed.body.session_state;
    const middle = Math.floor(blob.length / 2);
    const flipped = blob.slice(0, middle) + (blob[middle] === 'a' ? 'b' : 'a') + blob.slice(middle + 1);
    const tampered = await postJson(`${server.url}/v1/rehydrate`, { output: transformed.body.safe_text, session_state: flipped });
    expect(tampered.status).toBe(410);
    expect(tampered.body.code).toBe('VEIL_SESSION_EXPIRED');
    expect(tampered.text).not.toContain(CANARY_EMAIL);

    const token: string = transformed.body.entities[0].token;
    const wrong = token.replace(/[0-9a-f](\}\})$/, (_match, end: string) => `${token.at(-3) === '0' ? '1' : '0'}${end}`);
    const response = await postJson(`${server.url}/v1/rehydrate`, { output: wrong, session_state: blob });
    expect(response.body.tokens_resolved).toBe(0);
    expect(response.body.restored_text).toBe(wrong);
  });

  it('answers malformed requests with the envelope and never echoes values', async () => {
    const cases: [string, unknown, number][] = [
      ['/v1/transform', `{"input": "${CANARY_EMAIL}"`, 400],
      ['/v1/transform', { input: CANARY_EMAIL, unexpected: CANARY_EMAIL }, 400],
      ['/v1/rehydrate', { output: CANARY_EMAIL, session_state: CANARY_EMAIL }, 410],
      ['/v1/rehydrate', { output: CANARY_EMAIL, session_state: 'x', output_channel: CANARY_EMAIL }, 400],
      ['/v1/detect', { input: CANARY_EMAIL, threshold: CANARY_EMAIL }, 400],
      ['/v1/nowhere', { input: CANARY_EMAIL }, 404],
    ];
    for (const [path, body, status] of cases) {
      const response = await postJson(`${server.url}${path}`, body);
      expect(response.status, path).toBe(status);
      expect(Object.keys(response.body).sort()).toEqual(['code', 'error', 'request_id']);
      expect(response.text).not.toContain('canary');
    }
  });

  it('revokes values, invalidates sessions and replays idempotent requests', async () => {
    const value = 'erase.e2e@example.com';
    const made = await postJson(`${server.url}/v1/transform`, { input: `mail ${value}` }, { 'idempotency-key': 'e2e-1' });
    const replayed = await fetch(`${server.url}/v1/transform`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'e2e-1' },
      body: JSON.stringify({ input: `mail ${value}` }),
    });
    expect(replayed.headers.get('idempotency-replayed')).toBe('true');
    expect(await replayed.json()).toEqual(made.body);

    expect((await postJson(`${server.url}/v1/revoke`, { entity_type: 'email', value })).body).toEqual({ revoked: 1, scope: 'global' });
    const restored = await postJson(`${server.url}/v1/rehydrate`, { output: made.body.safe_text, session_state: made.body.session_state });
    expect(restored.body.restored_text).toBe('mail [DELETED]');
    const count = (await (await fetch(`${server.url}/v1/revocations/count`)).json()) as { count: number };
    expect(count.count).toBeGreaterThanOrEqual(1);

    const status = await postJson(`${server.url}/v1/sessions/status`, { session_state: made.body.session_state });
    expect(status.body.state).toBe('stateless');
    const deleted = await fetch(`${server.url}/v1/sessions`, { method: 'DELETE', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ session_state: made.body.session_state }) });
    expect(await deleted.json()).toEqual({ invalidated: true });
    const after = await postJson(`${server.url}/v1/rehydrate`, { output: made.body.safe_text, session_state: made.body.session_state });
    expect(after.status).toBe(410);
  });

  it('serves probes', async () => {
    expect(await (await fetch(`${server.url}/livez`)).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(`${server.url}/readyz`)).json()).toEqual({ status: 'ready' });
    const health = (await (await fetch(`${server.url}/v1/health`)).json()) as { status: string };
    expect(health.status).toBe('healthy');
  });

  it('keeps every value out of its logs', async () => {
    const logs = await logsWith(server, /request failed/);
    expect(logs).toContain('request failed');
    for (const value of [CANARY_EMAIL, CANARY_IBAN, '555 0134', 'canary']) expect(logs).not.toContain(value);
  });
});

describe('veil command', () => {
  it('keygen prints a 64-hex secret and policy validate checks the shipped policies', () => {
    const keygen = spawnSync(process.execPath, [VEIL_BIN, 'keygen'], { encoding: 'utf8' });
    expect(keygen.status).toBe(0);
    expect(keygen.stdout.trim()).toMatch(/^[0-9a-f]{64}$/);
    const validate = spawnSync(process.execPath, [VEIL_BIN, 'policy', 'validate', `${ROOT}/policies`], { encoding: 'utf8' });
    expect(validate.status, validate.stderr).toBe(0);
    expect(validate.stdout).toMatch(/valid polic/);
  });

  it('refuses to start on an invalid configuration and names the problem, not the secret', () => {
    const result = spawnSync(process.execPath, [VEIL_BIN, 'serve', '--port', '0'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', VEIL_SESSION_SECRET: 'too-short-canary-secret', VEIL_BOGUS: '1' },
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/VEIL_BOGUS|bogus/i);
    expect(result.stderr).not.toContain('too-short-canary-secret');
  });

  it('refuses to start on an invalid policy and names file, line and field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'veil-bad-policy-'));
    writeFileSync(
      join(dir, 'broken.yaml'),
      ['name: broken', 'version: "1"', 'rules:', '  - name: r1', '    match: {}', '    action: tokenize', '    restore_mode: sometimes'].join('\n'),
    );
    const result = spawnSync(process.execPath, [VEIL_BIN, 'serve', '--port', '0'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', VEIL_POLICY__DIRECTORY: dir },
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/broken\.yaml:7: rules\[0\]\.restore_mode/);
    const validate = spawnSync(process.execPath, [VEIL_BIN, 'policy', 'validate', dir], { encoding: 'utf8' });
    expect(validate.status).toBe(1);
    expect(validate.stderr).toMatch(/broken\.yaml:7/);
  });

  it('serves the shipped policy directory', async () => {
    const withPolicies = await startVeil({ env: { VEIL_SESSION_SECRET: SECRET, VEIL_POLICY__DIRECTORY: `${ROOT}/policies` } });
    try {
      const response = await postJson(`${withPolicies.url}/v1/transform`, { input: `mail ${CANARY_EMAIL}` });
      expect(response.status).toBe(200);
      expect(response.body.safe_text).not.toContain(CANARY_EMAIL);
    } finally {
      expect(await withPolicies.stop()).toBe(0);
    }
  });
});
