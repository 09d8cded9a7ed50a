// Tenant isolation with real credentials (threats.md item 12): tenant B's key against tenant A's
// sealed blobs and server-held sessions, Idempotency-Keys shared across tenants, revocations per
// tenant partition with scope-local counts, the untenanted global_revoke rule, and caller role and
// purpose taken from the credential, never the body, outside dev mode.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyOverrides } from '../../test/support/auth.js';
import { buildTestApp, post, send, type TestApp } from '../../test/support/harness.js';

const POLICIES = fileURLToPath(new URL('../../../policies', import.meta.url));
const WORK = ['transform', 'rehydrate', 'session', 'revoke'] as const;
const KEYS = {
  a: 'tenant-a-key-0123456789abcdef',
  b: 'tenant-b-key-0123456789abcdef',
  aAdmin: 'tenant-a-admin-0123456789ab',
  bAdmin: 'tenant-b-admin-0123456789ab',
  platformAdmin: 'platform-admin-0123456789ab',
  platformRevoker: 'platform-revoker-0123456789',
  platformGlobal: 'platform-global-0123456789a',
  plain: 'plain-caller-0123456789abcd',
  trainee: 'trainee-caller-0123456789ab',
} as const;
const EMAIL = 'robin.tenant@example.org';
const OTHER = 'sam.shared@example.org';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({
    overrides: {
      ...apiKeyOverrides([
        { key: KEYS.a, identity: 'app-a', tenant_id: 'tenant-a', scopes: [...WORK] },
        { key: KEYS.b, identity: 'app-b', tenant_id: 'tenant-b', scopes: [...WORK] },
        { key: KEYS.aAdmin, identity: 'admin-a', tenant_id: 'tenant-a', scopes: ['admin'] },
        { key: KEYS.bAdmin, identity: 'admin-b', tenant_id: 'tenant-b', scopes: ['admin'] },
        { key: KEYS.platformAdmin, identity: 'platform', scopes: ['admin'] },
        { key: KEYS.platformRevoker, identity: 'platform-revoker', scopes: ['revoke', 'transform', 'rehydrate'] },
        { key: KEYS.platformGlobal, identity: 'platform-global', scopes: ['revoke', 'global_revoke'] },
        { key: KEYS.plain, identity: 'plain', tenant_id: 'tenant-c', scopes: ['transform', 'rehydrate', 'policy'] },
        { key: KEYS.trainee, identity: 'trainee', tenant_id: 'tenant-c', scopes: ['transform', 'rehydrate', 'policy'], role: 'trainee', purpose: 'training' },
      ]),
      session: { backend: 'memory' },
      policy: { directory: POLICIES },
    },
  });
});
afterAll(async () => {
  await t.close();
});

const as = (key: string): Record<string, string> => ({ 'x-api-key': key });

async function transform(key: string, body: Record<string, unknown>): Promise<any> {
  const response = await post(t.app, '/v1/transform', body, as(key));
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

describe('sealed blobs and server-held sessions are bound to their tenant', () => {
  it('refuses tenant B on tenant A sealed blob for rehydrate, sessions/status and DELETE sessions', async () => {
    // The default sealed backend: the blob itself is the session.
    const sealed = await buildTestApp({
      overrides: apiKeyOverrides([
        { key: KEYS.a, identity: 'app-a', tenant_id: 'tenant-a', scopes: [...WORK] },
        { key: KEYS.b, identity: 'app-b', tenant_id: 'tenant-b', scopes: [...WORK] },
      ]),
    });
    try {
      const done = await post(sealed.app, '/v1/transform', { input: `mail ${EMAIL}` }, as(KEYS.a));
      expect(done.body.session_state).toEqual(expect.any(String));
      const handle = { session_state: done.body.session_state as string };
      for (const [method, url, body] of [
        ['POST', '/v1/rehydrate', { output: done.body.safe_text, ...handle }],
        ['POST', '/v1/transform', { input: 'continue', ...handle }],
        ['POST', '/v1/sessions/status', handle],
        ['DELETE', '/v1/sessions', handle],
      ] as const) {
        const response = await send(sealed.app, { method, url, body, headers: as(KEYS.b) });
        expect(response.status, `${method} ${url}`).toBe(410);
        expect(response.body.code).toBe('VEIL_SESSION_EXPIRED');
        expect(JSON.stringify(response.body)).not.toContain(EMAIL);
      }
      // B's DELETE did not deny-list A's session: it still opens for A.
      expect((await post(sealed.app, '/v1/sessions/status', handle, as(KEYS.a))).body.state).toBe('stateless');
      const restored = await post(sealed.app, '/v1/rehydrate', { output: done.body.safe_text, ...handle }, as(KEYS.a));
      expect(restored.body.restored_text).toBe(`mail ${EMAIL}`);
    } finally {
      await sealed.close();
    }
  });

  it('binds server-held sessions (session.backend memory) to the tenant', async () => {
    const held = await transform(KEYS.a, { input: `mail ${EMAIL}` });
    expect(held.session_id).toEqual(expect.any(String));
    expect(held.session_state).toBeUndefined();
    const stolen = await post(t.app, '/v1/rehydrate', { output: held.safe_text, session_id: held.session_id }, as(KEYS.b));
    expect(stolen.status).toBe(410);
    const continued = await post(t.app, '/v1/transform', { input: 'more', session_id: held.session_id }, as(KEYS.b));
    expect(continued.status).toBe(410);
    expect(JSON.stringify(stolen.body) + JSON.stringify(continued.body)).not.toContain(EMAIL);
    const deleted = await send(t.app, { method: 'DELETE', url: '/v1/sessions', body: { session_id: held.session_id }, headers: as(KEYS.b) });
    expect(deleted.status).toBe(410);
    const status = await post(t.app, '/v1/sessions/status', { session_id: held.session_id }, as(KEYS.a));
    expect(status.body.state).toBe('active');
    const own = await send(t.app, { method: 'DELETE', url: '/v1/sessions', body: { session_id: held.session_id }, headers: as(KEYS.a) });
    expect(own.status).toBe(200);
  });

  it('refuses an untenanted caller on a tenant blob and a tenant on an untenanted blob', async () => {
    const tenantBlob = await transform(KEYS.a, { input: `mail ${EMAIL}` });
    const platform = await post(t.app, '/v1/rehydrate', { output: tenantBlob.safe_text, session_id: tenantBlob.session_id }, as(KEYS.platformRevoker));
    expect(platform.status).toBe(410);
    const platformBlob = await transform(KEYS.platformRevoker, { input: `mail ${EMAIL}` });
    const tenant = await post(t.app, '/v1/rehydrate', { output: platformBlob.safe_text, session_id: platformBlob.session_id }, as(KEYS.a));
    expect(tenant.status).toBe(410);
  });
});

describe('idempotency keys are partitioned by tenant', () => {
  it('executes the same key and body once per tenant and never replays another tenant response', async () => {
    const body = { input: `mail ${OTHER}` };
    const call = (key: string) =>
      t.app.inject({ method: 'POST', url: '/v1/transform', headers: { 'content-type': 'application/json', 'idempotency-key': 'shared-key-1', ...as(key) }, payload: body });
    const a1 = await call(KEYS.a);
    const b1 = await call(KEYS.b);
    expect(a1.statusCode).toBe(200);
    expect(b1.statusCode).toBe(200);
    expect(a1.headers['idempotency-replayed']).toBeUndefined();
    expect(b1.headers['idempotency-replayed']).toBeUndefined();
    const aId = a1.json().session_id as string;
    const bId = b1.json().session_id as string;
    expect(bId).not.toBe(aId);
    const a2 = await call(KEYS.a);
    const b2 = await call(KEYS.b);
    expect(a2.headers['idempotency-replayed']).toBe('true');
    expect(b2.headers['idempotency-replayed']).toBe('true');
    expect(a2.json().session_id).toBe(aId);
    expect(b2.json().session_id).toBe(bId);
    // Each tenant's session opens only for that tenant.
    expect((await post(t.app, '/v1/sessions/status', { session_id: bId }, as(KEYS.b))).status).toBe(200);
    expect((await post(t.app, '/v1/sessions/status', { session_id: bId }, as(KEYS.a))).status).toBe(410);
  });
});

describe('revocations are partitioned by tenant', () => {
  const VALUE = 'casey.revoked@example.org';

  async function restoredFor(key: string): Promise<string> {
    const done = await transform(key, { input: `to ${VALUE}` });
    const restored = await post(t.app, '/v1/rehydrate', { output: done.safe_text, session_id: done.session_id }, as(key));
    expect(restored.status).toBe(200);
    return restored.body.restored_text as string;
  }

  async function count(key: string): Promise<{ count: number; scope: string }> {
    const response = await send(t.app, { method: 'GET', url: '/v1/revocations/count', headers: as(key) });
    expect(response.status).toBe(200);
    return response.body;
  }

  it('keeps tenant revocations local and counts scope-locally; a global revocation reaches every tenant', async () => {
    const before = { a: await count(KEYS.aAdmin), b: await count(KEYS.bAdmin), platform: await count(KEYS.platformAdmin) };

    const revoked = await post(t.app, '/v1/revoke', { entity_type: 'email', value: VALUE }, as(KEYS.a));
    expect(revoked.body).toEqual({ revoked: 1, scope: 'tenant' });
    expect(await restoredFor(KEYS.a)).toBe('to [DELETED]');
    expect(await restoredFor(KEYS.b)).toBe(`to ${VALUE}`);
    expect(await count(KEYS.aAdmin)).toEqual({ count: before.a.count + 1, scope: 'tenant' });
    expect(await count(KEYS.bAdmin)).toEqual(before.b);
    expect(await count(KEYS.platformAdmin)).toEqual(before.platform);

    // An untenanted caller with revoke but without global_revoke cannot write the global partition.
    const refused = await post(t.app, '/v1/revoke', { entity_type: 'email', value: VALUE }, as(KEYS.platformRevoker));
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('VEIL_SCOPE_DENIED');
    expect(await restoredFor(KEYS.b)).toBe(`to ${VALUE}`);

    // With global_revoke it can, and the revocation applies to every tenant.
    const global = await post(t.app, '/v1/revoke/bulk', { entities: [{ entity_type: 'email', value: VALUE }] }, as(KEYS.platformGlobal));
    expect(global.body).toEqual({ revoked: 1, scope: 'global' });
    expect(await restoredFor(KEYS.b)).toBe('to [DELETED]');
    expect(await restoredFor(KEYS.platformRevoker)).toBe('to [DELETED]');
    expect(await count(KEYS.platformAdmin)).toEqual({ count: before.platform.count + 1, scope: 'global' });
    // Tenant counts never include the global partition.
    expect(await count(KEYS.bAdmin)).toEqual(before.b);
  });

  it('lets an untenanted admin write global revocations (admin implies global_revoke)', async () => {
    const value = 'drew.platform@example.org';
    const response = await post(t.app, '/v1/revoke', { entity_type: 'email', value }, as(KEYS.platformAdmin));
    expect(response.body).toEqual({ revoked: 1, scope: 'global' });
    const done = await transform(KEYS.a, { input: `to ${value}` });
    const restored = await post(t.app, '/v1/rehydrate', { output: done.safe_text, session_id: done.session_id }, as(KEYS.a));
    expect(restored.body.restored_text).toBe('to [DELETED]');
  });
});

describe('caller role and purpose come from the credential outside dev mode', () => {
  it('ignores body caller fields and applies the key role (override_restore_mode)', async () => {
    // support-desk: trainees see only what kind of value was there (abstract); everyone else
    // gets e-mails in full on user_output.
    const plain = await transform(KEYS.plain, { input: `mail ${EMAIL}`, policy: 'support-desk' });
    const claimed = await post(
      t.app,
      '/v1/rehydrate',
      { output: plain.safe_text, session_id: plain.session_id, context: { caller_role: 'trainee' } },
      as(KEYS.plain),
    );
    expect(claimed.body.restored_text).toBe(`mail ${EMAIL}`);

    const trainee = await transform(KEYS.trainee, { input: `mail ${EMAIL}`, policy: 'support-desk' });
    const escalated = await post(
      t.app,
      '/v1/rehydrate',
      { output: trainee.safe_text, session_id: trainee.session_id, context: { caller_role: 'supervisor', caller_purpose: 'audit' } },
      as(KEYS.trainee),
    );
    expect(escalated.status).toBe(200);
    expect(escalated.body.restored_text).not.toContain(EMAIL);
  });

  it('evaluates policies with the credential role too', async () => {
    const body = { policy: 'support-desk', entities: [{ type: 'email', value: EMAIL }], context: { caller_role: 'trainee' } };
    const plain = await post(t.app, '/v1/evaluate-policy', body, as(KEYS.plain));
    const trainee = await post(t.app, '/v1/evaluate-policy', { ...body, context: { caller_role: 'supervisor', caller_purpose: 'audit' } }, as(KEYS.trainee));
    expect(plain.body.decisions[0].restore_mode).toBe('full');
    expect(trainee.body.decisions[0].restore_mode).toBe('abstract');
  });
});
