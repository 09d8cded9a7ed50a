// Test support for the auth layer: config overrides per mode, generated RSA and EC signing keys,
// a raw token builder (any header, any payload text, any signature, so malformed and hostile
// tokens can be made byte for byte), and a local JWKS server on 127.0.0.1 with a request
// counter and an outage switch. Used by the in-process tests and the e2e suite.
import { createHmac, constants, KeyObject, sign as cryptoSign } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, type JWK } from 'jose';

export const JWT_SECRET = 'jwt-test-secret-0123456789abcdef-0123456789';
export const ISSUER = 'https://issuer.test.veil';
export const AUDIENCE = 'veil-api';

/** Overrides for buildTestApp / CLI env that put the app in a non-dev mode (audit waived). */
export function apiKeyOverrides(keys: readonly Record<string, unknown>[]): Record<string, unknown> {
  return { auth: { mode: 'api_key', api_keys: keys }, audit: { allow_ephemeral: true } };
}

export function jwtOverrides(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    auth: { mode: 'jwt', jwt: { secret: JWT_SECRET, issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256', 'HS384', 'HS512'], ...extra } },
    audit: { allow_ephemeral: true },
  };
}

export function oidcOverrides(jwksUrl: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    auth: {
      mode: 'oidc',
      oidc: { issuer: ISSUER, audience: AUDIENCE, jwks_url: jwksUrl, tenant_claim: 'org', algorithms: ['RS256', 'PS256', 'ES256', 'ES384'], ...extra },
    },
    audit: { allow_ephemeral: true },
  };
}

export interface SigningKey {
  readonly alg: string;
  readonly kid: string;
  readonly privateKey: KeyObject;
  /** The public JWK as a JWKS would publish it (with kid, alg, use). */
  readonly publicJwk: JWK;
  /** The public key as PEM (SPKI): the "secret" of an HS/RS confusion attack. */
  readonly publicPem: string;
}

export async function signingKey(alg: 'RS256' | 'PS256' | 'ES256' | 'ES384', kid: string): Promise<SigningKey> {
  const pair = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(pair.publicKey);
  return {
    alg,
    kid,
    privateKey: KeyObject.from(pair.privateKey),
    publicJwk: { ...jwk, kid, alg, use: 'sig' },
    publicPem: await exportSPKI(pair.publicKey),
  };
}

function b64(data: string | Buffer): string {
  return Buffer.from(data).toString('base64url');
}

/** Sign `input` with `alg` (HS* with a secret; RS/PS/ES with a private key). */
export function signBytes(alg: string, key: KeyObject | string | Buffer, input: string): Buffer {
  const bits = alg.slice(2);
  const hash = `sha${bits}`;
  if (alg.startsWith('HS')) return createHmac(hash, key).update(input).digest();
  const keyObject = key as KeyObject;
  if (alg.startsWith('RS')) return cryptoSign(hash, Buffer.from(input), keyObject);
  if (alg.startsWith('PS')) return cryptoSign(hash, Buffer.from(input), { key: keyObject, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: Number(bits) / 8 });
  if (alg.startsWith('ES')) return cryptoSign(hash, Buffer.from(input), { key: keyObject, dsaEncoding: 'ieee-p1363' });
  throw new Error(`unsupported alg ${alg}`);
}

/**
 * A compact token from a header and payload given as objects or as exact JSON text; signed with
 * `key` under `signAs` (default: the header's alg), or with `signature` verbatim.
 */
export function buildToken(options: {
  header: Record<string, unknown> | string;
  payload: Record<string, unknown> | string;
  key?: KeyObject | string | Buffer;
  signAs?: string;
  signature?: string;
}): string {
  const headerText = typeof options.header === 'string' ? options.header : JSON.stringify(options.header);
  const payloadText = typeof options.payload === 'string' ? options.payload : JSON.stringify(options.payload);
  const input = `${b64(headerText)}.${b64(payloadText)}`;
  if (options.signature !== undefined) return `${input}.${options.signature}`;
  const alg = options.signAs ?? (JSON.parse(headerText) as { alg: string }).alg;
  if (options.key === undefined) throw new Error('buildToken: key or signature required');
  return `${input}.${b64(signBytes(alg, options.key, input))}`;
}

/** Standard valid claims at `nowSeconds`, overridable. */
export function claims(nowSeconds: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { iss: ISSUER, aud: AUDIENCE, sub: 'user-1', iat: nowSeconds, exp: nowSeconds + 300, ...extra };
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** A valid HS256 token for jwt mode. */
export function hsToken(extra: Record<string, unknown> = {}, options: { alg?: string; at?: number } = {}): string {
  const alg = options.alg ?? 'HS256';
  return buildToken({ header: { alg, typ: 'JWT' }, payload: claims(options.at ?? nowSeconds(), extra), key: JWT_SECRET });
}

/** A valid token signed by `key` (oidc mode). */
export function keyToken(key: SigningKey, extra: Record<string, unknown> = {}, header: Record<string, unknown> = {}, at = nowSeconds()): string {
  return buildToken({ header: { alg: key.alg, typ: 'JWT', kid: key.kid, ...header }, payload: claims(at, { org: 'tenant-a', ...extra }), key: key.privateKey });
}

/** A JWKS endpoint on 127.0.0.1 serving `keys`, with a request counter and outage switch. */
export class JwksServer {
  keys: JWK[] = [];
  /** When set, every request gets this status with no key set. */
  outageStatus: number | undefined;
  /** Extra raw body to serve instead of the key set (malformed-JWKS tests). */
  rawBody: string | undefined;
  requests = 0;
  readonly #server: Server;
  #url = '';

  constructor() {
    this.#server = createServer((request, response) => {
      this.requests += 1;
      if (request.url !== '/jwks.json') {
        response.writeHead(404).end();
        return;
      }
      if (this.outageStatus !== undefined) {
        response.writeHead(this.outageStatus, { 'content-type': 'text/plain' }).end('down');
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end(this.rawBody ?? JSON.stringify({ keys: this.keys }));
    });
  }

  get url(): string {
    return this.#url;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    const address = this.#server.address() as AddressInfo;
    this.#url = `http://127.0.0.1:${address.port}/jwks.json`;
    return this;
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
