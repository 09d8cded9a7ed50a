// The bounds every memory store takes (a global cap and a per-owner quota, in entries and for the
// stores with large values in bytes) and the one mapping from a refused write to the typed store
// error: a used-up quota is QuotaExceededError (that tenant's own 429), a full store is the
// store's fail-closed error (503 for everyone: the global cap is the last line, set above the sum
// of the quotas a deployment expects to be in use at once).
import { QuotaExceededError, StoreFullError, StoreUnavailableError } from '../types.js';
import type { Refusal } from './expiring-map.js';

export interface MemoryLimits {
  /** Entries across all owners (the global cap). */
  readonly maxEntries?: number;
  /** Entries of one owner (tenant); default: the global cap. */
  readonly maxPerOwner?: number;
  /** Approximate bytes (string lengths) across all owners; default unbounded. */
  readonly maxBytes?: number;
  /** Approximate bytes of one owner; default unbounded. */
  readonly maxBytesPerOwner?: number;
}

/**
 * The error for a refused write. A full store is StoreFullError where the caller has a code for
 * it (idempotency claims), else a StoreUnavailableError around it (fail closed).
 */
export function refusalError(store: string, refusal: Refusal, fullIsStoreFull = false): Error {
  if (refusal.scope === 'owner') return new QuotaExceededError(store, refusal.retryAtMs);
  return fullIsStoreFull ? new StoreFullError(store) : new StoreUnavailableError(store, new StoreFullError(store));
}

/** Bound options for ExpiringMap from MemoryLimits and a default global cap. */
export function mapBounds(limits: MemoryLimits, defaultMaxEntries: number): {
  maxEntries: number;
  maxPerOwner?: number;
  maxBytes?: number;
  maxBytesPerOwner?: number;
} {
  return {
    maxEntries: limits.maxEntries ?? defaultMaxEntries,
    ...(limits.maxPerOwner !== undefined ? { maxPerOwner: limits.maxPerOwner } : {}),
    ...(limits.maxBytes !== undefined ? { maxBytes: limits.maxBytes } : {}),
    ...(limits.maxBytesPerOwner !== undefined ? { maxBytesPerOwner: limits.maxBytesPerOwner } : {}),
  };
}
