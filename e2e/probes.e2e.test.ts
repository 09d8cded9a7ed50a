// Operations surface against the real `veil serve` process (issue 15, item 16): a policy
// reload with nothing to reload (no policy.directory) is not a failure, so /v1/health stays
// healthy; /metrics, /v1/health, /livez and /readyz are never charged to a caller's rate limit;
// CORS exposes every response header a browser client needs, the file routes' X-Veil-* first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderTextPng } from '../server/test/support/documents.js';
import { postJson, startVeil, type ServerProcess } from './support/server.js';

const EMAIL = 'e2e.probes.canary@example.com';

describe('a policy reload with nothing to reload (real process)', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startVeil();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('answers reloaded:false naming the setting and leaves health, diagnostics and metrics as they were', async () => {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const reload = await postJson(`${server.url}/v1/admin/policy/reload`, {});
      expect(reload.status).toBe(200);
      expect(reload.body).toEqual({ reloaded: false, changes: [], errors: [{ file: '(config)', field: 'policy.directory', message: 'is not configured; nothing to reload' }] });
    }
    const health = (await (await fetch(`${server.url}/v1/health`)).json()) as { status: string; components: { policies: { status: string; message: string } } };
    expect(health.status).toBe('healthy');
    expect(health.components.policies.status).toBe('healthy');
    expect(health.components.policies.message).not.toMatch(/reload failed/);
    const diagnostics = (await (await fetch(`${server.url}/v1/diagnostics`)).json()) as { reloads: Record<string, unknown> };
    expect(diagnostics.reloads.policies).toBeNull();
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).not.toMatch(/veil_reloads_total\{[^}]*result="failure"[^}]*\} [1-9]/);
    // The request is audited (the log sink), as a reload that did not fail.
    const audited = server.logs.filter((line) => line.includes('"event_type":"policy_reloaded"'));
    expect(audited).toHaveLength(2);
    for (const line of audited) expect(line).not.toContain('failure_code');
  });
});

describe('monitoring routes and the rate limit (real process)', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    // Three requests, then (practically) no refill: every charged request is visible.
    server = await startVeil({ env: { VEIL_RATE_LIMIT__ENABLED: 'true', VEIL_RATE_LIMIT__BURST_SIZE: '3', VEIL_RATE_LIMIT__REQUESTS_PER_SECOND: '0.0001' } });
  });
  afterAll(async () => {
    await server.stop();
  });

  const monitoring = ['/v1/health', '/metrics', '/livez', '/readyz'];
  const detect = async (): Promise<number> => (await postJson(`${server.url}/v1/detect`, { input: 'nothing here' })).status;

  it('never charges /metrics, /v1/health, /livez or /readyz, before or after the bucket is empty', async () => {
    for (let round = 0; round < 5; round += 1) {
      for (const path of monitoring) expect((await fetch(`${server.url}${path}`)).status, path).toBe(200);
    }
    // The whole burst is still there for the caller's real work...
    for (let index = 0; index < 3; index += 1) expect(await detect()).toBe(200);
    const refused = await fetch(`${server.url}/v1/detect`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"input":"x"}' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^[0-9]+$/);
    // ...and a throttled caller still sees its health and its metrics.
    for (const path of monitoring) expect((await fetch(`${server.url}${path}`)).status, path).toBe(200);
    expect(await (await fetch(`${server.url}/metrics`)).text()).toMatch(/veil_rate_limit_rejections_total 1\b/);
  });
});

describe('CORS exposes the response headers a browser client reads (real process)', () => {
  const ORIGIN = 'http://localhost:5173';
  let server: ServerProcess;
  beforeAll(async () => {
    // Dev mode without an allowlist admits loopback origins (auth/cors.ts).
    server = await startVeil({ env: { VEIL_SESSION_SECRET: '5d'.repeat(32) } });
  });
  afterAll(async () => {
    await server.stop();
  });

  async function upload(path: string, fields: Record<string, string>, field: string, data: Uint8Array, filename: string): Promise<Response> {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    form.append(field, new Blob([data]), filename);
    return fetch(`${server.url}${path}`, { method: 'POST', body: form, headers: { origin: ORIGIN } });
  }

  /** Every non-safelisted header of `response` must be in its Access-Control-Expose-Headers. */
  function expectAllExposed(response: Response): string[] {
    expect(response.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    const exposed = (response.headers.get('access-control-expose-headers') ?? '').split(',').map((name) => name.trim().toLowerCase());
    const own = [...response.headers.keys()].filter((name) => name.startsWith('x-veil-') || ['content-disposition', 'idempotency-replayed', 'retry-after', 'www-authenticate'].includes(name));
    expect(own.length).toBeGreaterThan(0);
    for (const name of own) expect(exposed, name).toContain(name);
    return own;
  }

  it('on /v1/rehydrate/file and /v1/redact/image, every X-Veil-* header and Content-Disposition', async () => {
    const made = await upload('/v1/transform/file', {}, 'file', Buffer.from(`mail ${EMAIL}\n`), 'a.txt');
    expect(made.status).toBe(200);
    const body = (await made.json()) as { safe_text: string; session_state: string };
    const restored = await upload('/v1/rehydrate/file', { session_state: body.session_state }, 'file', Buffer.from(body.safe_text), 'a.txt');
    expect(restored.status).toBe(200);
    expect(expectAllExposed(restored)).toEqual(
      expect.arrayContaining(['content-disposition', 'x-veil-original-format', 'x-veil-tokens-resolved', 'x-veil-tokens-unresolved', 'x-veil-output-guard']),
    );
    const png = await renderTextPng([`Email: ${EMAIL}`]);
    const redacted = await upload('/v1/redact/image', {}, 'image', png, 'shot.png');
    expect(redacted.status).toBe(200);
    expect(expectAllExposed(redacted)).toEqual(expect.arrayContaining(['x-veil-regions-redacted', 'x-veil-entities-redacted']));
  });

  it('on an idempotent replay (Idempotency-Replayed)', async () => {
    const send = () =>
      fetch(`${server.url}/v1/transform`, {
        method: 'POST',
        headers: { origin: ORIGIN, 'content-type': 'application/json', 'idempotency-key': 'cors-replay-1' },
        body: JSON.stringify({ input: `mail ${EMAIL}` }),
      });
    expect((await send()).status).toBe(200);
    const replay = await send();
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(expectAllExposed(replay)).toContain('idempotency-replayed');
  });
});
