// CORS over HTTP (inject): in non-dev modes only origins in server.allowed_origins get CORS
// headers, preflights from any other origin are refused; dev mode allows loopback origins when
// no list is configured; allowed_origins entries must be exact origins.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config/index.js';
import { apiKeyOverrides } from '../../test/support/auth.js';
import { buildTestApp, send, TEST_SECRET, type TestApp } from '../../test/support/harness.js';
import { isLoopbackOrigin } from './cors.js';

const KEY = 'cors-key-0123456789abcdef';
const ALLOWED = 'https://app.example.com';

function preflight(app: TestApp, origin: string) {
  return send(app.app, {
    method: 'OPTIONS',
    url: '/v1/transform',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-api-key' },
  });
}

describe('CORS in a non-dev mode', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({
      overrides: { ...apiKeyOverrides([{ key: KEY, identity: 'web', scopes: ['transform'] }]), server: { allowed_origins: [ALLOWED] } },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers a preflight from an allowed origin without credentials', async () => {
    const response = await preflight(t, ALLOWED);
    expect(response.status).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(String(response.headers['access-control-allow-methods'])).toContain('POST');
    expect(String(response.headers['access-control-allow-headers']).toLowerCase()).toContain('x-api-key');
    expect(response.headers['access-control-allow-credentials']).toBeUndefined();
    expect(String(response.headers.vary)).toContain('Origin');
  });

  it('refuses preflights from any other origin: no CORS headers and no 2xx', async () => {
    for (const origin of ['https://evil.example', 'https://app.example.com.evil.example', 'http://app.example.com', 'null', 'https://APP.example.com']) {
      const response = await preflight(t, origin);
      // Not answered by CORS: the route has no OPTIONS method, so the usual 405 envelope.
      expect(response.status, origin).toBe(405);
      expect(response.body.code, origin).toBe('VEIL_METHOD_NOT_ALLOWED');
      expect(response.headers['access-control-allow-origin'], origin).toBeUndefined();
      expect(response.headers['access-control-allow-methods'], origin).toBeUndefined();
    }
  });

  it('adds CORS headers to simple requests only for the allowed origin, errors included', async () => {
    const allowed = await send(t.app, { method: 'GET', url: '/v1/health', headers: { origin: ALLOWED, 'x-api-key': KEY } });
    expect(allowed.status).toBe(200);
    expect(allowed.headers['access-control-allow-origin']).toBe(ALLOWED);
    // Every header a browser client reads is exposed (plugins/response-headers.ts).
    const exposed = String(allowed.headers['access-control-expose-headers']).toLowerCase().split(/,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(['idempotency-replayed', 'retry-after', 'content-disposition', 'x-veil-original-format', 'x-veil-output-guard']));
    // A browser app must be able to read the 401 envelope to react to it.
    const unauthenticated = await send(t.app, { method: 'GET', url: '/v1/health', headers: { origin: ALLOWED } });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers['access-control-allow-origin']).toBe(ALLOWED);
    const other = await send(t.app, { method: 'GET', url: '/v1/health', headers: { origin: 'https://evil.example', 'x-api-key': KEY } });
    expect(other.status).toBe(200);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    const none = await send(t.app, { method: 'GET', url: '/v1/health', headers: { 'x-api-key': KEY } });
    expect(none.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('allows no origin at all when the list is empty', async () => {
    const closed = await buildTestApp({ overrides: apiKeyOverrides([{ key: KEY, identity: 'web', scopes: ['transform'] }]) });
    try {
      for (const origin of ['http://localhost:3000', ALLOWED]) {
        const response = await preflight(closed, origin);
        expect(response.status).toBe(405);
        expect(response.headers['access-control-allow-origin']).toBeUndefined();
      }
    } finally {
      await closed.close();
    }
  });
});

describe('CORS in dev mode', () => {
  it('allows loopback origins when no list is configured, and nothing else', async () => {
    const dev = await buildTestApp();
    try {
      for (const origin of ['http://localhost:5173', 'http://127.0.0.1:8080', 'http://[::1]:3000']) {
        const response = await preflight(dev, origin);
        expect(response.status, origin).toBe(204);
        expect(response.headers['access-control-allow-origin']).toBe(origin);
      }
      for (const origin of ['https://evil.example', 'http://localhost.evil.example', 'http://127.0.0.1.nip.io']) {
        const response = await preflight(dev, origin);
        expect(response.status, origin).toBe(405);
        expect(response.headers['access-control-allow-origin']).toBeUndefined();
      }
    } finally {
      await dev.close();
    }
  });

  it('uses only the configured list when one is given (VEIL_CORS_ORIGINS)', async () => {
    const dev = await buildTestApp({ env: { VEIL_CORS_ORIGINS: ALLOWED } });
    try {
      expect((await preflight(dev, ALLOWED)).status).toBe(204);
      expect((await preflight(dev, 'http://localhost:5173')).headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await dev.close();
    }
  });
});

describe('allowed_origins validation', () => {
  it.each(['*', 'https://app.example.com/', 'https://app.example.com/path', 'app.example.com', 'ftp://app.example.com'])('refuses %s', (origin) => {
    expect(() => loadConfig({ env: { VEIL_SESSION_SECRET: TEST_SECRET }, overrides: { 'server.allowed_origins': [origin] } })).toThrow(ConfigError);
  });

  it('accepts exact origins with and without a port', () => {
    const loaded = loadConfig({ env: { VEIL_SESSION_SECRET: TEST_SECRET }, overrides: { 'server.allowed_origins': [ALLOWED, 'http://localhost:8080'] } });
    expect(loaded.config.server.allowed_origins).toEqual([ALLOWED, 'http://localhost:8080']);
  });

  it('recognises loopback origins exactly', () => {
    expect(isLoopbackOrigin('http://localhost')).toBe(true);
    expect(isLoopbackOrigin('https://127.0.0.1:8443')).toBe(true);
    expect(isLoopbackOrigin('http://localhost/')).toBe(false);
    expect(isLoopbackOrigin('http://localhost@evil.example')).toBe(false);
    expect(isLoopbackOrigin('file://localhost')).toBe(false);
  });
});
