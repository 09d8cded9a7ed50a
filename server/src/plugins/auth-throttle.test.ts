// Failed-authentication throttling over HTTP (inject with chosen client addresses, injected
// clock): a source that used up its failures gets 429 with Retry-After even with a valid key,
// other sources are unaffected, public probes still answer, the source regains failures over
// time, X-Forwarded-For counts only from a trusted proxy, IPv6 is grouped by /64, and the table
// is bounded.
import { afterEach, describe, expect, it } from 'vitest';
import { apiKeyOverrides } from '../../test/support/auth.js';
import { buildTestApp, type TestApp } from '../../test/support/harness.js';
import { sourceKey } from './auth-throttle.js';

const KEY = 'throttle-test-key-0123456789abcdef';
const apps: TestApp[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function app(extra: Record<string, unknown> = {}): Promise<TestApp> {
  const built = await buildTestApp({
    // The harness switches the throttle off for other tests; here it is on, as by default.
    env: { VEIL_AUTH__FAILURE_LIMIT__ENABLED: 'true' },
    overrides: {
      ...apiKeyOverrides([{ key: KEY, identity: 'app', tenant_id: 'tenant-a', scopes: ['detect'] }]),
      auth: { mode: 'api_key', api_keys: [{ key: KEY, identity: 'app', tenant_id: 'tenant-a', scopes: ['detect'] }], failure_limit: { burst: 3, per_minute: 6 } },
      // (apiKeyOverrides also waives the audit requirement; `auth` is replaced whole here.)
      ...extra,
    },
  });
  apps.push(built);
  return built;
}

async function detect(target: TestApp, from: string, key: string | undefined, headers: Record<string, string> = {}) {
  const response = await target.app.inject({
    method: 'POST',
    url: '/v1/detect',
    remoteAddress: from,
    headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'x-api-key': key }), ...headers },
    payload: { input: 'nothing' },
  });
  return { status: response.statusCode, code: response.json<{ code?: string }>().code, retryAfter: response.headers['retry-after'] };
}

describe('failed authentication is throttled per source', () => {
  it('refuses a guessing source (even its right key), leaves other sources and the probes alone', async () => {
    const t = await app();
    expect((await detect(t, '203.0.113.7', 'wrong-key-0123456789abcdef-1')).status).toBe(401);
    expect((await detect(t, '203.0.113.7', 'wrong-key-0123456789abcdef-2')).status).toBe(401);
    expect((await detect(t, '203.0.113.7', undefined)).status).toBe(401);
    // Three failures spent the burst: the next request is refused before its key is checked.
    const refused = await detect(t, '203.0.113.7', KEY);
    expect(refused).toEqual({ status: 429, code: 'VEIL_RATE_LIMITED', retryAfter: '10' });
    expect((await detect(t, '203.0.113.8', KEY)).status).toBe(200);
    const livez = await t.app.inject({ method: 'GET', url: '/livez', remoteAddress: '203.0.113.7' });
    expect(livez.statusCode).toBe(200);
    // Six failures a minute come back: one every 10 s.
    t.advance(10);
    expect((await detect(t, '203.0.113.7', KEY)).status).toBe(200);
    // Successes cost nothing: the source still has exactly the one failure it regained.
    expect((await detect(t, '203.0.113.7', 'wrong-key-0123456789abcdef-3')).status).toBe(401);
    expect((await detect(t, '203.0.113.7', KEY)).status).toBe(429);
    expect(JSON.stringify(t.logs.lines)).not.toContain('wrong-key-0123456789abcdef');
  });

  it('believes X-Forwarded-For only from a trusted proxy', async () => {
    const untrusted = await app();
    for (const client of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) {
      expect((await detect(untrusted, '10.0.0.5', 'wrong-key-0123456789abcdef-1', { 'x-forwarded-for': client })).status).toBe(401);
    }
    // Without trust_proxy every client is the proxy's address: all three failures were its own.
    expect((await detect(untrusted, '10.0.0.5', KEY, { 'x-forwarded-for': '198.51.100.9' })).status).toBe(429);

    const trusted = await app({ server: { trust_proxy: ['10.0.0.0/8'] } });
    for (let index = 0; index < 3; index += 1) {
      expect((await detect(trusted, '10.0.0.5', 'wrong-key-0123456789abcdef-1', { 'x-forwarded-for': '198.51.100.1' })).status).toBe(401);
    }
    expect((await detect(trusted, '10.0.0.5', KEY, { 'x-forwarded-for': '198.51.100.1' })).status).toBe(429);
    expect((await detect(trusted, '10.0.0.5', KEY, { 'x-forwarded-for': '198.51.100.2' })).status).toBe(200);
  });

  it('can be switched off', async () => {
    const off = await app({ auth: { mode: 'api_key', api_keys: [{ key: KEY, identity: 'app', scopes: ['detect'] }], failure_limit: { enabled: false } } });
    for (let index = 0; index < 30; index += 1) expect((await detect(off, '203.0.113.7', 'wrong-key-0123456789abcdef-1')).status).toBe(401);
    expect((await detect(off, '203.0.113.7', KEY)).status).toBe(200);
  });

  it('groups IPv6 sources by /64 and IPv4-mapped addresses as IPv4', () => {
    expect(sourceKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(sourceKey('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(sourceKey('2001:0db8:0001:0003::1')).toBe('2001:db8:1:3::/64');
    expect(sourceKey('::1')).toBe('0:0:0:0::/64');
    expect(sourceKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(sourceKey('::ffff:192.0.2.4')).toBe('192.0.2.4');
    expect(sourceKey('192.0.2.4')).toBe('192.0.2.4');
  });
});
