// Revocation (erasure): values are never stored, only an HMAC-SHA-256 digest of (type,
// normalized value) under the digest secret, in the caller's tenant partition or the unscoped
// platform partition. Rehydrate asks which of the values it is about to restore are revoked in
// either partition and restores those as [DELETED]. A store outage fails closed; a tenant at its
// quota of the store gets its own 429 (services/quota.ts).
//
// Every spelling of a value erases together: a revoke request is digested in its canonical form
// (domain/token/normalize.ts: E.164 phones read in detector.default_region, folded digits and
// dashes, compact ids, RFC 5952 IPv6 ...), and a session's stored value is checked under every
// form it may have been revoked in (revocationForms): canonical in the session language's region
// and in the default region, a phone without its extension, and the form earlier releases
// digested, so a revocation made before an upgrade still holds after it.
import { createHmac } from 'node:crypto';
import { VeilError } from '@veil/common';
import { secretKeyOf } from '../domain/keys.js';
import { regionForLanguage } from '../domain/detect/phone.js';
import { encodedInnerValues, revocationForms, revokeForms } from '../domain/token/index.js';
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

function digestOf(key: Buffer, type: string, normalized: string): string {
  return createHmac('sha256', secretKeyOf(key)).update(`v1|${type.length}:${type}|`).update(normalized).digest('hex');
}

/**
 * The digests a revocation writes: unambiguous encoding (length-prefixed type, then the value
 * normalized with national phone numbers read in `region`); a name also in lower case, so every
 * casing of it erases (revokeForms).
 */
export function revocationDigests(key: Buffer, type: string, value: string, region: string): string[] {
  return revokeForms(type, value, region).map((form) => digestOf(key, type, form));
}

/**
 * Regions a session's values are read in for revocation: the region of the session's language
 * (where its national numbers were found) and the configured default (where a revoke request's
 * national numbers are read).
 */
export function revocationRegions(language: string | undefined, defaultRegion: string): string[] {
  const own = regionForLanguage(language, defaultRegion);
  return own === defaultRegion ? [defaultRegion] : [own, defaultRegion];
}

/**
 * Every digest under which a stored value may have been revoked (see the header); for an encoded
 * text holding values (detect/encoded.ts), also those of every value inside it, each under its own
 * type: revoking the SSN inside base64 of "My SSN is 078-05-1120" erases the run.
 */
export function entryDigests(key: Buffer, entry: Pick<TokenEntry, 'type' | 'value' | 'wholes'>, regions: readonly string[]): string[] {
  const digests = revocationForms(entry.type, entry.value, regions).map((form) => digestOf(key, entry.type, form));
  digests.push(...wholeDigests(key, entry, regions));
  for (const inner of encodedInnerValues(entry.value)) {
    for (const form of revocationForms(inner.type, inner.value, regions)) digests.push(digestOf(key, inner.type, form));
  }
  return digests;
}

/**
 * A part of a value split across JSON members (TokenEntry.wholes) is also erased by revoking the
 * whole value it is a part of: the digests of every whole, under the part's type (the whole's),
 * in every form a revocation of the whole may have been written in.
 */
export function wholeDigests(key: Buffer, entry: Pick<TokenEntry, 'type' | 'wholes'>, regions: readonly string[]): string[] {
  const digests: string[] = [];
  for (const whole of entry.wholes ?? []) {
    for (const form of revocationForms(entry.type, whole, regions)) digests.push(digestOf(key, entry.type, form));
  }
  return digests;
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

/** One revocation digest of a session entry (an entry has one per form its value may be revoked under). */
export interface EntryDigest {
  readonly id: string;
  readonly digest: string;
}

/**
 * Every revocation digest of an opened session's entries: computed where the session was opened
 * (the event loop, or the worker that opened a large blob) and looked up in the store by the
 * event loop (revokedIdsOf).
 */
export function sessionDigests(key: Buffer, session: { readonly language: string; readonly entries: readonly Pick<TokenEntry, 'id' | 'type' | 'value' | 'wholes'>[] }, defaultRegion: string): EntryDigest[] {
  const regions = revocationRegions(session.language, defaultRegion);
  return session.entries.flatMap((entry) => entryDigests(key, entry, regions).map((digest) => ({ id: entry.id, digest })));
}

/** The ids (each once) whose digests the store holds as revoked for this caller. */
export async function revokedIdsOf(store: RevocationStore, tenant: string | null, digests: readonly EntryDigest[], now?: () => number): Promise<string[]> {
  if (digests.length === 0) return [];
  const revoked = await withStore(() => store.revoked(partitionsFor(tenant), [...new Set(digests.map((item) => item.digest))]), now);
  return [...new Set(digests.filter((item) => revoked.has(item.digest)).map((item) => item.id))];
}
