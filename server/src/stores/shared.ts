// Rules every backend applies the same way, kept in one place so memory and SQLite cannot drift
// (the Redis Lua scripts in redis/scripts.ts mirror them; the conformance suite checks all
// three): the idempotency claim decision, the retention of a claim record, and the mapping of a
// backend error to the typed store errors, the storage key of a partitioned idempotency key and
// the tenant whose quota it counts against.
import { GLOBAL_PARTITION, QuotaExceededError, StoreFullError, StoreUnavailableError, type ClaimResult, type IdempotencyKey, type StoredResponse } from './types.js';

/** What a backend keeps per idempotency key. `done` false is an in-progress claim. */
export interface IdempotencyRecord {
  readonly fingerprint: string;
  readonly done: boolean;
  /** When the current claim was taken (in-progress records only). */
  readonly claimedAtMs: number;
  /** Retention end: the key is forgotten (absent) from this instant on. */
  readonly expiresAtMs: number;
  /** Completed records only; undefined marks result_unavailable. */
  readonly response?: StoredResponse | undefined;
}

/**
 * The one string a backend stores an idempotency record under: a layout tag, the tenant (`-`
 * for none, else `t<length>:<tenant>`), the identity as `<length>:<identity>`, then the header
 * value. Every variable part before the last is length-prefixed, so the encoding is injective:
 * no (tenant, identity, key) triple can produce another's string, whatever characters the parts
 * hold (`|`, `:`, NUL, braces). The `p2` tag keeps records written before identities were part of
 * the key (which were tenant-only) from ever matching; they simply expire.
 */
export function idempotencyStorageKey(key: IdempotencyKey): string {
  const tenant = key.tenant === null ? '-' : `t${key.tenant.length}:${key.tenant}`;
  return `p2|${tenant}|${key.identity.length}:${key.identity}|${key.key}`;
}

/**
 * Whose quota an idempotency record counts against: its tenant, or GLOBAL_PARTITION for the
 * untenanted callers, who share one quota (like their revocations; services/revocation.ts
 * partitionOf). The identity does not split a tenant's share: a tenant's identities share it.
 */
export function idempotencyOwner(key: IdempotencyKey): string {
  return key.tenant ?? GLOBAL_PARTITION;
}

/**
 * The claim decision for a live record (one whose retention has not ended), or `take` when the
 * caller now owns the key: absent, expired, or an identical request whose claim is older than the
 * in-progress TTL (abandoned, e.g. its replica crashed mid-request). A different fingerprint is a
 * mismatch for as long as the key is retained, whatever the record's state: the key was already
 * used for another request, and an abandoned claim may have executed its mutation.
 */
export function decideClaim(
  record: IdempotencyRecord | undefined,
  fingerprint: string,
  nowMs: number,
  inProgressTtlMs: number,
): ClaimResult | 'take' {
  if (record === undefined || record.expiresAtMs <= nowMs) return 'take';
  if (record.fingerprint !== fingerprint) return { state: 'mismatch' };
  if (record.done) {
    return record.response === undefined ? { state: 'result_unavailable' } : { state: 'completed', response: record.response };
  }
  return nowMs - record.claimedAtMs < inProgressTtlMs ? { state: 'in_progress' } : 'take';
}

/**
 * Retention of a fresh claim. A claim is kept for the key's full TTL (so a different body under
 * the same key stays a mismatch) and never shorter than the in-progress TTL, so an odd
 * configuration (ttl below in_progress_ttl) cannot let a second request in while the first runs.
 */
export function claimRetentionMs(inProgressTtlMs: number, ttlMs: number): number {
  return Math.max(inProgressTtlMs, ttlMs);
}

export function serializeResponse(response: StoredResponse): string {
  return JSON.stringify({ status: response.status, headers: response.headers, body: response.body });
}

/** Parse a response written by serializeResponse; anything else is a corrupt store. */
export function parseResponse(text: string): StoredResponse {
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null) throw new Error('corrupt stored response');
  const { status, headers, body } = value as Record<string, unknown>;
  if (typeof status !== 'number' || typeof body !== 'string' || typeof headers !== 'object' || headers === null) {
    throw new Error('corrupt stored response');
  }
  const headerMap: Record<string, string> = {};
  for (const [name, headerValue] of Object.entries(headers)) {
    if (typeof headerValue !== 'string') throw new Error('corrupt stored response');
    headerMap[name] = headerValue;
  }
  return { status, headers: headerMap, body };
}

/**
 * Turn any backend failure into the typed error callers map to their fail-closed code. The typed
 * errors pass through unchanged so a StoreFullError raised on purpose keeps its meaning.
 */
export function asStoreError(store: string, error: unknown): StoreUnavailableError | StoreFullError | QuotaExceededError {
  if (error instanceof StoreUnavailableError || error instanceof StoreFullError || error instanceof QuotaExceededError) return error;
  return new StoreUnavailableError(store, error);
}
