// HTTP tests for the state features on the memory backends: replay protection, revocation,
// session status and invalidation, server-side sessions, idempotent retries, and fail-closed
// behaviour when a store is down.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppStores } from '../deps.js';
import { MemoryIdempotencyStore } from '../stores/memory/index.js';
import { StoreUnavailableError } from '../stores/types.js';
import { buildTestApp, post, type TestApp } from '../../test/support/harness.js';

const EMAIL = 'erase.me@example.com';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t.close();
});

async function transform(app: TestApp, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const response = await app.app.inject({ method: 'POST', url: '/v1/transform', payload: body, headers: { 'content-type': 'application/json', ...headers } });
  return { status: response.statusCode, body: response.json(), headers: response.headers };
}

describe('replay protection', () => {
  it('lets each blob be continued once and refuses the replay', async () => {
    const first = await transform(t, { input: `a ${EMAIL}` });
    const second = await transform(t, { input: 'b', session_state: first.body.session_state });
    expect(second.status).toBe(200);
    const replay = await transform(t, { input: 'c', session_state: first.body.session_state });
    expect(replay.status).toBe(409);
    expect(replay.body.code).toBe('VEIL_SESSION_REPLAY');
    const third = await transform(t, { input: 'd', session_state: second.body.session_state });
    expect(third.status).toBe(200);
  });
});

describe('revocation', () => {
  it('restores [DELETED] for a revoked value in every session, counts scope-locally', async () => {
    const app = await buildTestApp();
    try {
      const one = await transform(app, { input: `mail ${EMAIL}` });
      const two = await transform(app, { input: `again ${EMAIL.toUpperCase()} and keep@example.com` });
      const revoked = await post(app.app, '/v1/revoke', { entity_type: 'email', value: ` ${EMAIL} ` });
      expect(revoked.body).toEqual({ revoked: 1, scope: 'global' });
      const restoredOne = await post(app.app, '/v1/rehydrate', { output: one.body.safe_text, session_state: one.body.session_state });
      expect(restoredOne.body.restored_text).toBe('mail [DELETED]');
      expect(restoredOne.body.tokens_resolved).toBe(1);
      const restoredTwo = await post(app.app, '/v1/rehydrate', { output: two.body.safe_text, session_state: two.body.session_state });
      expect(restoredTwo.body.restored_text).toBe('again [DELETED] and keep@example.com');
      const bulk = await post(app.app, '/v1/revoke/bulk', { entities: [{ entity_type: 'email', value: 'keep@example.com' }, { entity_type: 'email', value: EMAIL }] });
      expect(bulk.body).toEqual({ revoked: 2, scope: 'global' });
      const count = await app.app.inject({ method: 'GET', url: '/v1/revocations/count' });
      expect(count.json()).toEqual({ count: 2, scope: 'global' });
      const unknown = await post(app.app, '/v1/revoke', { entity_type: 'no_such_type', value: 'x' });
      expect(unknown.status).toBe(400);
      expect(JSON.stringify(app.logs.lines)).not.toContain('erase.me');
    } finally {
      await app.close();
    }
  });
});

describe('sessions', () => {
  it('reports a sealed blob as stateless and invalidates it everywhere', async () => {
    const made = await transform(t, { input: `x ${EMAIL} and y@example.com` });
    const status = await post(t.app, '/v1/sessions/status', { session_state: made.body.session_state });
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ state: 'stateless', token_count: 2, counter: 1 });
    expect(status.body.expires_at_unix).toBeGreaterThan(Date.now() / 1000);
    const deleted = await t.app.inject({ method: 'DELETE', url: '/v1/sessions', payload: { session_state: made.body.session_state } });
    expect(deleted.json()).toEqual({ invalidated: true });
    const after = await post(t.app, '/v1/rehydrate', { output: made.body.safe_text, session_state: made.body.session_state });
    expect(after.status).toBe(410);
    expect((await post(t.app, '/v1/sessions/status', { session_state: made.body.session_state })).status).toBe(410);
    expect((await transform(t, { input: 'more', session_state: made.body.session_state })).status).toBe(410);
    expect((await post(t.app, '/v1/sessions/status', {})).status).toBe(400);
  });

  it('keeps sessions server-side with session.backend memory', async () => {
    const app = await buildTestApp({ overrides: { session: { backend: 'memory' } } });
    try {
      const made = await transform(app, { input: `mail ${EMAIL}` });
      expect(made.body.session_state).toBeUndefined();
      expect(made.body.session_id).toMatch(/^[0-9a-f]{32}$/);
      const next = await transform(app, { input: `and ${EMAIL}, b@example.com`, session_id: made.body.session_id });
      expect(next.body.session_id).toBe(made.body.session_id);
      expect(next.body.entities[0].token).toBe(made.body.entities[0].token);
      const restored = await post(app.app, '/v1/rehydrate', { output: next.body.safe_text, session_id: made.body.session_id });
      expect(restored.body.restored_text).toBe(`and ${EMAIL}, b@example.com`);
      const status = await post(app.app, '/v1/sessions/status', { session_id: made.body.session_id });
      expect(status.body).toMatchObject({ state: 'active', session_id: made.body.session_id, token_count: 2, counter: 2 });
      await app.app.inject({ method: 'DELETE', url: '/v1/sessions', payload: { session_id: made.body.session_id } });
      const gone = await post(app.app, '/v1/rehydrate', { output: next.body.safe_text, session_id: made.body.session_id });
      expect(gone.status).toBe(410);
      expect((await post(app.app, '/v1/rehydrate', { output: 'x', session_id: 'f'.repeat(32) })).status).toBe(410);
    } finally {
      await app.close();
    }
  });
});

describe('idempotency', () => {
  it('replays a completed request, rejects reuse with another body and invalid keys', async () => {
    const key = { 'idempotency-key': 'order-42' };
    const first = await transform(t, { input: `mail ${EMAIL}` }, key);
    const again = await transform(t, { input: `mail ${EMAIL}` }, key);
    expect(again.status).toBe(200);
    expect(again.headers['idempotency-replayed']).toBe('true');
    expect(first.headers['idempotency-replayed']).toBeUndefined();
    expect(again.body).toEqual(first.body);
    const reuse = await transform(t, { input: 'other body' }, key);
    expect(reuse.status).toBe(409);
    expect(reuse.body.code).toBe('VEIL_IDEMPOTENCY_KEY_REUSE');
    for (const bad of ['', 'x'.repeat(256), 'clé']) {
      const response = await transform(t, { input: 'x' }, { 'idempotency-key': bad });
      expect(response.status, bad).toBe(400);
      expect(response.body.code).toBe('VEIL_IDEMPOTENCY_KEY_INVALID');
    }
  });

  it('releases the claim after a non-2xx answer so an identical retry runs again', async () => {
    const key = { 'idempotency-key': 'retry-after-error' };
    const failed = await transform(t, { input: 'x', policy: 'missing-policy' }, key);
    expect(failed.status).toBe(400);
    const retried = await transform(t, { input: 'x', policy: 'missing-policy' }, key);
    expect(retried.status).toBe(400);
    expect(retried.body.code).toBe('VEIL_VALIDATION_FAILED');
  });

  it('executes 100 concurrent requests with one key once', async () => {
    const key = { 'idempotency-key': 'burst' };
    const responses = await Promise.all(Array.from({ length: 100 }, () => transform(t, { input: `burst ${EMAIL}` }, key)));
    const ok = responses.filter((response) => response.status === 200);
    const inProgress = responses.filter((response) => response.status === 409 && response.body.code === 'VEIL_IDEMPOTENCY_IN_PROGRESS');
    expect(ok.length + inProgress.length).toBe(100);
    expect(new Set(ok.map((response) => response.body.session_state)).size).toBe(1);
  });

  it('refuses new keys when the store is full, before the request runs', async () => {
    const app = await buildTestApp({ mutateDeps: (deps) => ({ ...deps, stores: { ...deps.stores, idempotency: new MemoryIdempotencyStore({ maxEntries: 1 }) } }) });
    try {
      expect((await transform(app, { input: 'first' }, { 'idempotency-key': 'one' })).status).toBe(200);
      const full = await transform(app, { input: `second ${EMAIL}` }, { 'idempotency-key': 'two' });
      expect(full.status).toBe(503);
      expect(full.body.code).toBe('VEIL_IDEMPOTENCY_STORE_FULL');
      expect(app.logs.text()).not.toContain(EMAIL);
      // Requests without a key are unaffected.
      expect((await transform(app, { input: 'no key' })).status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('answers RESULT_UNAVAILABLE for retries of a response too large to keep', async () => {
    const input = Array.from({ length: 12_000 }, (_, index) => `user${index}@example.com`).join(' ');
    const key = { 'idempotency-key': 'huge' };
    const first = await transform(t, { input }, key);
    expect(first.status).toBe(200);
    const retry = await transform(t, { input }, key);
    expect(retry.status).toBe(409);
    expect(retry.body.code).toBe('VEIL_IDEMPOTENCY_RESULT_UNAVAILABLE');
  });

  it('ignores keys on routes that are not idempotent', async () => {
    const detect = await t.app.inject({ method: 'POST', url: '/v1/detect', payload: { input: 'a' }, headers: { 'content-type': 'application/json', 'idempotency-key': 'k' } });
    expect(detect.headers['idempotency-replayed']).toBeUndefined();
    const detectAgain = await t.app.inject({ method: 'POST', url: '/v1/detect', payload: { input: 'a' }, headers: { 'content-type': 'application/json', 'idempotency-key': 'k' } });
    expect(detectAgain.headers['idempotency-replayed']).toBeUndefined();
  });
});

describe('store outages fail closed', () => {
  const down = (): Promise<never> => Promise.reject(new StoreUnavailableError('test'));
  const done = (): Promise<void> => Promise.resolve();
  it('refuses continuations without the replay store and rehydrates without the revocation store', async () => {
    const app = await buildTestApp({
      mutateDeps: (deps) => {
        const broken: AppStores = {
          ...deps.stores,
          replay: { advance: down, deny: down, isDenied: down, close: done },
          revocation: { add: down, revoked: down, count: down, keyCheck: down, close: done },
          ping: () => Promise.resolve(false),
          close: done,
        };
        return { ...deps, stores: broken };
      },
    });
    try {
      const made = await transform(app, { input: `mail ${EMAIL}` });
      expect(made.status).toBe(200);
      const continued = await transform(app, { input: 'more', session_state: made.body.session_state });
      expect(continued.status).toBe(503);
      expect(continued.body.code).toBe('VEIL_REPLAY_STORE_UNAVAILABLE');
      const restored = await post(app.app, '/v1/rehydrate', { output: made.body.safe_text, session_state: made.body.session_state });
      expect(restored.status).toBe(503);
      expect(JSON.stringify(restored.body)).not.toContain(EMAIL);
      const revoke = await post(app.app, '/v1/revoke', { entity_type: 'email', value: EMAIL });
      expect(revoke.status).toBe(503);
      expect(revoke.body.code).toBe('VEIL_STORE_UNAVAILABLE');
      // A replica whose stores are unreachable is not ready.
      const ready = await app.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toEqual({ status: 'not_ready' });
    } finally {
      await app.close();
    }
  });
});
