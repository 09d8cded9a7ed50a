// Diagnostics, health, readiness and the operational log lines over HTTP (inject):
// /v1/diagnostics fields (decisions.md section 5 plus the key-ring generation per tenant),
// /v1/health components (interface.md 4.21), /readyz rules (4.26), the *_completed events with
// the trace-id fingerprint, and every error logged exactly once with request_id, code, status
// and detail (6.2), never with a value.
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppDeps } from '../deps.js';
import { buildTestApp, post, type TestApp } from '../../test/support/harness.js';

const EMAIL = 'diag.canary.31@example.org';
const TRACE = 'diag-trace-canary-77';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function get(app: TestApp['app'], url: string): Promise<{ status: number; body: any }> {
  const response = await app.inject({ method: 'GET', url });
  return { status: response.statusCode, body: response.json() };
}

function records(logs: TestApp['logs']): Record<string, unknown>[] {
  return logs.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

const fingerprint = (value: string): string => createHash('sha256').update(value).digest('hex').slice(0, 16);

describe('GET /v1/diagnostics', () => {
  it('reports the configured backends, toggles, policies and the loaded key-ring generation', async () => {
    t = await buildTestApp({ overrides: { rate_limit: { enabled: true }, prompt_security: { enabled: false } } });
    const { status, body } = await get(t.app, '/v1/diagnostics');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      detector_mode: 'builtin',
      session_backend: 'sealed',
      revocation_backend: 'memory',
      idempotency_backend: 'memory',
      default_policy: 'default',
      rate_limit_enabled: true,
      prompt_security_enabled: false,
      output_guard_enabled: true,
      policy_watch_enabled: false,
      last_policy_reload_unix: null,
      version: t.deps.version,
      api_keys: { count: 0, source: 'config' },
      worker: null,
    });
    expect(body.policies).toEqual([{ name: 'default', version: expect.any(String), hash: expect.stringMatching(/^[0-9a-f]{16}$/) }]);
    expect(body.policy_set_hash).toMatch(/^[0-9a-f]{16}$/);
    expect(body.key_rings).toEqual([
      { tenant: null, current_kid: t.deps.reload.keyRingFor(null).currentKid, kids: [t.deps.reload.keyRingFor(null).currentKid], generation: expect.stringMatching(/^[0-9a-f]{16}$/), source: 'config', loaded_at_unix: expect.any(Number) },
    ]);
    // No key material: the ring's secret is the harness's TEST_SECRET.
    expect(JSON.stringify(body)).not.toContain('7f7f7f7f');
  });

  it('changes the generation with the ring, and only then', async () => {
    t = await buildTestApp();
    const one = (await get(t.app, '/v1/diagnostics')).body.key_rings[0].generation;
    await t.close();
    t = await buildTestApp();
    expect((await get(t.app, '/v1/diagnostics')).body.key_rings[0].generation).toBe(one);
    await t.close();
    t = await buildTestApp({ env: { VEIL_SESSION_SECRET: '6e'.repeat(32) } });
    expect((await get(t.app, '/v1/diagnostics')).body.key_rings[0].generation).not.toBe(one);
  });
});

describe('GET /v1/health and /readyz', () => {
  it('reports the detector, session and policies components', async () => {
    t = await buildTestApp();
    const { status, body } = await get(t.app, '/v1/health');
    expect(status).toBe(200);
    expect(body.status).toBe('healthy');
    expect(body.components.detector).toEqual({ status: 'healthy', message: 'builtin_only' });
    expect(body.components.session).toEqual({ status: 'healthy', message: 'sealed' });
    expect(body.components.policies).toEqual({ status: 'healthy', message: "1 policy loaded (default 'default')" });
    expect(body.uptime_seconds).toBeGreaterThanOrEqual(0);
  });

  it('is ready with a policy set and the builtin detector; not ready when the NER sidecar does not answer', async () => {
    t = await buildTestApp();
    expect(await get(t.app, '/readyz')).toEqual({ status: 200, body: { status: 'ready' } });
    expect(await get(t.app, '/livez')).toEqual({ status: 200, body: { status: 'ok' } });
    await t.close();
    // Port 9 (discard) on loopback: nothing answers, so the 2 s readiness check fails.
    t = await buildTestApp({ overrides: { detector: { mode: 'both', advanced_url: 'http://127.0.0.1:9' } } });
    expect(await get(t.app, '/readyz')).toEqual({ status: 503, body: { status: 'not_ready' } });
    // The detector still reports healthy (an optional sidecar degrades coverage only), and says why NER is off.
    expect((await get(t.app, '/v1/health')).body.components.detector).toEqual({
      status: 'healthy',
      message: expect.stringMatching(/^builtin_and_ner; the NER sidecar is not answering: the NER sidecar could not be reached \(\w+\)$/),
    });
    expect((await get(t.app, '/v1/capabilities')).body.ner_active).toBe(false);
  });
});

describe('log events', () => {
  it('transform_completed and rehydrate_completed carry the trace-id fingerprint, never the trace id', async () => {
    t = await buildTestApp();
    const transformed = await post(t.app, '/v1/transform', { input: `mail ${EMAIL}`, trace_id: TRACE });
    await post(t.app, '/v1/rehydrate', { output: transformed.body.entities[0].token, session_state: transformed.body.session_state, trace_id: TRACE });
    const all = records(t.logs);
    expect(all.find((record) => record.event === 'transform_completed')).toMatchObject({ trace_id: fingerprint(TRACE) });
    expect(all.find((record) => record.event === 'rehydrate_completed')).toMatchObject({ trace_id: fingerprint(TRACE) });
    expect(t.logs.text()).not.toContain(TRACE);
    expect(t.logs.text()).not.toContain(EMAIL);
  });

  it('at info a transform and a rehydrate write one line each: their audit event (completion events are debug)', async () => {
    t = await buildTestApp({ logLevel: 'info' });
    const before = t.logs.lines.length;
    const transformed = await post(t.app, '/v1/transform', { input: `mail ${EMAIL}`, trace_id: TRACE });
    await post(t.app, '/v1/rehydrate', { output: transformed.body.entities[0].token, session_state: transformed.body.session_state, trace_id: TRACE });
    await new Promise((resolve) => setImmediate(resolve));
    const all = records(t.logs).slice(before);
    expect(all.map((record) => [record.name, record.event_type])).toEqual([
      ['veil.audit', 'transform'],
      ['veil.audit', 'rehydrate'],
    ]);
    expect(all[0]).toMatchObject({ level: 30, msg: 'audit', audit: true, trace_id: fingerprint(TRACE), entity_count: 1 });
  });

  it('logs each error exactly once at error level with request_id, code, status and detail', async () => {
    t = await buildTestApp();
    const refused = await post(t.app, '/v1/rehydrate', { output: 'x', session_state: 'v1.zz.bad' });
    expect(refused.status).toBe(410);
    const lines = records(t.logs).filter((record) => record.level === 50);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ request_id: refused.body.request_id, error_code: 'VEIL_SESSION_EXPIRED', status: 410, msg: 'request failed' });
    expect(Object.hasOwn(lines[0]!, 'detail')).toBe(true);
  });

  it('logs an internal error once, with its stack frames but not its message', async () => {
    const leaky = `boom ${EMAIL}`;
    t = await buildTestApp({
      mutateDeps: (deps) =>
        Object.defineProperties({}, {
          ...Object.getOwnPropertyDescriptors(deps),
          offload: {
            value: {
              ...deps.offload,
              threshold: deps.offload.threshold,
              detect: () => Promise.reject(new TypeError(leaky)),
              run: (task: Parameters<AppDeps['offload']['run']>[0]) => deps.offload.run(task),
              close: () => deps.offload.close(),
            },
            enumerable: true,
          },
        }) as AppDeps,
    });
    const failed = await post(t.app, '/v1/detect', { input: 'anything' });
    expect(failed.status).toBe(500);
    expect(failed.body).toEqual({ code: 'VEIL_INTERNAL', error: 'internal error', request_id: expect.any(String) });
    const lines = records(t.logs).filter((record) => record.level === 50);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ request_id: failed.body.request_id, error_code: 'VEIL_INTERNAL', status: 500, err: { type: 'TypeError' } });
    expect((lines[0]!.err as { stack: string }).stack).toMatch(/^\s+at /);
    expect(t.logs.text()).not.toContain(EMAIL);
  });
});
