// The OIDC key set (auth.oidc.jwks_url), fetched and cached with explicit rules, and an injected
// clock and fetch so tests control both:
// - The set is fetched on first use and reused for MAX_AGE (10 minutes); after that it is
//   refetched before use.
// - A token whose kid is not in the set triggers one refetch (key rotation), at most once per
//   REFETCH_COOLDOWN (30 s) across all requests; inside the cooldown the token is simply
//   invalid. Concurrent refetches share one request.
// - Fail closed: when the set cannot be fetched (network error, timeout, non-200, not a key set,
//   no usable key, larger than 512 KB) and there is no fresh set, the request fails with 503
//   VEIL_AUTH_UNAVAILABLE; a stale set is never used past MAX_AGE, so a key removed at the IdP
//   cannot keep working through an outage. After a failed fetch, the next attempt waits
//   FAILURE_BACKOFF (5 s) so an outage does not turn every request into an outbound fetch.
// - Only RSA and EC public keys for signing are kept (`use` absent or `sig`, `key_ops` absent or
//   containing `verify`), reduced to their public members before import: a symmetric (`oct`)
//   key in the set can never become an HMAC secret, and a private key published by mistake is
//   used as a public key only.
import type { CryptoKey, JWK } from 'jose';
import { VeilError } from '@veil/common';
import type { OidcAlgorithm } from '../config/schema.js';
import { invalidToken, loadJose, type TokenHeader } from './token.js';

export const REFETCH_COOLDOWN_MS = 30_000;
export const MAX_AGE_MS = 10 * 60_000;
export const FAILURE_BACKOFF_MS = 5_000;
export const FETCH_TIMEOUT_MS = 5_000;
export const MAX_JWKS_BYTES = 512 * 1024;
export const MAX_JWKS_KEYS = 100;

export type FetchLike = (url: string, init: { signal: AbortSignal; headers: Record<string, string>; redirect: 'error' }) => Promise<Response>;

export interface JwksOptions {
  readonly url: string;
  readonly algorithms: readonly OidcAlgorithm[];
  readonly now: () => number;
  readonly fetch?: FetchLike;
}

interface CachedKey {
  readonly kid: string | undefined;
  readonly kty: 'RSA' | 'EC';
  readonly crv: string | undefined;
  readonly alg: string | undefined;
  readonly jwk: JWK;
  readonly imported: Map<string, Promise<CryptoKey>>;
}

/** Thrown (as a VeilError) when the key set cannot be obtained. */
function unavailable(detail: string): VeilError {
  return new VeilError('VEIL_AUTH_UNAVAILABLE', undefined, `jwks: ${detail}`);
}

class FetchFailure extends Error {}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Which key type and curve an algorithm needs. */
function compatible(key: CachedKey, alg: string): boolean {
  if (key.alg !== undefined && key.alg !== alg) return false;
  if (alg.startsWith('RS') || alg.startsWith('PS')) return key.kty === 'RSA';
  if (alg === 'ES256') return key.kty === 'EC' && key.crv === 'P-256';
  if (alg === 'ES384') return key.kty === 'EC' && key.crv === 'P-384';
  return false;
}

/** The public members of one usable signing key, or undefined to skip the entry. */
function usableKey(entry: unknown, algorithms: readonly string[]): CachedKey | undefined {
  if (!isPlainObject(entry)) return undefined;
  const { kty, kid, alg, use, key_ops: keyOps } = entry;
  if (use !== undefined && use !== 'sig') return undefined;
  if (keyOps !== undefined && !(Array.isArray(keyOps) && keyOps.includes('verify'))) return undefined;
  if (kid !== undefined && typeof kid !== 'string') return undefined;
  if (alg !== undefined && (typeof alg !== 'string' || !algorithms.includes(alg))) return undefined;
  const base = { kid, alg, imported: new Map<string, Promise<CryptoKey>>() };
  if (kty === 'RSA' && typeof entry.n === 'string' && typeof entry.e === 'string') {
    return { ...base, kty, crv: undefined, jwk: { kty, n: entry.n, e: entry.e } };
  }
  if (kty === 'EC' && (entry.crv === 'P-256' || entry.crv === 'P-384') && typeof entry.x === 'string' && typeof entry.y === 'string') {
    return { ...base, kty, crv: entry.crv, jwk: { kty, crv: entry.crv, x: entry.x, y: entry.y } };
  }
  return undefined;
}

async function readLimited(response: Response): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > MAX_JWKS_BYTES) throw new FetchFailure('too large');
  if (response.body === null) return '';
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_JWKS_BYTES) {
      await reader.cancel();
      throw new FetchFailure('too large');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export class JwksCache {
  readonly #options: JwksOptions;
  readonly #fetch: FetchLike;
  #keys: CachedKey[] | undefined;
  #fetchedAt = 0;
  #lastAttemptAt: number | undefined;
  #lastAttemptFailed = false;
  #inflight: Promise<void> | undefined;
  /** Outbound fetches started; exposed for tests and diagnostics. */
  fetchCount = 0;

  constructor(options: JwksOptions) {
    this.#options = options;
    this.#fetch = options.fetch ?? ((url, init) => fetch(url, init));
  }

  /** The verification key for a token header; throws VEIL_AUTH_INVALID or VEIL_AUTH_UNAVAILABLE. */
  async keyFor(header: TokenHeader): Promise<CryptoKey> {
    const now = this.#options.now();
    if (this.#keys === undefined || now - this.#fetchedAt > MAX_AGE_MS) {
      if (this.#lastAttemptFailed && this.#lastAttemptAt !== undefined && now - this.#lastAttemptAt < FAILURE_BACKOFF_MS) {
        throw unavailable('key set unavailable (backing off after a failed fetch)');
      }
      await this.#refresh();
    }
    let key = this.#select(header);
    if (key === undefined) {
      // Unknown kid: perhaps the IdP rotated. One refetch per cooldown, shared by everyone.
      if (this.#lastAttemptAt !== undefined && this.#options.now() - this.#lastAttemptAt < REFETCH_COOLDOWN_MS) {
        throw invalidToken('no key for the token kid');
      }
      await this.#refresh();
      key = this.#select(header);
      if (key === undefined) throw invalidToken('no key for the token kid');
    }
    let imported = key.imported.get(header.alg);
    if (imported === undefined) {
      const jwk = key.jwk;
      imported = loadJose().then(({ importJWK }) => importJWK(jwk, header.alg)) as Promise<CryptoKey>;
      key.imported.set(header.alg, imported);
    }
    try {
      return await imported;
    } catch {
      throw invalidToken('key could not be imported for the token alg');
    }
  }

  #select(header: TokenHeader): CachedKey | undefined {
    const keys = this.#keys ?? [];
    const candidates = keys.filter((key) => (header.kid === undefined || key.kid === header.kid) && compatible(key, header.alg));
    if (candidates.length === 1) return candidates[0];
    if (candidates.length > 1 && header.kid === undefined) throw invalidToken('token has no kid and several keys match');
    // Several keys with one kid: the set is ambiguous; take none rather than guess.
    if (candidates.length > 1) throw invalidToken('several keys share the token kid');
    return undefined;
  }

  /** One fetch at a time; callers wait for the running one. Throws VEIL_AUTH_UNAVAILABLE. */
  async #refresh(): Promise<void> {
    this.#inflight ??= this.#fetchOnce().finally(() => {
      this.#inflight = undefined;
    });
    await this.#inflight;
  }

  async #fetchOnce(): Promise<void> {
    this.#lastAttemptAt = this.#options.now();
    this.fetchCount += 1;
    try {
      const response = await this.#fetch(this.#options.url, {
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
        headers: { accept: 'application/json' },
        redirect: 'error',
      });
      if (response.status !== 200) {
        await response.body?.cancel();
        throw new FetchFailure(`status ${response.status}`);
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(await readLimited(response));
      } catch (error) {
        throw error instanceof FetchFailure ? error : new FetchFailure('not JSON');
      }
      if (!isPlainObject(parsed) || !Array.isArray(parsed.keys)) throw new FetchFailure('not a JWK set');
      if (parsed.keys.length > MAX_JWKS_KEYS) throw new FetchFailure('too many keys');
      const keys = parsed.keys.map((entry) => usableKey(entry, this.#options.algorithms)).filter((key) => key !== undefined);
      if (keys.length === 0) throw new FetchFailure('no usable signing key');
      this.#keys = keys;
      this.#fetchedAt = this.#options.now();
      this.#lastAttemptFailed = false;
    } catch (error) {
      this.#lastAttemptFailed = true;
      // A fresh set stays in use after a failed rotation refetch; only its age retires it.
      const reason = error instanceof FetchFailure ? error.message : error instanceof Error ? error.name : 'fetch failed';
      throw unavailable(reason);
    }
  }
}
