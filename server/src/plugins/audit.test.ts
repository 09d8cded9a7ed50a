// The audit trail over HTTP (interface.md 6.1, 6.2; threats.md 17, 18, 22): one event per
// request to every audited route, failures included (auth, policy denials, validation); the
// events carry no values; the file sink's chain verifies after real traffic; strict mode
// answers 503 VEIL_AUDIT_UNAVAILABLE when an event cannot be recorded and refuses before the
// handler while the sink is unhealthy (no mutation happens); /readyz and /v1/health follow the
// sink's health.
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEvent } from '../audit/event.js';
import type { AuditSink } from '../audit/sink.js';
import { FileAuditSink, nodeAuditFs, type AuditFileSystem } from '../audit/file-sink.js';
import { AUDIT_TEST_KEY, faultyFs, readAudit, tempDir } from '../audit/testing.js';
import { verifyAuditFile } from '../audit/verify.js';
import { apiKeyOverrides } from '../../test/support/auth.js';
import { buildTestApp, post, send, type TestApp } from '../../test/support/harness.js';

const POLICIES = fileURLToPath(new URL('../../../policies', import.meta.url));
const HEX_KEY = AUDIT_TEST_KEY.toString('hex');

/** Unique fake values: none may appear in any audit record or log line. */
const CANARY = {
  email: 'zq.canary.audit7731@example.org',
  card: '4111111111111111',
  phone: '+1 415 555 0199',
  trace: 'trace-canary-0f3e9a',
  ssn: '536-22-8140',
};
const canaryPattern = new RegExp([CANARY.email, CANARY.card, '415 555 0199', '4155550199', CANARY.ssn, 'canary.audit7731'].map((value) => value.replace(/[.+]/g, '\\$&')).join('|'));

function fp(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 16);
}

function fileOverrides(path: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { audit: { backend: 'file', path, strict: true, hmac_key: HEX_KEY, ...extra } };
}

function events(path: string): AuditEvent[] {
  return readAudit(path).records.map((record) => record.event);
}

/** A sink whose failures the test controls. */
class ControlledSink implements AuditSink {
  readonly backend = 'test';
  readonly recorded: AuditEvent[] = [];
  failing = false;
  unhealthy = false;
  record(event: AuditEvent): Promise<void> {
    if (this.failing || this.unhealthy) return Promise.reject(new Error('injected audit failure'));
    this.recorded.push(event);
    return Promise.resolve();
  }
  healthy(): boolean {
    return !this.unhealthy;
  }
  probe(): Promise<boolean> {
    return Promise.resolve(!this.unhealthy);
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

describe('audit events on the default log sink', () => {
  it('logs one value-free event per request on the veil.audit logger', async () => {
    const t = await buildTestApp();
    try {
      const response = await post(t.app, '/v1/transform', { input: `mail ${CANARY.email} or call ${CANARY.phone}`, trace_id: CANARY.trace });
      expect(response.status).toBe(200);
      const lines = t.logs.lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.name === 'veil.audit');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        msg: 'audit',
        event_type: 'transform',
        route: 'POST /v1/transform',
        status: 200,
        identity: 'dev',
        tenant_id: null,
        policy: 'default',
        detector_mode: 'builtin',
        prompt_security: false,
        trace_id: fp(CANARY.trace),
        entity_count: 2,
        entities_tokenized: 2,
        entities_blocked: 0,
      });
      expect(lines[0]!.entity_types).toEqual(['email', 'phone']);
      expect(lines[0]!.session_id).toMatch(/^[0-9a-f]{16}$/);
      expect(t.logs.text()).not.toMatch(canaryPattern);
      expect(t.logs.text()).not.toContain(CANARY.trace);
    } finally {
      await t.close();
    }
  });

  it('does not audit probes, successful health reads or unmatched URLs', async () => {
    const t = await buildTestApp();
    try {
      await send(t.app, { method: 'GET', url: '/livez' });
      await send(t.app, { method: 'GET', url: '/readyz' });
      await send(t.app, { method: 'GET', url: '/v1/health' });
      await send(t.app, { method: 'GET', url: '/v1/capabilities' });
      await send(t.app, { method: 'GET', url: '/v1/nothing-here' });
      expect(t.logs.lines.filter((line) => line.includes('"veil.audit"'))).toEqual([]);
    } finally {
      await t.close();
    }
  });
});

describe('the file sink under real traffic on every route', () => {
  let t: TestApp;
  let path: string;
  const status: Record<string, number> = {};
  let transformed: any;

  beforeAll(async () => {
    path = join(tempDir(), 'audit.log');
    t = await buildTestApp({ overrides: { ...fileOverrides(path), policy: { directory: POLICIES } } });
    const text = `Customer ${CANARY.email} paid with ${CANARY.card}, phone ${CANARY.phone}.`;
    const call = async (name: string, url: string, body: unknown): Promise<any> => {
      const response = await post(t.app, url, body);
      status[name] = response.status;
      return response.body;
    };
    transformed = await call('transform', '/v1/transform', { input: text, trace_id: CANARY.trace });
    await call('transform_json', '/v1/transform', { input_json: { customer: CANARY.email } });
    await call('rehydrate', '/v1/rehydrate', { output: `Reply to ${transformed.entities[0].token}`, session_state: transformed.session_state, trace_id: CANARY.trace });
    await call('detect', '/v1/detect', { input: text });
    await call('evaluate', '/v1/evaluate-policy', { entities: [{ type: 'email', value: CANARY.email }, { type: 'custom:ticket_ref', value: CANARY.email }] });
    await call('batch_transform', '/v1/batch/transform', { items: [{ text }, { text: CANARY.email }] });
    await call('batch_detect', '/v1/batch/detect', { items: [{ text }] });
    await call('revoke', '/v1/revoke', { entity_type: 'email', value: CANARY.email });
    await call('revoke_bulk', '/v1/revoke/bulk', { entities: [{ entity_type: 'credit_card', value: CANARY.card }] });
    status.count = (await send(t.app, { method: 'GET', url: '/v1/revocations/count' })).status;
    await call('session_status', '/v1/sessions/status', { session_state: transformed.session_state });
    await call('entity_type', '/v1/entity-types', { name: 'custom:ticket' });
    await call('pattern', '/v1/patterns', { entity_type: 'ticket', pattern: 'TCK-[0-9]{6}', sample: `TCK-123456 ${CANARY.email}` });
    // Failures: validation (a canary in an unknown field), a policy denial, a tampered session.
    await call('invalid', '/v1/transform', { input: CANARY.email, bogus_field: CANARY.email });
    await call('denied', '/v1/transform', { input: `SSN ${CANARY.ssn}`, policy: 'support-desk' });
    await call('expired', '/v1/rehydrate', { output: 'x', session_state: `${transformed.session_state.slice(0, -4)}AAAA` });
    status.delete = (await send(t.app, { method: 'DELETE', url: '/v1/sessions', body: { session_state: transformed.session_state } })).status;
    // Streams: recorded before the first frame.
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    const stream = await fetch(`${base}/v1/transform/stream`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: text }) });
    status.transform_stream = stream.status;
    const streamText = await stream.text();
    const last = JSON.parse(streamText.trim().split('\n\n').at(-1)!.replace(/^data: /, '')) as { session_state: string };
    const rehydrateStream = await fetch(`${base}/v1/rehydrate/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ output: `Hello ${transformed.entities[0].token}`, session_state: last.session_state }),
    });
    status.rehydrate_stream = rehydrateStream.status;
    await rehydrateStream.text();
    await t.close();
  });
  afterAll(async () => {
    await t.close();
  });

  it('answered every request as expected', () => {
    expect(status).toMatchObject({
      transform: 200,
      transform_json: 200,
      rehydrate: 200,
      detect: 200,
      evaluate: 200,
      batch_transform: 200,
      batch_detect: 200,
      revoke: 200,
      revoke_bulk: 200,
      count: 200,
      session_status: 200,
      entity_type: 200,
      pattern: 200,
      invalid: 400,
      denied: 403,
      expired: 410,
      delete: 200,
      transform_stream: 200,
      rehydrate_stream: 200,
    });
  });

  it('recorded one event per request (two per completed stream) in a chain that verifies', async () => {
    const types = events(path).map((event) => event.event_type);
    expect(types).toEqual([
      'audit_started',
      'transform',
      'transform',
      'rehydrate',
      'detect',
      'evaluate_policy',
      'batch_transform',
      'batch_detect',
      // Strict mode: a mutation records its intent before it is applied, then its outcome.
      'revoke',
      'revoke',
      'revoke_bulk',
      'revoke_bulk',
      'revocations_count',
      'session_status',
      'entity_type_validate',
      'pattern_validate',
      'transform',
      'policy_denied',
      'rehydrate',
      'session_delete',
      'session_delete',
      // A stream records its start (before the first byte) and, when it ran to its end, a
      // completion event carrying what streaming found.
      'transform_stream',
      'transform_stream',
      'rehydrate_stream',
      'rehydrate_stream',
    ]);
    const revokes = events(path).filter((event) => event.event_type === 'revoke');
    expect(revokes.map((event) => [event.phase, event.status])).toEqual([
      ['intent', undefined],
      [undefined, 200],
    ]);
    expect(revokes[1]!.request_id).toBe(revokes[0]!.request_id);
    const streams = events(path).filter((event) => event.event_type === 'rehydrate_stream');
    expect(streams.map((event) => event.phase)).toEqual([undefined, 'completed']);
    expect(streams[1]).toMatchObject({ request_id: streams[0]!.request_id, output_guard: false, status: 200 });
    expect(await verifyAuditFile(path, AUDIT_TEST_KEY)).toMatchObject({ ok: true, records: types.length });
  });

  it('fills the fields of interface.md 6.1', () => {
    const all = events(path);
    const [transform, , rehydrate] = all.slice(1);
    expect(transform).toMatchObject({
      event_type: 'transform',
      tenant_id: null,
      identity: 'dev',
      policy: 'default',
      entity_types: ['credit_card', 'email', 'phone'],
      entity_count: 3,
      entities_tokenized: 3,
      entities_blocked: 0,
      detector_mode: 'builtin',
      prompt_security: false,
      trace_id: fp(CANARY.trace),
      status: 200,
    });
    expect(transform!.duration_ms).toBeGreaterThan(0);
    expect(transform!.request_id).toMatch(/^[0-9a-f-]{36}$/);
    // The session fingerprint correlates the transform with its rehydrate, status and delete.
    expect(transform!.session_id).toMatch(/^[0-9a-f]{16}$/);
    expect(rehydrate).toMatchObject({ event_type: 'rehydrate', session_id: transform!.session_id, policy: 'default', entity_count: 1, output_guard: false, trace_id: fp(CANARY.trace) });
    expect(all.find((event) => event.event_type === 'session_status')!.session_id).toBe(transform!.session_id);
    expect(all.find((event) => event.event_type === 'session_delete')!.session_id).toBe(transform!.session_id);
    expect(all.find((event) => event.event_type === 'batch_transform')).toMatchObject({ item_count: 2, items_failed: 0, entity_count: 4 });
    expect(all.find((event) => event.event_type === 'revoke_bulk')).toMatchObject({ entity_types: ['credit_card'], entity_count: 1 });
    // evaluate-policy names types, never values (a type that is not one is refused: routes/policy.ts).
    expect(all.find((event) => event.event_type === 'evaluate_policy')).toMatchObject({ entity_types: ['custom:ticket_ref', 'email'], entity_count: 2 });
  });

  it('records failures with their code and message, security events by name', () => {
    const all = events(path);
    expect(all.find((event) => event.event_type === 'policy_denied')).toMatchObject({
      failure_code: 'VEIL_POLICY_DENIED',
      status: 403,
      policy: 'support-desk',
      route: 'POST /v1/transform',
    });
    expect(all.find((event) => event.failure_code === 'VEIL_VALIDATION_FAILED')).toMatchObject({ event_type: 'transform', status: 400, failure_reason: 'bogus_field: unknown field' });
    expect(all.find((event) => event.failure_code === 'VEIL_SESSION_EXPIRED')).toMatchObject({ event_type: 'rehydrate', status: 410 });
  });

  it('holds no value, raw session id or raw trace id (canary scan of the file and the logs)', () => {
    const raw = readFileSync(path, 'utf8');
    expect(raw).not.toMatch(canaryPattern);
    expect(raw).not.toContain(CANARY.trace);
    expect(raw).not.toContain(transformed.session_state.slice(10, 40));
    expect(t.logs.text()).not.toMatch(canaryPattern);
  });
});

describe('strict mode', () => {
  async function strictApp(sink: ControlledSink, strict = true): Promise<TestApp> {
    return buildTestApp({ overrides: { audit: { strict } }, mutateDeps: (deps) => ({ ...deps, audit: sink }) });
  }

  it('answers 503 VEIL_AUDIT_UNAVAILABLE, without the result, when the event cannot be recorded', async () => {
    const sink = new ControlledSink();
    const t = await strictApp(sink);
    try {
      sink.failing = true;
      const response = await t.app.inject({
        method: 'POST',
        url: '/v1/transform',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'audit-retry-1' },
        payload: { input: `mail ${CANARY.email}` },
      });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual({ code: 'VEIL_AUDIT_UNAVAILABLE', error: 'audit trail unavailable', request_id: expect.any(String) });
      expect(response.body).not.toContain('safe_text');
      expect(t.logs.text()).toMatch(/"error_code":"VEIL_AUDIT_UNAVAILABLE"/);
      // The refusal released the idempotency key: the retry runs (and is audited), not replayed.
      sink.failing = false;
      const retry = await t.app.inject({
        method: 'POST',
        url: '/v1/transform',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'audit-retry-1' },
        payload: { input: `mail ${CANARY.email}` },
      });
      expect(retry.statusCode).toBe(200);
      expect(retry.headers['idempotency-replayed']).toBeUndefined();
      expect(sink.recorded.map((event) => event.event_type)).toEqual(['transform']);
      // A replay of the stored result is audited as such.
      const replay = await t.app.inject({
        method: 'POST',
        url: '/v1/transform',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'audit-retry-1' },
        payload: { input: `mail ${CANARY.email}` },
      });
      expect(replay.headers['idempotency-replayed']).toBe('true');
      expect(sink.recorded.at(-1)).toMatchObject({ event_type: 'transform', idempotency_replayed: true, status: 200 });
    } finally {
      await t.close();
    }
  });

  it('refuses before the handler while the sink is unhealthy: no mutation, /readyz not ready, health says why', async () => {
    const sink = new ControlledSink();
    const t = await strictApp(sink);
    try {
      sink.unhealthy = true;
      const refused = await post(t.app, '/v1/revoke', { entity_type: 'email', value: CANARY.email });
      expect(refused.status).toBe(503);
      expect(refused.body.code).toBe('VEIL_AUDIT_UNAVAILABLE');
      expect((await send(t.app, { method: 'GET', url: '/readyz' })).status).toBe(503);
      const health = await send(t.app, { method: 'GET', url: '/v1/health' });
      expect(health.status).toBe(200);
      expect(health.body.status).toBe('unhealthy');
      expect(health.body.components.audit).toEqual({ status: 'unhealthy', message: 'test, strict: cannot record events' });
      // Streams are refused the same way, as JSON before any frame.
      const stream = await post(t.app, '/v1/transform/stream', { input: CANARY.email });
      expect(stream.status).toBe(503);

      sink.unhealthy = false;
      expect((await send(t.app, { method: 'GET', url: '/readyz' })).status).toBe(200);
      // The revoke never ran: nothing was stored.
      const count = await send(t.app, { method: 'GET', url: '/v1/revocations/count' });
      expect(count.body.count).toBe(0);
      expect(sink.recorded.map((event) => event.event_type)).toEqual(['revocations_count']);
    } finally {
      await t.close();
    }
  });

  it('is write-ahead for mutations: a sink that cannot write refuses them and nothing is applied', async () => {
    const sink = new ControlledSink();
    const t = await strictApp(sink);
    try {
      const made = await post(t.app, '/v1/transform', { input: `mail ${CANARY.email}` });
      const ingested = await post(t.app, '/v1/rag/ingest', { text: `Contact ${CANARY.email} about the order.` });
      // The sink still says healthy (nothing has failed yet), so onRequest lets them through;
      // every write now fails.
      sink.failing = true;
      const refused = [
        await post(t.app, '/v1/revoke', { entity_type: 'email', value: CANARY.email }),
        await post(t.app, '/v1/revoke/bulk', { entities: [{ entity_type: 'email', value: CANARY.email }] }),
        await send(t.app, { method: 'DELETE', url: '/v1/sessions', body: { session_state: made.body.session_state } }),
        await post(t.app, '/v1/rag/delete', { session_state: ingested.body.session_state }),
        await post(t.app, '/v1/admin/policy/reload', {}),
      ];
      for (const response of refused) {
        expect(response.status).toBe(503);
        expect(response.body.code).toBe('VEIL_AUDIT_UNAVAILABLE');
      }
      sink.failing = false;
      // Nothing was applied: no revocation, the session and the document still restore.
      expect((await send(t.app, { method: 'GET', url: '/v1/revocations/count' })).body.count).toBe(0);
      const restored = await post(t.app, '/v1/rehydrate', { output: made.body.safe_text, session_state: made.body.session_state });
      expect(restored.body.restored_text).toBe(`mail ${CANARY.email}`);
      expect((await post(t.app, '/v1/sessions/status', { session_state: ingested.body.session_state })).status).toBe(200);

      // With a working sink the intent is recorded before the outcome.
      sink.recorded.length = 0;
      expect((await post(t.app, '/v1/revoke', { entity_type: 'email', value: CANARY.email })).status).toBe(200);
      expect(sink.recorded.map((event) => [event.event_type, event.phase ?? null, event.status ?? null])).toEqual([
        ['revoke', 'intent', null],
        ['revoke', null, 200],
      ]);
    } finally {
      await t.close();
    }
  });

  it('with the real file sink: a revoke whose intent hits a failing disk is refused and not applied', async () => {
    const { fs, faults } = faultyFs();
    const sink = await FileAuditSink.open({ path: join(tempDir(), 'audit.log'), key: AUDIT_TEST_KEY, fs, probeIntervalMs: 0 });
    const t = await buildTestApp({ overrides: { audit: { strict: true } }, mutateDeps: (deps) => ({ ...deps, audit: sink }) });
    try {
      // The next write is torn by ENOSPC: the first the revoke makes is its intent record.
      faults.failWrites = 1;
      faults.tornBytes = 7;
      const refused = await post(t.app, '/v1/revoke', { entity_type: 'email', value: CANARY.email });
      expect(refused.status).toBe(503);
      expect(refused.body.code).toBe('VEIL_AUDIT_UNAVAILABLE');
      expect((await send(t.app, { method: 'GET', url: '/v1/revocations/count' })).body.count).toBe(0);
    } finally {
      await t.close();
      await sink.close();
    }
  });

  it('with the real file sink: an erase is answered only after its intent and its outcome are fsynced', async () => {
    // Every fdatasync of the audit file waits until the test releases it.
    const held: (() => void)[] = [];
    let holding = false;
    let onHeld: (() => void) | undefined;
    const fs: AuditFileSystem = {
      ...nodeAuditFs,
      async openAppend(file) {
        const real = await nodeAuditFs.openAppend(file);
        return {
          ...real,
          async sync() {
            if (holding) {
              await new Promise<void>((resolve) => {
                held.push(resolve);
                onHeld?.();
              });
            }
            await real.sync();
          },
        };
      },
    };
    const heldSync = (count: number): Promise<void> =>
      new Promise((resolve) => {
        onHeld = () => {
          if (held.length >= count) resolve();
        };
        onHeld();
      });
    const turns = async (count: number): Promise<void> => {
      for (let index = 0; index < count; index += 1) await new Promise((resolve) => setImmediate(resolve));
    };
    const path = join(tempDir(), 'audit.log');
    const sink = await FileAuditSink.open({ path, key: AUDIT_TEST_KEY, fs });
    const t = await buildTestApp({ overrides: { audit: { strict: true } }, mutateDeps: (deps) => ({ ...deps, audit: sink }) });
    try {
      const made = await post(t.app, '/v1/transform', { input: `mail ${CANARY.email}` });
      holding = true;
      let answered = false;
      const erase = send(t.app, { method: 'DELETE', url: '/v1/sessions', body: { session_state: made.body.session_state } }).then((response) => {
        answered = true;
        return response;
      });
      // The intent record is written and waits for its fsync: the erase has not run, nothing is answered.
      await heldSync(1);
      await turns(20);
      expect(answered).toBe(false);
      expect(events(path).at(-1)).toMatchObject({ event_type: 'session_delete', phase: 'intent' });
      held[0]!();
      // The outcome record waits for its fsync: still no answer.
      await heldSync(2);
      await turns(20);
      expect(answered).toBe(false);
      expect(events(path).at(-1)).toMatchObject({ event_type: 'session_delete', status: 200 });
      held[1]!();
      holding = false;
      expect((await erase).status).toBe(200);
      expect(await verifyAuditFile(path, AUDIT_TEST_KEY)).toMatchObject({ ok: true });
    } finally {
      await t.close();
      await sink.close();
    }
  });

  it('a stream whose event cannot be recorded is a JSON 503, not a stream', async () => {
    const sink = new ControlledSink();
    const t = await strictApp(sink);
    try {
      sink.failing = true;
      const response = await post(t.app, '/v1/transform/stream', { input: CANARY.email });
      expect(response.status).toBe(503);
      expect(response.body.code).toBe('VEIL_AUDIT_UNAVAILABLE');
    } finally {
      await t.close();
    }
  });

  it('without strict, a failing sink loses the event but not the request (fail-open, logged)', async () => {
    const sink = new ControlledSink();
    const t = await strictApp(sink, false);
    try {
      sink.failing = true;
      sink.unhealthy = true;
      const response = await post(t.app, '/v1/transform', { input: CANARY.email });
      expect(response.status).toBe(200);
      expect(t.logs.text()).toMatch(/audit_not_recorded/);
      expect((await send(t.app, { method: 'GET', url: '/v1/health' })).body.components.audit.status).toBe('degraded');
    } finally {
      await t.close();
    }
  });

  it('with the real file sink: the audit directory removed turns requests into 503 and /readyz not ready', async () => {
    const directory = tempDir();
    const t = await buildTestApp({ overrides: fileOverrides(join(directory, 'audit.log')) });
    try {
      expect((await post(t.app, '/v1/transform', { input: CANARY.email })).status).toBe(200);
      rmSync(directory, { recursive: true, force: true });
      const failed = await post(t.app, '/v1/transform', { input: CANARY.email });
      expect(failed.status).toBe(503);
      expect(failed.body.code).toBe('VEIL_AUDIT_UNAVAILABLE');
      expect((await send(t.app, { method: 'GET', url: '/readyz' })).status).toBe(503);
      expect((await post(t.app, '/v1/revoke', { entity_type: 'email', value: CANARY.email })).status).toBe(503);
    } finally {
      await t.close();
    }
  });
});

describe('streams and worker-thread paths', () => {
  it('records a stream at its start, and a follow-up event when it fails midway', async () => {
    const sink = new ControlledSink();
    const t = await buildTestApp({ mutateDeps: (deps) => ({ ...deps, audit: sink }) });
    try {
      const transformed = await post(t.app, '/v1/transform', { input: `mail ${CANARY.email}` });
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
      const lines = [JSON.stringify({ session_state: transformed.body.session_state, trace_id: CANARY.trace }), JSON.stringify({ delta: 'Hello ' }), '{"not_a_delta": 1}'];
      const response = await fetch(`${base}/v1/rehydrate/stream`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: `${lines.join('\n')}\n` });
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('"complete":true');
      await new Promise((resolve) => setTimeout(resolve, 20));
      const streamed = sink.recorded.filter((event) => event.event_type === 'rehydrate_stream');
      expect(streamed).toHaveLength(2);
      expect(streamed[0]).toMatchObject({ status: 200, session_id: sink.recorded[0]!.session_id, trace_id: fp(CANARY.trace), output_guard: false });
      expect(streamed[0]!.failure_code).toBeUndefined();
      expect(streamed[1]).toMatchObject({ phase: 'stream', failure_code: 'VEIL_VALIDATION_FAILED', request_id: streamed[0]!.request_id });
    } finally {
      await t.close();
    }
  });

  it('records what a completed stream found: the output guard firing on a later frame', async () => {
    const sink = new ControlledSink();
    const t = await buildTestApp({ mutateDeps: (deps) => ({ ...deps, audit: sink }) });
    try {
      const transformed = await post(t.app, '/v1/transform', { input: `mail ${CANARY.email}` });
      const token = transformed.body.entities[0].token as string;
      // ndjson deltas: the raw card arrives after the stream (and its start event) began.
      const lines = [
        JSON.stringify({ session_state: transformed.body.session_state }),
        JSON.stringify({ delta: `Write to ${token}. ` }),
        JSON.stringify({ delta: `The model also wrote ${CANARY.card.slice(0, 8)}` }),
        JSON.stringify({ delta: `${CANARY.card.slice(8)} by itself.` }),
      ];
      const response = await t.app.inject({ method: 'POST', url: '/v1/rehydrate/stream', headers: { 'content-type': 'application/x-ndjson' }, payload: `${lines.join('\n')}\n` });
      expect(response.statusCode).toBe(200);
      expect(response.body).not.toContain(CANARY.card);
      const streamed = sink.recorded.filter((event) => event.event_type === 'rehydrate_stream');
      expect(streamed.map((event) => [event.phase, event.output_guard])).toEqual([
        [undefined, false],
        ['completed', true],
      ]);
      expect(JSON.stringify(sink.recorded)).not.toContain(CANARY.card);
    } finally {
      await t.close();
    }
  });

  it('takes the facts of transforms and rehydrates run on worker threads', async () => {
    const sink = new ControlledSink();
    const t = await buildTestApp({ overrides: { transform: { offload_threshold_bytes: 8 } }, mutateDeps: (deps) => ({ ...deps, audit: sink }) });
    try {
      const transformed = await post(t.app, '/v1/transform', { input: `mail ${CANARY.email} and ${CANARY.card}` });
      expect(transformed.status).toBe(200);
      const token = transformed.body.entities[0].token as string;
      expect((await post(t.app, '/v1/rehydrate', { output: `Hello ${token} and ${token}`, session_state: transformed.body.session_state })).status).toBe(200);
      const [transform, rehydrate] = sink.recorded;
      expect(transform).toMatchObject({ event_type: 'transform', policy: 'default', entity_types: ['credit_card', 'email'], entity_count: 2, entities_tokenized: 2 });
      expect(rehydrate).toMatchObject({ event_type: 'rehydrate', policy: 'default', session_id: transform!.session_id, entity_count: 2 });
    } finally {
      await t.close();
    }
  });
});

describe('with authentication', () => {
  it('audits failed authentication without an identity, and encodes hostile identities (threat 18)', async () => {
    const path = join(tempDir(), 'audit.log');
    const hostile = 'ops\r\n{"event_type":"forged"}\u001b[2J\u2028x';
    const t = await buildTestApp({
      overrides: {
        ...apiKeyOverrides([{ key: 'audit-test-key-0123456789abcdef', identity: hostile, tenant_id: 'tenant-a', scopes: ['transform'] }]),
        ...fileOverrides(path),
      },
    });
    try {
      expect((await post(t.app, '/v1/transform', { input: CANARY.email })).status).toBe(401);
      expect((await post(t.app, '/v1/transform', { input: CANARY.email }, { 'x-api-key': 'wrong-key-0123456789abcdefgh' })).status).toBe(401);
      expect((await post(t.app, '/v1/detect', { input: CANARY.email }, { 'x-api-key': 'audit-test-key-0123456789abcdef' })).status).toBe(403);
      expect((await post(t.app, '/v1/transform', { input: CANARY.email }, { 'x-api-key': 'audit-test-key-0123456789abcdef' })).status).toBe(200);
    } finally {
      await t.close();
    }
    const all = events(path).slice(1);
    expect(all.map((event) => [event.event_type, event.failure_code])).toEqual([
      ['auth_failed', 'VEIL_AUTH_REQUIRED'],
      ['auth_failed', 'VEIL_AUTH_INVALID'],
      ['scope_denied', 'VEIL_SCOPE_DENIED'],
      ['transform', undefined],
    ]);
    expect(all[0]!.identity).toBeUndefined();
    expect(all[0]!.tenant_id).toBeNull();
    expect(all[3]).toMatchObject({ identity: hostile, tenant_id: 'tenant-a' });
    const raw = readFileSync(path, 'utf8');
    expect(raw.split('\n').filter((line) => line !== '')).toHaveLength(5);
    expect(raw).not.toContain('\u001b');
    expect(raw).not.toContain('\r');
    expect(raw).not.toContain('\u2028');
    expect(raw).not.toContain('audit-test-key');
    expect((await verifyAuditFile(path, AUDIT_TEST_KEY)).ok).toBe(true);
  });
});
