// Scope enforcement generated from the app's own route table (threats.md item 12): every
// registered route x every scope (+ no credential, + a key with no scopes, + an untenanted
// admin) is allowed exactly when its declared scope says so, and every declaration matches
// interface.md section 4. A route added without a scope makes startup fail; one added with a
// scope the spec does not give fails the spec check here. `platform_admin` is interface.md's
// `admin` narrowed to untenanted credentials (docs/auth.md, tenant admins): the tenant-bound
// admin key below is refused there, the untenanted one allowed.
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_SCOPES, type AuthScope } from '../config/schema.js';
import { loadConfig } from '../config/index.js';
import { buildTestApp, send, TEST_SECRET, type TestApp } from '../../test/support/harness.js';
import { apiKeyOverrides } from '../../test/support/auth.js';
import { authenticatedPrincipal, createAuthenticator, registerAuth, routeScopes, type RouteScope } from './index.js';

/** interface.md section 4, the Scope column, for every route the spec lists. */
const SPEC: Readonly<Record<string, RouteScope>> = {
  'POST /v1/transform': 'transform',
  'POST /v1/transform/stream': 'transform',
  'POST /v1/transform/file': 'transform',
  'POST /v1/transform/image': 'transform',
  'POST /v1/redact/image': 'transform',
  'POST /v1/entity-types': 'transform',
  'POST /v1/patterns': 'transform',
  'POST /v1/rehydrate': 'rehydrate',
  'POST /v1/rehydrate/stream': 'rehydrate',
  'POST /v1/rehydrate/file': 'rehydrate',
  'POST /v1/detect': 'detect',
  'POST /v1/evaluate-policy': 'policy',
  'POST /v1/batch/transform': 'batch',
  'POST /v1/batch/detect': 'batch',
  'POST /v1/rag/ingest': 'rag',
  'POST /v1/rag/ingest/batch': 'rag',
  'POST /v1/rag/query': 'rag',
  'POST /v1/rag/context': 'rag',
  'POST /v1/rag/answer': 'rag',
  'POST /v1/rag/delete': 'revoke',
  'POST /v1/revoke': 'revoke',
  'POST /v1/revoke/bulk': 'revoke',
  'GET /v1/revocations/count': 'admin',
  'POST /v1/sessions/status': 'session',
  'DELETE /v1/sessions': 'session',
  'GET /v1/health': 'authenticated',
  'GET /v1/capabilities': 'authenticated',
  'GET /v1/diagnostics': 'admin',
  'GET /metrics': 'platform_admin',
  'POST /v1/admin/policy/validate': 'admin',
  'POST /v1/admin/policy/reload': 'platform_admin',
  // Beyond interface.md: the OpenAI-compatible proxy tokenizes the request and restores the
  // answer, so it needs both scopes (docs/auth.md); embeddings only tokenize.
  'POST /openai/v1/chat/completions': ['transform', 'rehydrate'],
  'POST /openai/v1/embeddings': 'transform',
  'GET /livez': 'public',
  'GET /readyz': 'public',
  // Not in interface.md: the OpenAPI document and its rendered page (routes/openapi.ts), any credential.
  'GET /openapi.json': 'authenticated',
  'GET /openapi.html': 'authenticated',
  // Not an API route: @fastify/cors answers preflights, which carry no credential by design.
  'OPTIONS *': 'public',
};

const keyOf = (name: string): string => `key-${name}-0123456789abcdef`;
const CREDENTIALS: { name: string; scopes: readonly AuthScope[] | undefined; untenanted?: true }[] = [
  ...AUTH_SCOPES.map((scope) => ({ name: scope, scopes: [scope] })),
  // Together they open the proxy route; each alone does not (a route needing two scopes).
  { name: 'transform-rehydrate', scopes: ['transform', 'rehydrate'] },
  { name: 'no-scopes', scopes: undefined },
  { name: 'platform-admin', scopes: ['admin'], untenanted: true },
];

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({
    overrides: apiKeyOverrides(
      CREDENTIALS.map((credential) => ({
        key: keyOf(credential.name),
        identity: `caller-${credential.name}`,
        ...(credential.untenanted === true ? {} : { tenant_id: 'tenant-a' }),
        ...(credential.scopes !== undefined ? { scopes: credential.scopes } : {}),
      })),
    ),
  });
});
afterAll(async () => {
  await t.close();
});

function allowed(scope: RouteScope, granted: readonly AuthScope[] | undefined | null, untenanted: boolean): boolean {
  if (scope === 'public') return true;
  if (granted === null) return false; // no credential
  if (scope === 'authenticated') return true;
  if (scope === 'platform_admin') return untenanted && (granted ?? []).includes('admin');
  if ((granted ?? []).includes('admin')) return true;
  return (typeof scope === 'string' ? [scope] : scope).every((required) => (granted ?? []).includes(required));
}

describe('route scope table', () => {
  it('covers every registered route, each with the scope interface.md section 4 assigns', () => {
    const table = routeScopes(t.app);
    expect(table.length).toBeGreaterThan(20);
    for (const entry of table) {
      if (entry.method === 'HEAD') continue; // fastify's HEAD twin of a GET route shares its config
      const key = `${entry.method} ${entry.url}`;
      expect(SPEC[key], `${key} is not in the spec table: add it to SPEC with its interface.md scope`).toBeDefined();
      expect(entry.scope, key).toEqual(SPEC[key]);
    }
  });

  it('allows each route exactly for the scopes the table gives it (generated from the app)', async () => {
    const table = routeScopes(t.app);
    let checked = 0;
    const outcomes = { allowed: 0, unauthenticated: 0, denied: 0 };
    for (const entry of table) {
      const url = entry.url === '*' ? '/v1/anything' : entry.url;
      const method = entry.method as 'GET' | 'HEAD' | 'POST' | 'DELETE' | 'OPTIONS';
      const body = method === 'POST' || method === 'DELETE' ? {} : undefined;
      const callers: { label: string; headers: Record<string, string>; granted: readonly AuthScope[] | undefined | null; untenanted: boolean }[] = [
        { label: 'no credential', headers: {}, granted: null, untenanted: true },
        ...CREDENTIALS.map((credential) => ({ label: credential.name, headers: { 'x-api-key': keyOf(credential.name) }, granted: credential.scopes, untenanted: credential.untenanted === true })),
      ];
      for (const caller of callers) {
        const response = await send(t.app, { method, url, headers: caller.headers, ...(body !== undefined ? { body } : {}) });
        const label = `${entry.method} ${entry.url} as ${caller.label}`;
        if (allowed(entry.scope, caller.granted, caller.untenanted)) {
          expect([401, 403], label).not.toContain(response.status);
          outcomes.allowed += 1;
        } else if (caller.granted === null) {
          outcomes.unauthenticated += 1;
          expect(response.status, label).toBe(401);
          if (method !== 'HEAD') expect(response.body.code, label).toBe('VEIL_AUTH_REQUIRED');
        } else {
          outcomes.denied += 1;
          expect(response.status, label).toBe(403);
          if (method !== 'HEAD') expect(response.body.code, label).toBe('VEIL_SCOPE_DENIED');
        }
        checked += 1;
      }
    }
    expect(checked).toBe(table.length * (CREDENTIALS.length + 1));
    // Each outcome occurs many times: the loop really exercises both sides of every rule.
    expect(outcomes.allowed).toBeGreaterThan(table.length);
    expect(outcomes.denied).toBeGreaterThan(table.length * 5);
    expect(outcomes.unauthenticated).toBeGreaterThan(table.length - 6);
  });

  it('authenticates requests that match no route before answering 404', async () => {
    expect((await send(t.app, { method: 'GET', url: '/v1/nope' })).status).toBe(401);
    const known = await send(t.app, { method: 'GET', url: '/v1/nope', headers: { 'x-api-key': keyOf('no-scopes') } });
    expect(known.status).toBe(404);
    expect(known.body.code).toBe('VEIL_NOT_FOUND');
  });
});

describe('scope declarations', () => {
  const config = loadConfig({ env: { VEIL_SESSION_SECRET: TEST_SECRET } }).config;

  it('makes startup fail when a route declares no scope', async () => {
    const app = Fastify();
    await registerAuth(app, config, createAuthenticator(config.auth, { now: Date.now }));
    // The same plugin shape as the route modules (routes/*.ts).
    const unguarded = (child: FastifyInstance): void => {
      child.get('/v1/unguarded', () => ({ ok: true }));
    };
    app.get('/v1/fine', { config: { scope: 'detect' } }, () => ({ ok: true }));
    await app.register(unguarded);
    await expect(app.ready()).rejects.toThrow(/without a valid scope.*GET \/v1\/unguarded/);
  });

  it('makes startup fail for a scope name that does not exist', async () => {
    const app = Fastify();
    await registerAuth(app, config, createAuthenticator(config.auth, { now: Date.now }));
    app.get('/v1/typo', { config: { scope: 'transfrom' as never } }, () => ({}));
    await expect(app.ready()).rejects.toThrow(/without a valid scope.*GET \/v1\/typo/);
  });

  it('lets a hook added after registerAuth read the principal (rate-limit and audit seam)', async () => {
    const app = Fastify();
    await registerAuth(app, config, createAuthenticator(config.auth, { now: Date.now }));
    const seen: (string | null | undefined)[] = [];
    app.addHook('onRequest', (request, _reply, done) => {
      seen.push(authenticatedPrincipal(request)?.identity);
      done();
    });
    app.get('/v1/open', { config: { scope: 'public' } }, () => ({ ok: true }));
    app.get('/v1/guarded', { config: { scope: 'detect' } }, () => ({ ok: true }));
    await app.inject({ method: 'GET', url: '/v1/guarded' });
    await app.inject({ method: 'GET', url: '/v1/open' });
    expect(seen).toEqual(['dev', undefined]);
    await app.close();
  });
});
