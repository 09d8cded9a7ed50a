// auth.mode api_key: the `X-API-Key` header against the configured entries. Keys are hashed
// (SHA-256) when the authenticator is built and only the digests are kept; a presented key is
// hashed and compared against EVERY entry with timingSafeEqual (no early exit), so neither
// which entry matched nor how far a guess got shows in the response time. Entries that carry
// only a `key_sha256` (the Kubernetes operator's files) are compared the same way: the stored
// digest is all the authenticator ever needed.
//
// An entry without `scopes` grants no scope at all (least privilege): it authenticates, so it
// reaches /v1/health and /v1/capabilities, and nothing else. Scopes are always explicit.
import { hash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { VeilError } from '@veil/common';
import type { ApiKeyConfig } from '../config/schema.js';
import { makePrincipal, type Principal } from './principal.js';
import type { Authenticator } from './types.js';

/** Longer than any configurable key (schema maxLength 4096); longer headers are not hashed. */
const MAX_PRESENTED_KEY_LENGTH = 4096;

interface HashedEntry {
  readonly digest: Buffer;
  readonly principal: Principal;
}

function digestOf(key: string): Buffer {
  return hash('sha256', key, 'buffer');
}

/** The 32-byte SHA-256 an entry is matched by: of its key, or its stored `key_sha256`. */
export function apiKeyEntryDigest(entry: ApiKeyConfig): Buffer {
  if (entry.key !== undefined) return digestOf(entry.key.reveal());
  const digest = Buffer.from(entry.key_sha256, 'hex');
  // The schema pins 64 lowercase hex; anything else would make timingSafeEqual throw.
  if (digest.length !== 32) throw new Error('api key entry: key_sha256 must be 64 hex characters');
  return digest;
}

export class ApiKeyAuthenticator implements Authenticator {
  readonly mode = 'api_key' as const;
  readonly #entries: readonly HashedEntry[];

  constructor(entries: readonly ApiKeyConfig[]) {
    this.#entries = entries.map((entry) => ({
      digest: apiKeyEntryDigest(entry),
      principal: makePrincipal({
        identity: entry.identity,
        tenant: entry.tenant_id ?? null,
        scopes: entry.scopes ?? [],
        role: entry.role,
        purpose: entry.purpose,
        accessLevel: entry.access_level,
      }),
    }));
  }

  authenticate(headers: IncomingHttpHeaders): Promise<Principal> {
    try {
      return Promise.resolve(this.authenticateNow(headers));
    } catch (error) {
      // authenticateNow throws VeilErrors only.
      return Promise.reject(error instanceof Error ? error : new VeilError('VEIL_INTERNAL'));
    }
  }

  authenticateNow(headers: IncomingHttpHeaders): Principal {
    const header = headers['x-api-key'];
    if (header === undefined || header === '') throw new VeilError('VEIL_AUTH_REQUIRED', 'authentication required: send X-API-Key');
    // Node joins repeated X-API-Key headers with ", "; such a value matches no entry anyway.
    if (typeof header !== 'string' || header.length > MAX_PRESENTED_KEY_LENGTH) {
      throw new VeilError('VEIL_AUTH_INVALID', undefined, 'api key: malformed header');
    }
    const presented = digestOf(header);
    let found: Principal | undefined;
    for (const entry of this.#entries) {
      // Every entry is compared; the match is remembered, never returned early.
      const equal = timingSafeEqual(presented, entry.digest);
      if (equal && found === undefined) found = entry.principal;
    }
    if (found === undefined) throw new VeilError('VEIL_AUTH_INVALID', undefined, 'api key: no matching entry');
    return found;
  }
}
