// Authentication against the real `veil serve` process in each non-dev mode (api_key, jwt,
// oidc against a JWKS server in this test process): transform -> rehydrate with a good
// credential, 401 without or with a bad one, 403 with a credential lacking the scope, CORS on
// the wire, and no credential or value in the server's log. The audit trail is waived with
// VEIL_ALLOW_EPHEMERAL_AUDIT=1 (the audit suites cover the durable sink).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { apiKeyOverrides, buildToken, claims, hsToken, JwksServer, jwtOverrides, JWT_SECRET, keyToken, nowSeconds, oidcOverrides, signingKey, type SigningKey } from '../server/test/support/auth.js';
import { postJson, startVeil, type ServerProcess } from './support/server.js';

const EMAIL = 'quinn.e2e-auth@example.org';
const ENV = { VEIL_SESSION_SECRET: '5a'.repeat(32), VEIL_ALLOW_EPHEMERAL_AUDIT: '1' };
const dir = mkdtempSync(join(tmpdir(), 'veil-auth-e2e-'));

/** Write the overrides as a config file (minus the audit waiver, which comes from the env). */
function configFile(name: string, overrides: Record<string, unknown>): string {
  const { audit: _audit, ...rest } = overrides;
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, stringify(rest));
  return file;
}

async function start(name: string, overrides: Record<string, unknown>): Promise<ServerProcess> {
  return startVeil({ env: ENV, args: ['--config', configFile(name, overrides)] });
}

/** transform then rehydrate with `headers`; returns both statuses and the restored text. */
async function loop(url: string, headers: Record<string, string>): Promise<{ transform: number; rehydrate: number; restored?: string }> {
  const transformed = await postJson(`${url}/v1/transform`, { input: `write to ${EMAIL}` }, headers);
  if (transformed.status !== 200) return { transform: transformed.status, rehydrate: 0 };
  expect(transformed.text).not.toContain(EMAIL);
  const restored = await postJson(`${url}/v1/rehydrate`, { output: transformed.body.safe_text, session_state: transformed.body.session_state }, headers);
  return { transform: 200, rehydrate: restored.status, restored: restored.body?.restored_text };
}

function expectCleanLogs(server: ServerProcess, secrets: readonly string[]): void {
  const text = server.logs.join('\n');
  for (const secret of [EMAIL, ...secrets]) expect(text).not.toContain(secret);
}

describe('api_key mode (real process)', () => {
  const KEY = 'e2e-app-key-0123456789abcdef';
  const DETECT_ONLY = 'e2e-detect-key-0123456789ab';
  let server: ServerProcess;
  beforeAll(async () => {
    server = await start('api-key', {
      ...apiKeyOverrides([
        { key: KEY, identity: 'e2e-app', tenant_id: 'tenant-e2e', scopes: ['transform', 'rehydrate'] },
        { key: DETECT_ONLY, identity: 'e2e-detect', tenant_id: 'tenant-e2e', scopes: ['detect'] },
      ]),
      server: { allowed_origins: ['https://app.example.com'] },
    });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('runs the loop with a good key, 401 without or with a wrong one, 403 without the scope', async () => {
    expect(await loop(server.url, { 'x-api-key': KEY })).toEqual({ transform: 200, rehydrate: 200, restored: `write to ${EMAIL}` });
    const missing = await postJson(`${server.url}/v1/transform`, { input: EMAIL });
    expect(missing.status).toBe(401);
    expect(missing.body.code).toBe('VEIL_AUTH_REQUIRED');
    const wrong = await postJson(`${server.url}/v1/transform`, { input: EMAIL }, { 'x-api-key': 'e2e-wrong-key-0000000000' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('VEIL_AUTH_INVALID');
    const denied = await postJson(`${server.url}/v1/transform`, { input: EMAIL }, { 'x-api-key': DETECT_ONLY });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('VEIL_SCOPE_DENIED');
    expect((await fetch(`${server.url}/livez`)).status).toBe(200);
    expect((await fetch(`${server.url}/v1/health`)).status).toBe(401);
    expectCleanLogs(server, [KEY, DETECT_ONLY, 'e2e-wrong-key-0000000000']);
  });

  it('answers preflights only for the allowed origin', async () => {
    const preflight = (origin: string) =>
      fetch(`${server.url}/v1/transform`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-api-key' } });
    const allowed = await preflight('https://app.example.com');
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    const other = await preflight('https://evil.example');
    expect(other.status).toBe(405);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('jwt mode (real process)', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await start('jwt', jwtOverrides());
  });
  afterAll(async () => {
    await server.stop();
  });

  it('runs the loop with a good token, 401 with a bad one, 403 without the scope', async () => {
    const good = hsToken({ scope: 'transform rehydrate', tenant_id: 'tenant-jwt' });
    expect(await loop(server.url, { authorization: `Bearer ${good}` })).toEqual({ transform: 200, rehydrate: 200, restored: `write to ${EMAIL}` });
    const forged = buildToken({ header: { alg: 'HS256' }, payload: claims(nowSeconds(), { scope: 'admin' }), key: 'not-the-secret-0123456789abcdef0123' });
    const bad = await postJson(`${server.url}/v1/transform`, { input: EMAIL }, { authorization: `Bearer ${forged}` });
    expect(bad.status).toBe(401);
    expect(bad.body.code).toBe('VEIL_AUTH_INVALID');
    const none = buildToken({ header: { alg: 'none' }, payload: claims(nowSeconds(), { scope: 'admin' }), signature: 'AA' });
    expect((await postJson(`${server.url}/v1/transform`, { input: EMAIL }, { authorization: `Bearer ${none}` })).status).toBe(401);
    const narrow = hsToken({ scope: 'detect' });
    const denied = await postJson(`${server.url}/v1/transform`, { input: EMAIL }, { authorization: `Bearer ${narrow}` });
    expect(denied.status).toBe(403);
    expectCleanLogs(server, [good, forged, narrow, JWT_SECRET]);
  });
});

describe('oidc mode (real process, JWKS served by the test)', () => {
  let jwks: JwksServer;
  let key: SigningKey;
  let server: ServerProcess;
  beforeAll(async () => {
    key = await signingKey('ES256', 'e2e-ec');
    const rsa = await signingKey('RS256', 'e2e-rsa');
    jwks = await new JwksServer().start();
    jwks.keys = [key.publicJwk, rsa.publicJwk];
    server = await start('oidc', oidcOverrides(jwks.url));
  });
  afterAll(async () => {
    await server.stop();
    await jwks.stop();
  });

  it('runs the loop with a good token, 401 with a bad one, 403 without the scope', async () => {
    const good = keyToken(key, { scope: 'transform rehydrate', org: 'tenant-oidc' });
    expect(await loop(server.url, { authorization: `Bearer ${good}` })).toEqual({ transform: 200, rehydrate: 200, restored: `write to ${EMAIL}` });
    expect(jwks.requests).toBe(1);
    const stranger = await signingKey('ES256', 'e2e-ec');
    const bad = await postJson(`${server.url}/v1/transform`, { input: EMAIL }, { authorization: `Bearer ${keyToken(stranger, { scope: 'transform' })}` });
    expect(bad.status).toBe(401);
    const confused = buildToken({ header: { alg: 'HS256', kid: 'e2e-rsa' }, payload: claims(nowSeconds(), { org: 'tenant-oidc', scope: 'admin' }), key: key.publicPem });
    expect((await postJson(`${server.url}/v1/transform`, { input: EMAIL }, { authorization: `Bearer ${confused}` })).status).toBe(401);
    const noTenant = keyToken(key, { scope: 'transform', org: undefined });
    expect((await postJson(`${server.url}/v1/transform`, { input: EMAIL }, { authorization: `Bearer ${noTenant}` })).status).toBe(401);
    const narrow = keyToken(key, { scope: 'detect' });
    const denied = await postJson(`${server.url}/v1/transform`, { input: EMAIL }, { authorization: `Bearer ${narrow}` });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('VEIL_SCOPE_DENIED');
    expectCleanLogs(server, [good, narrow]);
  });
});
