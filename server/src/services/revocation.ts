// Revocation (erasure): values are never stored, only an HMAC-SHA-256 digest of (type,
// normalized value) under the digest secret, in the caller's tenant partition or the unscoped
// platform partition. Rehydrate asks which of the values it is about to restore are revoked in
// either partition and restores those as [DELETED]. A store outage fails closed; a tenant at its
// quota of the store gets its own 429 (services/quota.ts).
import { createHmac } from 'node:crypto';
import { VeilError } from '@veil/common';
import { normalizeValue } from '../domain/token/index.js';
import type { TokenEntry } from '../domain/types.js';
import { GLOBAL_PARTITION, StoreUnavailableError, type RevocationStore } from '../stores/types.js';
import { rethrowQuota } from './quota.js';

/**
 * The value a revocation store keeps to say which digest key its digests were made with: an
 * HMAC under that key of a fixed label, so it identifies the key without revealing it.
 */
export function digestKeyCheck(key: Buffer): string {
  return createHmac('sha256', key).update('veil/revocation-key-check/v1').digest('hex');
}

/**
 * Bind the store to this process's digest key at startup. A store written under another key
 * (a secret that changed, was generated per process, or differs between replicas) would find
 * none of its revocations again, and every erased value would restore in clear: refuse instead.
 * Returns a problem text naming the setting, or undefined when the keys agree.
 */
export async function checkDigestKey(store: RevocationStore, key: Buffer): Promise<string | undefined> {
  const check = digestKeyCheck(key);
  const stored = await store.keyCheck(check);
  if (stored === check) return undefined;
  return (
    'storage.digest_secret: the revocation store was written under another digest key, so none of its revocations would apply ' +
    '(an erased value would restore in clear). Start with the digest secret it was written with: storage.digest_secret ' +
    '(VEIL_DIGEST_SECRET), the session secret it was derived from, or the state-keys file kept beside the SQLite database'
  );
}

/** Unambiguous encoding: length-prefixed type, then the normalized value. */
export function revocationDigest(key: Buffer, type: string, value: string): string {
  const normalized = normalizeValue(type, value);
  return createHmac('sha256', key).update(`v1|${type.length}:${type}|`).update(normalized).digest('hex');
}

export function partitionOf(tenant: string | null): string {
  return tenant ?? GLOBAL_PARTITION;
}

/** Partitions that apply to a caller: its tenant's plus the unscoped platform partition. */
export function partitionsFor(tenant: string | null): string[] {
  return tenant === null ? [GLOBAL_PARTITION] : [tenant, GLOBAL_PARTITION];
}

/**
 * Run a revocation-store call, mapping its failures to the caller's answer. Writes pass the
 * request clock, which dates the Retry-After of a quota refusal (lookups are never refused).
 */
export async function withStore<T>(operation: () => Promise<T>, now: () => number = Date.now): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof StoreUnavailableError) throw new VeilError('VEIL_STORE_UNAVAILABLE', undefined, error.message);
    throw rethrowQuota(error, now());
  }
}

/** Ids of the given entries whose values are revoked for this caller. */
export async function revokedEntryIds(
  store: RevocationStore,
  key: Buffer,
  tenant: string | null,
  entries: readonly TokenEntry[],
): Promise<Set<string>> {
  if (entries.length === 0) return new Set();
  const byDigest = new Map<string, string[]>();
  for (const entry of entries) {
    const digest = revocationDigest(key, entry.type, entry.value);
    const ids = byDigest.get(digest);
    if (ids === undefined) byDigest.set(digest, [entry.id]);
    else ids.push(entry.id);
  }
  const revoked = await withStore(() => store.revoked(partitionsFor(tenant), [...byDigest.keys()]));
  const ids = new Set<string>();
  for (const digest of revoked) for (const id of byDigest.get(digest) ?? []) ids.add(id);
  return ids;
}
