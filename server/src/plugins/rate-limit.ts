// Rate limiting (interface.md section 8 `rate_limit`, decisions.md 6 and 10; threats.md 19).
//
// One token bucket per caller in this process (buckets are per instance, not shared between
// replicas): a tenant's callers share their tenant's bucket; an untenanted caller has a bucket
// of its own, keyed by identity. Limits come from `rate_limit` (requests_per_second, burst_size)
// with per-tenant overrides under `tenants.<id>.rate_limit` (a missing field falls back to
// `rate_limit`), and above those the tenant's settings file of `tenants_directory` (the
// Kubernetes operator's, reloaded live: read per request, so a new limit applies to the next
// request). `rate_limit.enabled` (default false) switches the whole limiter.
//
// The bucket counts work, not requests (docs/config.md `rate_limit`):
//   - every authenticated request costs one unit, plus one per `bytes_per_unit` of body beyond
//     the first: charged by a root onRequest hook right after authentication, from
//     Content-Length, before the body is read (a body sent without Content-Length is charged
//     once it has been read, before validation);
//   - routes whose one request stands for many operations charge the rest up front with
//     chargeRateLimit: /v1/batch/transform and /v1/batch/detect one unit per item,
//     /v1/rag/ingest/batch one per document, /v1/rag/context one per chunk;
//   - work known only after it was done is charged after the response (chargeRateLimitAfter and
//     the entity count of the request's audit facts): one unit per RAG chunk an ingest made and
//     one per `entities_per_unit` entities found. It is never refused (the response is out) but
//     may put the bucket in debt, down to minus one burst, so the caller's next requests wait.
// One request never pays more than the burst up front: a request larger than the burst needs
// (and empties) a full bucket instead of never succeeding. Public routes (/livez, /readyz, CORS
// preflights) and the monitoring routes (route config `rateLimit: false`: /v1/health, /metrics)
// are never limited, so a busy caller cannot blind its own health checks and scrapes (they still
// need their credential and scope).
//
// A refused request gets 429 VEIL_RATE_LIMITED with `Retry-After` in whole seconds (rounded up)
// and takes nothing from the bucket. The clock is deps.now.
import { routeOptionsOf } from './request-slot.js';
import { VeilError } from '@veil/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticatedPrincipal, type Principal } from '../auth/principal.js';
import type { TenantRateLimitSettings } from '@veil/common';
import { factsOf } from '../audit/facts.js';
import type { RateLimitConfig, VeilConfig } from '../config/index.js';
import type { ConfigSlice } from '../config/index.js';
import type { ReloadManager } from '../reload/manager.js';
import { retryAfterSeconds, TokenBucketTable, type BucketLimits } from '../domain/ratelimit/token-bucket.js';
import { bodySize } from './json.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: the route is never charged to the caller's bucket (health, metrics). */
    rateLimit?: boolean;
  }
}

/** 429 with the seconds a client should wait; the error handler sets the Retry-After header. */
export class RateLimitedError extends VeilError {
  readonly retryAfterSeconds: number;

  constructor(retryAfterMs: number) {
    super('VEIL_RATE_LIMITED');
    this.retryAfterSeconds = retryAfterSeconds(retryAfterMs);
  }
}

/** What a request was charged against, for chargeRateLimit. */
interface Charge {
  readonly limiter: RateLimiter;
  readonly key: string;
  readonly limits: BucketLimits;
  /** Units this request has paid up front so far. */
  paid: number;
  /** Units of work done, to be debited after the response. */
  after: number;
  /** Whether the body was charged from Content-Length already. */
  readonly sized: boolean;
}

const charges = new WeakMap<FastifyRequest, Charge>();

/** The bucket key of a principal: its tenant, or (untenanted) its identity. */
export function bucketKeyOf(principal: Pick<Principal, 'tenant' | 'identity'>): string {
  // Length-prefixed parts so no tenant and identity pair can collide.
  return principal.tenant !== null ? `t:${principal.tenant.length}:${principal.tenant}` : `i:${principal.identity.length}:${principal.identity}`;
}

/**
 * The limits of a tenant (or of untenanted callers), per field: the tenant's settings file
 * (`live`), then `tenants.<id>.rate_limit`, then rate_limit.
 */
export function limitsFor(config: { readonly rate_limit: RateLimitConfig; readonly tenants: VeilConfig['tenants'] }, tenant: string | null, live?: TenantRateLimitSettings): BucketLimits {
  const override = tenant !== null && Object.hasOwn(config.tenants, tenant) ? config.tenants[tenant]?.rate_limit : undefined;
  const settings = tenant !== null ? live : undefined;
  return {
    ratePerSecond: settings?.requests_per_second ?? override?.requests_per_second ?? config.rate_limit.requests_per_second,
    burst: settings?.burst_size ?? override?.burst_size ?? config.rate_limit.burst_size,
  };
}

export class RateLimiter {
  readonly #table: TokenBucketTable;
  readonly #now: () => number;

  constructor(now: () => number, maxBuckets?: number) {
    this.#table = new TokenBucketTable(maxBuckets !== undefined ? { maxBuckets } : {});
    this.#now = now;
  }

  /** Take `units` or throw RateLimitedError (nothing taken). */
  take(key: string, limits: BucketLimits, units: number): void {
    if (units <= 0) return;
    const result = this.#table.take(key, limits, units, this.#now());
    if (!result.allowed) throw new RateLimitedError(result.retryAfterMs);
  }

  /** Charge work already done (never refused; the bucket may go into debt). */
  debit(key: string, limits: BucketLimits, units: number): void {
    if (units > 0) this.#table.debit(key, limits, units, this.#now());
  }

  /** Buckets held (for tests and diagnostics). */
  get size(): number {
    return this.#table.size;
  }
}

/** Units a body of `bytes` costs: one per `bytesPerUnit`, at least one (the request itself). */
export function bodyUnits(bytes: number, bytesPerUnit: number): number {
  return Math.max(1, Math.ceil(bytes / bytesPerUnit));
}

/**
 * Charge `units` more to the bucket the request was charged against (a batch's other items, an
 * ingest batch's documents, a context's chunks). A no-op when rate limiting is off or the route
 * is public. Throws RateLimitedError (429 VEIL_RATE_LIMITED) when the bucket cannot pay; nothing
 * is taken then.
 */
export function chargeRateLimit(request: FastifyRequest, units: number): void {
  const charge = charges.get(request);
  if (charge === undefined || !Number.isFinite(units) || units <= 0) return;
  // One request never pays more than a full bucket in total (it would never succeed).
  const extra = Math.min(charge.paid + units, charge.limits.burst) - charge.paid;
  if (extra <= 0) return;
  charge.limiter.take(charge.key, charge.limits, extra);
  charge.paid += extra;
}

/**
 * Charge `units` of work this request has done (chunks an ingest made), after the response:
 * never refused, it may put the bucket in debt. A no-op when rate limiting is off.
 */
export function chargeRateLimitAfter(request: FastifyRequest, units: number): void {
  const charge = charges.get(request);
  if (charge !== undefined && Number.isFinite(units) && units > 0) charge.after += units;
}

/** The declared body size, when the request has a valid Content-Length. */
function declaredLength(request: FastifyRequest): number | undefined {
  const header = request.headers['content-length'];
  if (header === undefined || !/^[0-9]{1,15}$/.test(header)) return undefined;
  return Number(header);
}

/**
 * Install the limiter's root onRequest hook. Call right after registerAuth (the hook reads the
 * principal the auth hook stored). Returns the limiter, or undefined when rate_limit is off.
 */
/** The limiter's dependencies: its settings, the clock, and the tenants' live rate-limit settings. */
export interface RateLimitDeps extends ConfigSlice<'rate_limit' | 'tenants'> {
  readonly now: () => number;
  readonly reload: Pick<ReloadManager, 'tenants'>;
}

export function registerRateLimit(app: FastifyInstance, deps: RateLimitDeps): RateLimiter | undefined {
  const config = deps.config;
  if (!config.rate_limit.enabled) return undefined;
  const limiter = new RateLimiter(deps.now);
  app.addHook('onRequest', (request, _reply, done) => {
    const scope = request.is404 ? 'authenticated' : routeOptionsOf(request).config.scope;
    const exempt = !request.is404 && routeOptionsOf(request).config.rateLimit === false;
    // Authentication failures never get here (the auth hook threw); a missing principal is a
    // public route and is not charged.
    const principal = scope === 'public' || exempt ? undefined : authenticatedPrincipal(request);
    if (principal === undefined) {
      done();
      return;
    }
    const live = deps.reload.tenants?.settingsOf(principal.tenant)?.rate_limit;
    const limits = limitsFor(config, principal.tenant, live);
    const length = declaredLength(request);
    // The request and its declared body, never more than a full bucket.
    const units = Math.min(limits.burst, bodyUnits(length ?? 0, config.rate_limit.bytes_per_unit));
    const charge: Charge = { limiter, key: bucketKeyOf(principal), limits, paid: units, after: 0, sized: length !== undefined };
    try {
      charge.limiter.take(charge.key, charge.limits, units);
    } catch (error) {
      done(error as Error);
      return;
    }
    charges.set(request, charge);
    done();
  });
  // A JSON body sent without Content-Length (chunked) is charged once read, before any work.
  app.addHook('preValidation', (request, _reply, done) => {
    const charge = charges.get(request);
    // The size the body parser recorded (a large body was read on a worker, never held as text here).
    const bytes = charge === undefined || charge.sized ? 0 : bodySize(request);
    if (bytes === 0) {
      done();
      return;
    }
    try {
      chargeRateLimit(request, bodyUnits(bytes, config.rate_limit.bytes_per_unit) - 1);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  });
  // Work known only now: chunks made (chargeRateLimitAfter) and entities found (audit facts).
  app.addHook('onResponse', (request, _reply, done) => {
    const charge = charges.get(request);
    if (charge !== undefined) {
      const entities = factsOf(request).entity_count ?? 0;
      charge.limiter.debit(charge.key, charge.limits, charge.after + Math.floor(entities / config.rate_limit.entities_per_unit));
    }
    done();
  });
  return limiter;
}
