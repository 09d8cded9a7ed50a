// auth.mode oidc over HTTP (inject) against a local JWKS server on 127.0.0.1 with generated RSA
// and EC keys: valid RS/PS/ES tokens, the tenant claim, hostile tokens (alg none, HS-with-the-
// public-key confusion, embedded jwk/jku/x5u with zero fetches, crit, odd kids), key rotation
// (unknown kid refetch at most once per 30 s on the injected clock) and fail-closed outages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildToken, claims, JwksServer, keyToken, nowSeconds, oidcOverrides, signingKey, type SigningKey } from '../../test/support/auth.js';
import { buildTestApp, send, type TestApp } from '../../test/support/harness.js';
import { FAILURE_BACKOFF_MS, MAX_AGE_MS, REFETCH_COOLDOWN_MS } from './jwks.js';

let jwks: JwksServer;
let attacker: JwksServer;
let rsa: SigningKey;
let ps: SigningKey;
let ec: SigningKey;
let ec384: SigningKey;
let rotated: SigningKey;
let t: TestApp;

beforeAll(async () => {
  [rsa, ps, ec, ec384, rotated] = await Promise.all([
    signingKey('RS256', 'rsa-1'),
    signingKey('PS256', 'ps-1'),
    signingKey('ES256', 'ec-1'),
    signingKey('ES384', 'ec-384'),
    signingKey('RS256', 'rsa-2'),
  ]);
  jwks = await new JwksServer().start();
  jwks.keys = [rsa.publicJwk, ps.publicJwk, ec.publicJwk, ec384.publicJwk];
  attacker = await new JwksServer().start();
  t = await buildTestApp({ overrides: oidcOverrides(jwks.url) });
});
afterAll(async () => {
  await t.close();
  await jwks.stop();
  await attacker.stop();
});

function call(app: TestApp, token: string | undefined, url = '/v1/health') {
  return send(app.app, { method: 'GET', url, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
}

function detailOf(app: TestApp, requestId: string): string {
  const line = app.logs.lines.find((entry) => entry.includes(requestId) && entry.includes('request failed'));
  return (JSON.parse(line!) as { detail: string }).detail;
}

async function expectInvalid(token: string, label: string, detail: string): Promise<void> {
  const response = await call(t, token);
  expect(response.status, label).toBe(401);
  expect(response.body.code, label).toBe('VEIL_AUTH_INVALID');
  expect(detailOf(t, response.body.request_id), label).toContain(detail);
}

/** A separate app (own JWKS cache and clock) against `server`. */
async function freshApp(server: JwksServer): Promise<TestApp> {
  return buildTestApp({ overrides: oidcOverrides(server.url) });
}

describe('oidc: valid tokens', () => {
  it('accepts RS256, PS256, ES256 and ES384 tokens signed by keys in the set', async () => {
    for (const key of [rsa, ps, ec, ec384]) {
      expect((await call(t, keyToken(key))).status, key.alg).toBe(200);
    }
  });

  it('takes the tenant and scopes from the claims', async () => {
    const token = keyToken(rsa, { org: 'tenant-x', scope: 'admin' });
    const count = await call(t, token, '/v1/revocations/count');
    expect(count.status).toBe(200);
    expect(count.body).toEqual({ count: 0, scope: 'tenant' });
    const noAdmin = await call(t, keyToken(rsa, { scope: 'transform' }), '/v1/revocations/count');
    expect(noAdmin.status).toBe(403);
  });

  it('accepts a token without kid when exactly one key fits its algorithm', async () => {
    const token = buildToken({ header: { alg: 'ES384' }, payload: claims(nowSeconds(), { org: 'tenant-a' }), key: ec384.privateKey });
    expect((await call(t, token)).status).toBe(200);
  });
});

describe('oidc: rejected tokens', () => {
  it('requires the tenant claim on every token', async () => {
    await expectInvalid(keyToken(rsa, { org: undefined }), 'no tenant', 'tenant claim is required');
    await expectInvalid(keyToken(rsa, { org: null }), 'null tenant', 'tenant claim is required');
    await expectInvalid(keyToken(rsa, { org: ['tenant-a'] }), 'array tenant', 'tenant claim is not a valid tenant id');
  });

  it('checks issuer, audience, expiry and not-before', async () => {
    await expectInvalid(keyToken(rsa, { iss: 'https://evil.example' }), 'iss', 'ERR_JWT_CLAIM_VALIDATION_FAILED');
    await expectInvalid(keyToken(rsa, { aud: 'other-api' }), 'aud', 'ERR_JWT_CLAIM_VALIDATION_FAILED');
    await expectInvalid(keyToken(rsa, { exp: nowSeconds() - 600 }), 'exp', 'ERR_JWT_EXPIRED');
    await expectInvalid(keyToken(rsa, { nbf: nowSeconds() + 600 }), 'nbf', 'ERR_JWT_CLAIM_VALIDATION_FAILED');
    await expectInvalid(keyToken(rsa, { exp: undefined }), 'no exp', 'ERR_JWT_CLAIM_VALIDATION_FAILED');
  });

  it('rejects a signature by a key that is not in the set, and a kid pointing at another key', async () => {
    const stranger = await signingKey('RS256', 'rsa-1');
    await expectInvalid(keyToken(stranger), 'stranger with a known kid', 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
    // Another tenant's key id: the header names rsa-1, the signature is ps-1's.
    const crossed = buildToken({ header: { alg: 'RS256', kid: 'rsa-1' }, payload: claims(nowSeconds(), { org: 'tenant-b' }), key: ps.privateKey });
    await expectInvalid(crossed, 'kid of another key', 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
    // An EC kid with an RSA algorithm: the key type does not fit.
    const mismatched = buildToken({ header: { alg: 'RS256', kid: 'ec-1' }, payload: claims(nowSeconds(), { org: 'tenant-a' }), key: rsa.privateKey });
    await expectInvalid(mismatched, 'alg/kty mismatch', 'no key for the token kid');
  });

  it('rejects alg none in any casing', async () => {
    for (const alg of ['none', 'None', 'NONE', 'nOnE']) {
      await expectInvalid(buildToken({ header: { alg, kid: 'rsa-1' }, payload: claims(nowSeconds(), { org: 'tenant-a' }), signature: 'AA' }), alg, 'alg not allowed');
    }
  });

  it('rejects HMAC signed with the public key (RS -> HS confusion), whatever the kid', async () => {
    for (const key of [rsa, ec]) {
      for (const alg of ['HS256', 'HS384', 'HS512']) {
        const token = buildToken({ header: { alg, kid: key.kid }, payload: claims(nowSeconds(), { org: 'tenant-a' }), key: key.publicPem });
        await expectInvalid(token, `${alg} with ${key.kid}`, 'alg not allowed');
      }
    }
  });

  it('rejects an algorithm outside the configured allowlist even when the key exists', async () => {
    const narrow = await buildTestApp({ overrides: oidcOverrides(jwks.url, { algorithms: ['ES256'] }) });
    try {
      const response = await call(narrow, keyToken(rsa));
      expect(response.status).toBe(401);
      expect((await call(narrow, keyToken(ec))).status).toBe(200);
    } finally {
      await narrow.close();
    }
  });

  it('never uses or fetches keys a token brings along (jwk, jku, x5u)', async () => {
    const evil = await signingKey('RS256', 'evil');
    attacker.keys = [evil.publicJwk];
    const payload = claims(nowSeconds(), { org: 'tenant-a', scope: 'admin' });
    const tokens = {
      jwk: buildToken({ header: { alg: 'RS256', jwk: evil.publicJwk }, payload, key: evil.privateKey }),
      jku: buildToken({ header: { alg: 'RS256', kid: 'evil', jku: attacker.url }, payload, key: evil.privateKey }),
      x5u: buildToken({ header: { alg: 'RS256', kid: 'evil', x5u: attacker.url }, payload, key: evil.privateKey }),
    };
    for (const [name, token] of Object.entries(tokens)) await expectInvalid(token, name, `header ${name} not accepted`);
    expect(attacker.requests).toBe(0);
  });

  it('rejects crit, wrong segment counts and tokens over 8 KB', async () => {
    await expectInvalid(keyToken(rsa, {}, { crit: ['exp'] }), 'crit', 'crit header not supported');
    const [a, b, c] = keyToken(rsa).split('.');
    await expectInvalid(`${a}.${b}`, '2 segments', 'not three base64url segments');
    await expectInvalid(`${a}.${b}.${c}.${c}`, '4 segments', 'not three base64url segments');
    await expectInvalid(keyToken(rsa, { pad: 'x'.repeat(8200) }), 'over 8 KB', 'larger than 8192 bytes');
  });

  it('treats odd kid values as unknown keys: paths, SQL, 10 kB, non-strings', async () => {
    const odd = ['../../../../etc/passwd', "rsa-1' OR '1'='1", 'file:///etc/passwd', 'https://evil.example/jwks'];
    for (const kid of odd) {
      await expectInvalid(keyToken(rsa, {}, { kid }), kid, 'no key for the token kid');
    }
    await expectInvalid(keyToken(rsa, {}, { kid: 'k'.repeat(10_000) }), '10 kB kid', 'larger than 8192 bytes');
    await expectInvalid(keyToken(rsa, {}, { kid: 'k'.repeat(3000) }), '3 kB kid', 'kid is not a string');
    await expectInvalid(keyToken(rsa, {}, { kid: ['rsa-1'] }), 'array kid', 'kid is not a string');
    expect(attacker.requests).toBe(0);
  });
});

describe('oidc: key set caching and rotation', () => {
  it('fetches once, then refetches an unknown kid at most once per 30 s', async () => {
    const server = await new JwksServer().start();
    server.keys = [rsa.publicJwk];
    const app = await freshApp(server);
    try {
      expect((await call(app, keyToken(rsa))).status).toBe(200);
      expect((await call(app, keyToken(rsa))).status).toBe(200);
      expect(server.requests).toBe(1);

      // The IdP rotates in a new key. The first token with its kid comes inside the cooldown
      // of the initial fetch: no refetch, 401.
      server.keys = [rsa.publicJwk, rotated.publicJwk];
      const fresh = keyToken(rotated);
      expect((await call(app, fresh)).status).toBe(401);
      expect(server.requests).toBe(1);

      // After the cooldown, one unknown kid triggers one refetch and the new key works.
      app.advance(REFETCH_COOLDOWN_MS / 1000 + 1);
      expect((await call(app, keyToken(rotated))).status).toBe(200);
      expect(server.requests).toBe(2);

      // A flood of unknown kids right after costs no further fetches.
      for (let index = 0; index < 10; index += 1) {
        expect((await call(app, keyToken(rsa, {}, { kid: `unknown-${index}` }))).status).toBe(401);
      }
      expect(server.requests).toBe(2);
      app.advance(REFETCH_COOLDOWN_MS / 1000 + 1);
      expect((await call(app, keyToken(rsa, {}, { kid: 'unknown-again' }))).status).toBe(401);
      expect(server.requests).toBe(3);

      // A key removed from the set stops working once the set is refetched (tokens minted on
      // the app's advanced clock).
      server.keys = [rotated.publicJwk];
      app.advance(MAX_AGE_MS / 1000 + 1);
      const later = nowSeconds() + 2 * (REFETCH_COOLDOWN_MS / 1000 + 1) + MAX_AGE_MS / 1000 + 1;
      const removed = await call(app, keyToken(rsa, {}, {}, later));
      expect(removed.status).toBe(401);
      expect(detailOf(app, removed.body.request_id)).toContain('no key for the token kid');
      expect((await call(app, keyToken(rotated, {}, {}, later))).status).toBe(200);
      expect(server.requests).toBe(4);
    } finally {
      await app.close();
      await server.stop();
    }
  });

  it('shares one fetch between concurrent first requests', async () => {
    const server = await new JwksServer().start();
    server.keys = [rsa.publicJwk];
    const app = await freshApp(server);
    try {
      const responses = await Promise.all(Array.from({ length: 20 }, () => call(app, keyToken(rsa))));
      expect(responses.every((response) => response.status === 200)).toBe(true);
      expect(server.requests).toBe(1);
    } finally {
      await app.close();
      await server.stop();
    }
  });
});

describe('oidc: fails closed when the key set is unavailable', () => {
  it('answers 503 VEIL_AUTH_UNAVAILABLE when the JWKS endpoint errors, and backs off before retrying', async () => {
    const server = await new JwksServer().start();
    server.keys = [rsa.publicJwk];
    server.outageStatus = 503;
    const app = await freshApp(server);
    try {
      const first = await call(app, keyToken(rsa));
      expect(first.status).toBe(503);
      expect(first.body.code).toBe('VEIL_AUTH_UNAVAILABLE');
      expect((await call(app, keyToken(rsa))).status).toBe(503);
      expect(server.requests).toBe(1); // inside the failure backoff: no second fetch
      server.outageStatus = undefined;
      app.advance(FAILURE_BACKOFF_MS / 1000 + 1);
      expect((await call(app, keyToken(rsa))).status).toBe(200);
      expect(server.requests).toBe(2);
    } finally {
      await app.close();
      await server.stop();
    }
  });

  it('answers 503 when the endpoint is unreachable, serves from a fresh cache, and never uses a stale one', async () => {
    const server = await new JwksServer().start();
    server.keys = [rsa.publicJwk];
    const app = await freshApp(server);
    try {
      expect((await call(app, keyToken(rsa))).status).toBe(200);
      await server.stop(); // connection refused from now on
      // Within the cache age the known key keeps working without the IdP.
      app.advance(60);
      expect((await call(app, keyToken(rsa))).status).toBe(200);
      // A rotation refetch that cannot reach the IdP is an outage, not a bad token.
      const unknown = await call(app, keyToken(rotated));
      expect(unknown.status).toBe(503);
      // Past the maximum age the cached set is no longer trusted.
      app.advance(MAX_AGE_MS / 1000 + 1);
      const stale = await call(app, keyToken(rsa, {}, {}, nowSeconds() + 60 + MAX_AGE_MS / 1000 + 1));
      expect(stale.status).toBe(503);
      expect(stale.body.code).toBe('VEIL_AUTH_UNAVAILABLE');
    } finally {
      await app.close();
    }
  });

  it.each([
    ['not JSON', '<html>oops</html>'],
    ['not a key set', '{"keys":"nope"}'],
    ['only a symmetric key', JSON.stringify({ keys: [{ kty: 'oct', k: 'c2VjcmV0', kid: 'rsa-1' }] })],
    ['only encryption keys', JSON.stringify({ keys: [{ kty: 'RSA', n: 'AQAB', e: 'AQAB', use: 'enc' }] })],
  ])('treats a key set that is %s as unavailable', async (_name, body) => {
    const server = await new JwksServer().start();
    server.rawBody = body;
    const app = await freshApp(server);
    try {
      const response = await call(app, keyToken(rsa));
      expect(response.status).toBe(503);
      expect(response.body.code).toBe('VEIL_AUTH_UNAVAILABLE');
    } finally {
      await app.close();
      await server.stop();
    }
  });
});
