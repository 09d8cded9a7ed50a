// auth.mode api_key over HTTP (inject): valid, missing, wrong, malformed and repeated keys; an
// entry without scopes gets none; role and purpose come from the key, not the body; a failed
// authentication is one envelope, logged once, with no key in the log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyOverrides } from '../../test/support/auth.js';
import { buildTestApp, post, send, type TestApp } from '../../test/support/harness.js';
import { ApiKeyAuthenticator } from './api-key.js';
import { Secret } from '../config/secrets.js';

const KEY_FULL = 'ak-full-7c1f0e9d8b6a5c4e3f21';
const KEY_DETECT = 'ak-detect-3e4f5a6b7c8d9e0f';
const KEY_BARE = 'ak-bare-0a1b2c3d4e5f6a7b';
const WRONG = 'ak-wrong-ffffffffffffffff';
const EMAIL = 'kim.apikey@example.org';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({
    overrides: apiKeyOverrides([
      { key: KEY_FULL, identity: 'svc-full', tenant_id: 'tenant-a', scopes: ['transform', 'rehydrate', 'detect'], },
      { key: KEY_DETECT, identity: 'svc-detect', tenant_id: 'tenant-a', scopes: ['detect'] },
      { key: KEY_BARE, identity: 'svc-bare' },
    ]),
  });
});
afterAll(async () => {
  await t.close();
});

function failureLines(requestId: string): string[] {
  return t.logs.lines.filter((line) => line.includes(requestId) && line.includes('request failed'));
}

describe('api_key authentication', () => {
  it('accepts a configured key and runs transform -> rehydrate', async () => {
    const transformed = await post(t.app, '/v1/transform', { input: `mail ${EMAIL}` }, { 'x-api-key': KEY_FULL });
    expect(transformed.status).toBe(200);
    const restored = await post(t.app, '/v1/rehydrate', { output: transformed.body.safe_text, session_state: transformed.body.session_state }, { 'x-api-key': KEY_FULL });
    expect(restored.status).toBe(200);
    expect(restored.body.restored_text).toContain(EMAIL);
  });

  it('answers 401 VEIL_AUTH_REQUIRED without a key and VEIL_AUTH_INVALID with a wrong one', async () => {
    const missing = await post(t.app, '/v1/transform', { input: 'x' });
    expect(missing.status).toBe(401);
    expect(missing.body.code).toBe('VEIL_AUTH_REQUIRED');
    const empty = await post(t.app, '/v1/transform', { input: 'x' }, { 'x-api-key': '' });
    expect(empty.body.code).toBe('VEIL_AUTH_REQUIRED');
    const wrong = await post(t.app, '/v1/transform', { input: 'x' }, { 'x-api-key': WRONG });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ code: 'VEIL_AUTH_INVALID', error: 'invalid credentials', request_id: expect.any(String) });
    // A prefix or extension of a real key is just wrong.
    expect((await post(t.app, '/v1/transform', { input: 'x' }, { 'x-api-key': KEY_FULL.slice(0, -1) })).status).toBe(401);
    expect((await post(t.app, '/v1/transform', { input: 'x' }, { 'x-api-key': `${KEY_FULL}x` })).status).toBe(401);
    expect((await post(t.app, '/v1/transform', { input: 'x' }, { 'x-api-key': 'k'.repeat(5000) })).status).toBe(401);
  });

  it('refuses a repeated X-API-Key header even when one copy is valid', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/detect',
      headers: { 'content-type': 'application/json', 'x-api-key': [KEY_DETECT, KEY_DETECT] },
      payload: { input: 'x' },
    });
    expect(response.statusCode).toBe(401);
  });

  it('authenticates before the body is read: a bad key never reaches validation', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/v1/transform', headers: { 'content-type': 'application/json', 'x-api-key': WRONG }, payload: '{not json' });
    expect(response.statusCode).toBe(401);
  });

  it('grants an entry without scopes nothing beyond health and capabilities (least privilege)', async () => {
    expect((await send(t.app, { method: 'GET', url: '/v1/health', headers: { 'x-api-key': KEY_BARE } })).status).toBe(200);
    expect((await send(t.app, { method: 'GET', url: '/v1/capabilities', headers: { 'x-api-key': KEY_BARE } })).status).toBe(200);
    const denied = await post(t.app, '/v1/detect', { input: 'x' }, { 'x-api-key': KEY_BARE });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ code: 'VEIL_SCOPE_DENIED', error: 'missing required scope: detect', request_id: expect.any(String) });
  });

  it('needs detect_values for include_values:true and does not return values by default outside dev', async () => {
    const asked = await post(t.app, '/v1/detect', { input: `mail ${EMAIL}`, include_values: true }, { 'x-api-key': KEY_DETECT });
    expect(asked.status).toBe(403);
    expect(asked.body.code).toBe('VEIL_SCOPE_DENIED');
    const plain = await post(t.app, '/v1/detect', { input: `mail ${EMAIL}` }, { 'x-api-key': KEY_DETECT });
    expect(plain.status).toBe(200);
    expect(plain.body.entities[0].value).toBe('');
    expect(JSON.stringify(plain.body)).not.toContain(EMAIL);
  });

  it('logs each failed authentication once, without the presented or configured key', async () => {
    const before = t.logs.lines.length;
    const wrong = await post(t.app, '/v1/transform', { input: 'x' }, { 'x-api-key': WRONG });
    expect(failureLines(wrong.body.request_id)).toHaveLength(1);
    const line = JSON.parse(failureLines(wrong.body.request_id)[0]!);
    expect(line).toMatchObject({ error_code: 'VEIL_AUTH_INVALID', status: 401 });
    const text = t.logs.lines.slice(before).join('\n') + t.logs.text();
    for (const secret of [WRONG, KEY_FULL, KEY_DETECT, KEY_BARE]) expect(text).not.toContain(secret);
  });
});

describe('ApiKeyAuthenticator', () => {
  it('finds the matching entry wherever it is in the list', async () => {
    const entries = Array.from({ length: 5 }, (_, index) => ({ key: new Secret(`key-number-${index}-abcdefghijkl`), identity: `id-${index}` }));
    const authenticator = new ApiKeyAuthenticator(entries);
    for (let index = 0; index < 5; index += 1) {
      expect((await authenticator.authenticate({ 'x-api-key': `key-number-${index}-abcdefghijkl` })).identity).toBe(`id-${index}`);
    }
    await expect(authenticator.authenticate({ 'x-api-key': 'key-number-5-abcdefghijkl' })).rejects.toMatchObject({ code: 'VEIL_AUTH_INVALID' });
  });

  it('decides synchronously (authenticateNow) exactly as authenticate does, so the request hook needs no promise', async () => {
    const authenticator = new ApiKeyAuthenticator([{ key: new Secret(KEY_FULL), identity: 'svc-full', scopes: ['transform'] }]);
    const cases = [{ 'x-api-key': KEY_FULL }, {}, { 'x-api-key': '' }, { 'x-api-key': WRONG }, { 'x-api-key': 'x'.repeat(5000) }, { 'x-api-key': [KEY_FULL, KEY_FULL] as unknown as string }];
    for (const headers of cases) {
      const later = await authenticator.authenticate(headers).then(
        (principal) => ({ identity: principal.identity }),
        (error: unknown) => ({ code: (error as { code: string }).code }),
      );
      let now: { identity: string } | { code: string };
      try {
        now = { identity: authenticator.authenticateNow(headers).identity };
      } catch (error) {
        now = { code: (error as { code: string }).code };
      }
      expect(now).toEqual(later);
    }
    expect(authenticator.authenticateNow({ 'x-api-key': KEY_FULL }).identity).toBe('svc-full');
  });
});
