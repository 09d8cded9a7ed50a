// A tenant's share of a state store used up (stores/types.ts QuotaExceededError) becomes that
// tenant's own answer: 429 VEIL_QUOTA_EXCEEDED, with Retry-After when the store knows when its
// earliest entry expires and frees room (memory stores, idempotency records everywhere); durable
// revocations never expire, so their refusal carries none. Other tenants are never refused for it.
import { VeilError } from '@veil/common';
import { retryAfterSeconds } from '../domain/ratelimit/token-bucket.js';
import { QuotaExceededError } from '../stores/types.js';

export class TenantQuotaError extends VeilError {
  /** Whole seconds until room frees up; undefined when it never does on its own. */
  readonly retryAfterSeconds: number | undefined;

  constructor(error: QuotaExceededError, nowMs: number) {
    super('VEIL_QUOTA_EXCEEDED', undefined, `${error.store} store: tenant quota reached`);
    this.retryAfterSeconds = error.retryAtMs === undefined ? undefined : retryAfterSeconds(error.retryAtMs - nowMs);
  }
}

/** Rethrow a store's quota refusal as the tenant's 429; anything else unchanged. */
export function rethrowQuota(error: unknown, nowMs: number): unknown {
  return error instanceof QuotaExceededError ? new TenantQuotaError(error, nowMs) : error;
}
