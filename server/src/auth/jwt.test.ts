// auth.mode jwt over HTTP (inject), threats.md item 11: valid HS256/384/512 tokens, then every
// hostile or broken variant (missing, wrong secret, expired, nbf/iat in the future, wrong or
// missing iss/aud, alg none in any casing, RS and HS/RS confusion, embedded jwk/jku/x5u with zero
// fetches, crit, 2 and 4 segments, over 8 KB, odd kid values, duplicate JSON keys) is 401.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AUDIENCE,
  buildToken,
  claims,
  hsToken,
  ISSUER,
  JWT_SECRET,
  JwksServer,
  jwtOverrides,
  nowSeconds,
  signingKey,
  type SigningKey,
} from '../../test/support/auth.js';
import { buildTestApp, post, send, type TestApp } from '../../test/support/harness.js';
import { hasDuplicateKeys, principalFromClaims } from './token.js';

let t: TestApp;
let rsa: SigningKey;
let attacker: JwksServer;
beforeAll(async () => {
  t = await buildTestApp({ overrides: jwtOverrides() });
  rsa = await signingKey('RS256', 'rsa-1');
  attacker = await new JwksServer().start();
  attacker.keys = [rsa.publicJwk];
});
afterAll(async () => {
  await t.close();
  await attacker.stop();
});

const health = (token: string | undefined) =>
  send(t.app, { method: 'GET', url: '/v1/health', headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });

/** 401 VEIL_AUTH_INVALID with a challenge, and the logged detail names the expected check. */
async function expectInvalid(token: string, label: string, detail: string): Promise<void> {
  const response = await health(token);
  expect(response.status, label).toBe(401);
  expect(response.body.code, label).toBe('VEIL_AUTH_INVALID');
  expect(response.headers['www-authenticate'], label).toBe('Bearer realm="veil"');
  const line = t.logs.lines.find((entry) => entry.includes(response.body.request_id) && entry.includes('request failed'));
  expect(JSON.parse(line!).detail, label).toContain(detail);
}

const hs = (header: Record<string, unknown> | string, payload: Record<string, unknown> | string): string =>
  buildToken({ header, payload, key: JWT_SECRET, signAs: 'HS256' });

describe('jwt: valid tokens', () => {
  it.each(['HS256', 'HS384', 'HS512'])('accepts %s', async (alg) => {
    expect((await health(hsToken({}, { alg }))).status).toBe(200);
  });

  it('takes scopes from `scope` (space-separated) and `scopes` (array), ignoring unknown names', async () => {
    const spaced = hsToken({ scope: 'openid transform  rehydrate' });
    const transformed = await post(t.app, '/v1/transform', { input: 'mail lee@example.org' }, { authorization: `Bearer ${spaced}` });
    expect(transformed.status).toBe(200);
    const listed = hsToken({ scopes: ['rehydrate'] });
    const restored = await post(t.app, '/v1/rehydrate', { output: transformed.body.safe_text, session_state: transformed.body.session_state }, { authorization: `Bearer ${listed}` });
    expect(restored.status).toBe(200);
    expect(restored.body.restored_text).toBe('mail lee@example.org');
    expect((await post(t.app, '/v1/detect', { input: 'x' }, { authorization: `Bearer ${listed}` })).status).toBe(403);
  });

  it('accepts an aud array containing the audience, the scheme in any case, and exp inside the tolerance', async () => {
    expect((await health(hsToken({ aud: ['other', AUDIENCE] }))).status).toBe(200);
    const response = await send(t.app, { method: 'GET', url: '/v1/health', headers: { authorization: `bearer ${hsToken()}` } });
    expect(response.status).toBe(200);
    expect((await health(hsToken({ exp: nowSeconds() - 10 }))).status).toBe(200);
  });

  it('uses the injected clock: a token expires when time moves past exp + tolerance', async () => {
    const app = await buildTestApp({ overrides: jwtOverrides() });
    try {
      const token = hsToken({ exp: nowSeconds() + 60 });
      const call = () => send(app.app, { method: 'GET', url: '/v1/health', headers: { authorization: `Bearer ${token}` } });
      expect((await call()).status).toBe(200);
      app.advance(120);
      expect((await call()).status).toBe(401);
    } finally {
      await app.close();
    }
  });
});

describe('jwt: rejected tokens', () => {
  it('answers 401 VEIL_AUTH_REQUIRED with a Bearer challenge when no token is sent', async () => {
    const response = await health(undefined);
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('VEIL_AUTH_REQUIRED');
    expect(response.headers['www-authenticate']).toBe('Bearer realm="veil"');
  });

  it('rejects a non-Bearer Authorization header', async () => {
    const response = await send(t.app, { method: 'GET', url: '/v1/health', headers: { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` } });
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('VEIL_AUTH_INVALID');
  });

  it('rejects a wrong secret, a tampered payload and a stripped signature', async () => {
    await expectInvalid(buildToken({ header: { alg: 'HS256' }, payload: claims(nowSeconds()), key: 'another-secret-0123456789abcdef0123' }), 'wrong secret', 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
    const good = hsToken();
    const [header, , signature] = good.split('.');
    const tampered = `${header}.${Buffer.from(JSON.stringify(claims(nowSeconds(), { scope: 'admin' }))).toString('base64url')}.${signature}`;
    await expectInvalid(tampered, 'tampered', 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
    await expectInvalid(`${header}.${good.split('.')[1]}.`, 'no signature', 'not three base64url segments');
  });

  it('rejects expired, not-yet-valid, future-issued and exp-less tokens, and wrong claim types', async () => {
    const now = nowSeconds();
    await expectInvalid(hsToken({ exp: now - 120 }), 'expired', 'ERR_JWT_EXPIRED');
    await expectInvalid(hsToken({ nbf: now + 120 }), 'nbf in the future', 'ERR_JWT_CLAIM_VALIDATION_FAILED');
    await expectInvalid(hsToken({ iat: now + 3600 }), 'iat in the future', 'iat is in the future');
    const withoutExp: Record<string, unknown> = { iss: ISSUER, aud: AUDIENCE, sub: 'u' };
    await expectInvalid(hs({ alg: 'HS256' }, withoutExp), 'no exp', 'ERR_JWT_CLAIM_VALIDATION_FAILED');
    await expectInvalid(hsToken({ exp: String(now + 300) }), 'exp as a string', 'ERR_JWT_CLAIM_VALIDATION_FAILED');
    await expectInvalid(hsToken({ nbf: 'yesterday' }), 'nbf as a string', 'ERR_JWT_CLAIM_VALIDATION_FAILED');
    await expectInvalid(hsToken({ iat: 'now' }), 'iat as a string', 'ERR_JWT_CLAIM_VALIDATION_FAILED');
    await expectInvalid(hsToken({ exp: null }), 'exp null', 'ERR_JWT_CLAIM_VALIDATION_FAILED');
    await expectInvalid(hsToken({ sub: undefined }), 'no sub', 'claim sub is required');
    await expectInvalid(hsToken({ sub: 42 }), 'sub not a string', 'claim sub is not a string of 1 to 256 characters');
  });

  it('rejects a wrong or missing issuer and audience', async () => {
    await expectInvalid(hsToken({ iss: 'https://evil.example' }), 'wrong iss', 'ERR_JWT_CLAIM_VALIDATION_FAILED');
    await expectInvalid(hsToken({ iss: undefined }), 'missing iss', 'ERR_JWT_CLAIM_VALIDATION_FAILED');
    await expectInvalid(hsToken({ aud: 'someone-else' }), 'wrong aud', 'ERR_JWT_CLAIM_VALIDATION_FAILED');
    await expectInvalid(hsToken({ aud: undefined }), 'missing aud', 'ERR_JWT_CLAIM_VALIDATION_FAILED');
  });

  it('rejects alg none in any casing, with or without a signature', async () => {
    for (const alg of ['none', 'None', 'NONE', 'nOnE']) {
      const payload = claims(nowSeconds(), { scope: 'admin' });
      await expectInvalid(buildToken({ header: { alg }, payload, signature: '' }), `${alg} empty`, 'not three base64url segments');
      await expectInvalid(buildToken({ header: { alg }, payload, signature: 'c2ln' }), `${alg} signed`, 'alg not allowed');
    }
  });

  it('rejects asymmetric tokens, and HS256 signed with an RSA public key as the secret', async () => {
    await expectInvalid(buildToken({ header: { alg: 'RS256', kid: rsa.kid }, payload: claims(nowSeconds()), key: rsa.privateKey }), 'RS256', 'alg not allowed');
    // The confusion attack: the public key (which anyone has) used as the HMAC secret.
    await expectInvalid(buildToken({ header: { alg: 'HS256', kid: rsa.kid }, payload: claims(nowSeconds()), key: rsa.publicPem }), 'HS256 with public key', 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
    await expectInvalid(buildToken({ header: { alg: 'hs256' }, payload: claims(nowSeconds()), key: JWT_SECRET, signAs: 'HS256' }), 'lowercase alg', 'alg not allowed');
  });

  it('rejects an HS algorithm outside the configured allowlist', async () => {
    const narrow = await buildTestApp({ overrides: jwtOverrides({ algorithms: ['HS512'] }) });
    try {
      const response = await send(narrow.app, { method: 'GET', url: '/v1/health', headers: { authorization: `Bearer ${hsToken()}` } });
      expect(response.status).toBe(401);
      const ok = await send(narrow.app, { method: 'GET', url: '/v1/health', headers: { authorization: `Bearer ${hsToken({}, { alg: 'HS512' })}` } });
      expect(ok.status).toBe(200);
    } finally {
      await narrow.close();
    }
  });

  it('rejects embedded jwk, jku, x5u and x5c headers and never fetches what they name', async () => {
    const payload = claims(nowSeconds());
    await expectInvalid(hs({ alg: 'HS256', jwk: rsa.publicJwk }, payload), 'jwk', 'header jwk not accepted');
    await expectInvalid(hs({ alg: 'HS256', jku: attacker.url }, payload), 'jku', 'header jku not accepted');
    await expectInvalid(hs({ alg: 'HS256', x5u: attacker.url }, payload), 'x5u', 'header x5u not accepted');
    await expectInvalid(hs({ alg: 'HS256', x5c: ['MIIB'] }, payload), 'x5c', 'header x5c not accepted');
    expect(attacker.requests).toBe(0);
  });

  it('rejects any crit header', async () => {
    const payload = claims(nowSeconds());
    await expectInvalid(hs({ alg: 'HS256', crit: ['exp'] }, payload), 'crit exp', 'crit header not supported');
    await expectInvalid(hs({ alg: 'HS256', crit: ['x-custom'], 'x-custom': 1 }, payload), 'crit custom', 'crit header not supported');
    await expectInvalid(hs({ alg: 'HS256', b64: false, crit: ['b64'] }, payload), 'crit b64', 'crit header not supported');
  });

  it('rejects 2 and 4 segments, 5-segment JWE shapes and non-base64url segments', async () => {
    const [a, b, c] = hsToken().split('.');
    await expectInvalid(`${a}.${b}`, '2 segments', 'not three base64url segments');
    await expectInvalid(`${a}.${b}.${c}.${c}`, '4 segments', 'not three base64url segments');
    await expectInvalid(`${a}.${b}.${c}.${c}.${c}`, '5 segments', 'not three base64url segments');
    await expectInvalid(`${a}.${b}+/.${c}`, 'base64 not base64url', 'not three base64url segments');
    await expectInvalid(`${Buffer.from('[1,2]').toString('base64url')}.${b}.${c}`, 'header not an object', 'header is not a JSON object');
  });

  it('rejects tokens over 8 KB before any crypto', async () => {
    const big = hsToken({ padding: 'p'.repeat(9000) });
    const response = await health(big);
    expect(response.status).toBe(401);
    expect(t.logs.lines.some((line) => line.includes(response.body.request_id) && line.includes('larger than 8192 bytes'))).toBe(true);
  });

  it('treats odd kid values as opaque: traversal and SQL are harmless, oversize and non-strings are refused', async () => {
    for (const kid of ['../../../../etc/passwd', "' OR 1=1 --", 'tenant-b-key', '%00']) {
      expect((await health(hs({ alg: 'HS256', kid }, claims(nowSeconds())))).status, kid).toBe(200);
    }
    await expectInvalid(hs({ alg: 'HS256', kid: 'k'.repeat(5000) }, claims(nowSeconds())), 'oversize kid', 'kid is not a string of 1 to 256 characters');
    await expectInvalid(hs({ alg: 'HS256', kid: 7 }, claims(nowSeconds())), 'numeric kid', 'kid is not a string of 1 to 256 characters');
    await expectInvalid(hs({ alg: 'HS256', kid: '' }, claims(nowSeconds())), 'empty kid', 'kid is not a string of 1 to 256 characters');
  });

  it('rejects duplicate JSON keys in the header and the payload', async () => {
    const payload = JSON.stringify(claims(nowSeconds()));
    await expectInvalid(hs('{"alg":"HS256","alg":"none"}', payload), 'duplicate alg', 'header has duplicate keys');
    await expectInvalid(hs('{"alg":"HS256","\\u0061lg":"HS256"}', payload), 'escaped duplicate', 'header has duplicate keys');
    const duplicated = payload.replace(/}$/, ',"sub":"admin-user"}');
    await expectInvalid(hs({ alg: 'HS256' }, duplicated), 'duplicate sub', 'payload has duplicate keys');
  });

  it('rejects tenant, role and scope claims of the wrong shape', async () => {
    await expectInvalid(hsToken({ tenant_id: 'a b' }), 'tenant with a space', 'tenant claim is not a valid tenant id');
    await expectInvalid(hsToken({ tenant_id: 12 }), 'numeric tenant', 'tenant claim is not a valid tenant id');
    await expectInvalid(hsToken({ tenant_id: '*' }), 'global partition name', 'tenant claim is not a valid tenant id');
    await expectInvalid(hsToken({ role: ['admin'] }), 'role array', 'claim role is not a string of 1 to 128 characters');
    await expectInvalid(hsToken({ scope: ['admin'] }), 'scope array', 'claim scope is not a string');
    await expectInvalid(hsToken({ scopes: 'admin' }), 'scopes string', 'claim scopes is not an array of strings');
    await expectInvalid(hsToken({ access_level: ['restricted'] }), 'access_level array', 'claim access_level is not a string of 1 to 128 characters');
  });

  it('reads the RAG clearance from the access_level claim', () => {
    const rules = { tenantClaim: 'tenant_id', tenantRequired: false, nowSeconds: nowSeconds() };
    expect(principalFromClaims({ sub: 'analyst', access_level: 'confidential' }, rules).accessLevel).toBe('confidential');
    expect(principalFromClaims({ sub: 'analyst' }, rules)).not.toHaveProperty('accessLevel');
  });

  it('never logs a token', async () => {
    const tokens = [hsToken({ exp: nowSeconds() - 500 }), hsToken({ iss: 'x' })];
    for (const token of tokens) await health(token);
    const text = t.logs.text();
    for (const token of tokens) {
      expect(text).not.toContain(token);
      expect(text).not.toContain(token.split('.')[2]);
    }
    expect(text).not.toContain(JWT_SECRET);
  });
});

describe('hasDuplicateKeys', () => {
  it('finds duplicates at any depth, after unescaping, and only within one object', () => {
    expect(hasDuplicateKeys('{"a":1,"b":{"c":1,"c":2}}')).toBe(true);
    expect(hasDuplicateKeys('{"a":1,"\\u0061":2}')).toBe(true);
    expect(hasDuplicateKeys('{"a":{"a":1},"b":[{"a":1},{"a":2}]}')).toBe(false);
    expect(hasDuplicateKeys('{"a":"\\"a\\"","b":"a"}')).toBe(false);
    expect(hasDuplicateKeys('{"x":["a","a"],"y":{}}')).toBe(false);
  });
});
