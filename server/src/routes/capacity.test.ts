// Per-tenant capacity through HTTP (in process, injected clock; issue 16 item 4): a tenant that
// uses up its share of a memory store gets its own 429 VEIL_QUOTA_EXCEEDED with Retry-After while
// another tenant's revoke, idempotent request, continuation and server-side session still
// succeed; memory revocations expire the longest blob lifetime after they were last needed, and
// a blob issued while a revocation is live keeps it live for the blob's whole lifetime.
import { afterEach, describe, expect, it } from 'vitest';
import { apiKeyOverrides } from '../../test/support/auth.js';
import { buildTestApp, post, send, type TestApp } from '../../test/support/harness.js';

const KEY_A = 'capacity-test-tenant-a-0123456789';
const KEY_B = 'capacity-test-tenant-b-0123456789';
const SCOPES = ['transform', 'rehydrate', 'revoke', 'admin'];
const A = { 'x-api-key': KEY_A };
const B = { 'x-api-key': KEY_B };
const TTL = 600;

/**
 * Retry-After names when the earliest record expires, in whole seconds; expiry times are whole
 * seconds too, so a request that straddles a second boundary may see one second less.
 */
function expectRetryAfter(answer: { headers: Record<string, unknown> }, seconds: number): void {
  const value = Number(answer.headers['retry-after']);
  expect(value).toBeGreaterThanOrEqual(seconds - 1);
  expect(value).toBeLessThanOrEqual(seconds);
}
/** session.clock_skew_seconds by default. */
const SKEW = 60;

const apps: TestApp[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function twoTenants(extra: Record<string, unknown> = {}): Promise<TestApp> {
  const base = apiKeyOverrides([
    { key: KEY_A, identity: 'app-a', tenant_id: 'tenant-a', scopes: SCOPES },
    { key: KEY_B, identity: 'app-b', tenant_id: 'tenant-b', scopes: SCOPES },
  ]);
  const app = await buildTestApp({ overrides: { ...base, session: { ttl_seconds: TTL }, ...extra } });
  apps.push(app);
  return app;
}

const revoke = (app: TestApp, value: string, headers: Record<string, string>) => post(app.app, '/v1/revoke', { entity_type: 'email', value }, headers);

describe('per-tenant quotas of the memory stores', () => {
  it('revocations: the full tenant gets 429 with Retry-After, the other tenant revokes', async () => {
    const app = await twoTenants({ storage: { tenant_quotas: { revocations: 3 } } });
    for (const index of [1, 2, 3]) expect((await revoke(app, `a${index}@example.com`, A)).status).toBe(200);
    const refused = await revoke(app, 'a4@example.com', A);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('VEIL_QUOTA_EXCEEDED');
    // The earliest revocation frees room after the longest blob lifetime plus the skew allowance.
    expectRetryAfter(refused, TTL + SKEW);
    expect(JSON.stringify(refused.body)).not.toContain('a4@');
    // Repeating a revocation it holds takes no room; another tenant is not affected at all.
    expect((await revoke(app, 'a1@example.com', A)).status).toBe(200);
    for (const index of [1, 2, 3]) expect((await revoke(app, `b${index}@example.com`, B)).status).toBe(200);
    const count = await send(app.app, { method: 'GET', url: '/v1/revocations/count', headers: A });
    expect(count.body).toEqual({ count: 3, scope: 'tenant' });
    expect(app.logs.text()).not.toContain('a4@example.com');
  });

  it('idempotency records: the full tenant gets 429 with Retry-After, the other tenant goes on', async () => {
    const app = await twoTenants({ storage: { tenant_quotas: { idempotency_records: 2 } }, idempotency: { ttl_seconds: 3600 } });
    const idempotent = (headers: Record<string, string>, key: string, value: string) => revoke(app, value, { ...headers, 'idempotency-key': key });
    expect((await idempotent(A, 'k1', 'x1@example.com')).status).toBe(200);
    expect((await idempotent(A, 'k2', 'x2@example.com')).status).toBe(200);
    const refused = await idempotent(A, 'k3', 'x3@example.com');
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('VEIL_QUOTA_EXCEEDED');
    expectRetryAfter(refused, 3600);
    // Refused before the mutation ran: nothing was revoked.
    expect((await send(app.app, { method: 'GET', url: '/v1/revocations/count', headers: A })).body.count).toBe(2);
    // The tenant's recorded keys still replay; the other tenant claims new ones.
    const replay = await idempotent(A, 'k1', 'x1@example.com');
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotency-replayed']).toBe('true');
    expect((await idempotent(B, 'k1', 'y1@example.com')).status).toBe(200);
    expect((await idempotent(B, 'k3', 'y3@example.com')).status).toBe(200);
    // Once its records expire the tenant has room again.
    app.advance(3600);
    expect((await idempotent(A, 'k3', 'x3@example.com')).status).toBe(200);
  });

  it('server-side sessions and continuations: the full tenant gets 429, the other tenant goes on', async () => {
    const app = await twoTenants({ session: { ttl_seconds: TTL, backend: 'memory' }, storage: { tenant_quotas: { sessions: 2, replay_records: 1 } } });
    const transform = (headers: Record<string, string>, body: Record<string, unknown>) => post(app.app, '/v1/transform', body, headers);
    const first = await transform(A, { input: 'mail one@example.com' });
    expect(first.status).toBe(200);
    expect((await transform(A, { input: 'mail two@example.com' })).status).toBe(200);
    const third = await transform(A, { input: 'mail three@example.com' });
    expect(third.status).toBe(429);
    expect(third.body.code).toBe('VEIL_QUOTA_EXCEEDED');
    expectRetryAfter(third, TTL);
    expect((await transform(B, { input: 'mail b@example.com' })).status).toBe(200);
    // A continuation rewrites its own session (no new room) but records a replay counter: one.
    const continued = await transform(A, { input: 'more', session_id: first.body.session_id });
    expect(continued.status).toBe(200);
    const second = await transform(A, { input: 'mail two@example.com' });
    expect(second.status).toBe(429);
  });
});

describe('memory revocations expire with the longest blob lifetime', () => {
  it('a revocation is forgotten after the lifetime, but every blob that held the value is refused by then', async () => {
    const app = await twoTenants({ storage: { tenant_quotas: { revocations: 1 } } });
    const made = await post(app.app, '/v1/transform', { input: 'mail gone@example.com' }, A);
    expect((await revoke(app, 'gone@example.com', A)).status).toBe(200);
    const restored = await post(app.app, '/v1/rehydrate', { output: made.body.safe_text, session_state: made.body.session_state }, A);
    expect(restored.body.restored_text).toBe('mail [DELETED]');
    app.advance(TTL + SKEW);
    // The blob that held the value is past the longest lifetime: refused, not restored.
    expect((await post(app.app, '/v1/rehydrate', { output: made.body.safe_text, session_state: made.body.session_state }, A)).status).toBe(410);
    // The digest expired, so its room is free again (the quota is one).
    expect((await revoke(app, 'next@example.com', A)).status).toBe(200);
    expect((await send(app.app, { method: 'GET', url: '/v1/revocations/count', headers: A })).body.count).toBe(1);
  });

  it('a blob issued while the revocation is live keeps it live until that blob is refused', async () => {
    const app = await twoTenants();
    const first = await post(app.app, '/v1/transform', { input: 'mail kept@example.com' }, A);
    expect((await revoke(app, 'kept@example.com', A)).status).toBe(200);
    // Just before the revocation would expire, the session is continued: the new blob carries
    // the revoked value and lives a whole lifetime from now.
    app.advance(TTL - 30);
    const later = await post(app.app, '/v1/transform', { input: 'and more', session_state: first.body.session_state }, A);
    expect(later.status).toBe(200);
    // Past the first revocation's own retention (and a write that removes expired digests),
    // the later blob still restores [DELETED].
    app.advance(SKEW + 60);
    expect((await revoke(app, 'unrelated@example.com', A)).status).toBe(200);
    const restored = await post(app.app, '/v1/rehydrate', { output: first.body.safe_text, session_state: later.body.session_state }, A);
    expect(restored.status).toBe(200);
    expect(restored.body.restored_text).toBe('mail [DELETED]');
    // Another tenant's blobs never extend tenant-a's revocations (and B never saw them).
    const other = await post(app.app, '/v1/transform', { input: 'mail kept@example.com' }, B);
    const otherRestored = await post(app.app, '/v1/rehydrate', { output: other.body.safe_text, session_state: other.body.session_state }, B);
    expect(otherRestored.body.restored_text).toBe('mail kept@example.com');
  });
});
