// Idempotent retries (interface.md sections 3, 7, 8) on the routes that opt in with
// `config: {idempotent: true}`. A request with an Idempotency-Key claims it under a fingerprint
// of method, path and raw body; 2xx responses are recorded and replayed with
// `Idempotency-Replayed: true`; other statuses release the claim so an identical retry runs
// again. A full store refuses before the mutation runs (503), and so does a tenant's used-up
// share of it (its own 429 VEIL_QUOTA_EXCEEDED with Retry-After; other tenants go on).
//
// Keys are partitioned by the caller's tenant AND identity (stores/types.ts IdempotencyKey): a
// stored response (which can carry a session_state) is replayed only to the identity that
// created it. Another identity of the same tenant, or another untenanted caller, sending the
// same header value claims its own key and runs its own request. The quota is the tenant's:
// its identities share it (stores/shared.ts idempotencyOwner).
import { VeilError } from '@veil/common';
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler, preHandlerHookHandler } from 'fastify';
import type { ConfigSlice } from '../config/index.js';
import type { AppStores } from '../stores/types.js';
import { principalOf } from '../routes/common.js';
import { rethrowQuota } from '../services/quota.js';
import { StoreFullError, StoreUnavailableError, type IdempotencyKey } from '../stores/types.js';
import { bodyFingerprint } from './json.js';
import { requestSlot } from './request-slot.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route accepts Idempotency-Key (interface.md section 8). */
    idempotent?: boolean;
  }
}

/** 1 to 255 printable ASCII characters. */
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;
/** Responses larger than this are not kept: a replay answers RESULT_UNAVAILABLE instead. */
export const MAX_RECORDED_RESPONSE_BYTES = 1024 * 1024;

interface Claim {
  readonly key: IdempotencyKey;
  readonly fingerprint: string;
}
const claims = requestSlot<Claim>('veil.idempotency');

function storeError(error: unknown, nowMs: number): never {
  if (error instanceof StoreFullError) throw new VeilError('VEIL_IDEMPOTENCY_STORE_FULL');
  if (error instanceof StoreUnavailableError) throw new VeilError('VEIL_STORE_UNAVAILABLE', undefined, error.message);
  throw rethrowQuota(error, nowMs);
}

export function registerIdempotency(app: FastifyInstance, deps: ConfigSlice<'idempotency'> & { readonly stores: Pick<AppStores, 'idempotency'>; readonly now: () => number }): void {
  const ttlMs = deps.config.idempotency.ttl_seconds * 1000;
  const inProgressMs = deps.config.idempotency.in_progress_ttl_seconds * 1000;
  const store = deps.stores.idempotency;

  /** Claim the key before the handler runs; a replay or a refusal answers here. */
  const claim = async (request: FastifyRequest, reply: FastifyReply, header: unknown): Promise<boolean> => {
    if (typeof header !== 'string' || !KEY_PATTERN.test(header)) throw new VeilError('VEIL_IDEMPOTENCY_KEY_INVALID');
    const principal = principalOf(request);
    const key: IdempotencyKey = { tenant: principal.tenant, identity: principal.identity, key: header };
    // Hashed on the worker for a large body (plugins/json.ts), so the loop never walks its bytes.
    const fingerprint = bodyFingerprint(request);
    const nowMs = deps.now();
    const result = await store.claim(key, fingerprint, nowMs, inProgressMs, ttlMs).catch((error: unknown) => storeError(error, nowMs));
    switch (result.state) {
      case 'claimed':
        claims.set(request, { key, fingerprint });
        return false;
      case 'completed':
        void reply.code(result.response.status).headers(result.response.headers).header('idempotency-replayed', 'true');
        void reply.send(result.response.body);
        return true;
      case 'in_progress':
        throw new VeilError('VEIL_IDEMPOTENCY_IN_PROGRESS');
      case 'mismatch':
        throw new VeilError('VEIL_IDEMPOTENCY_KEY_REUSE');
      case 'result_unavailable':
        throw new VeilError('VEIL_IDEMPOTENCY_RESULT_UNAVAILABLE');
    }
  };

  /** Record a 2xx answer for replays; release the claim otherwise. */
  const settle = async (request: FastifyRequest, reply: FastifyReply, payload: unknown, claim: Claim): Promise<void> => {
    try {
      if (reply.statusCode >= 200 && reply.statusCode < 300) {
        const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined;
        const contentType = reply.getHeader('content-type');
        const recorded =
          body !== undefined && Buffer.byteLength(body) <= MAX_RECORDED_RESPONSE_BYTES
            ? { status: reply.statusCode, headers: { 'content-type': typeof contentType === 'string' ? contentType : 'application/json; charset=utf-8' }, body }
            : undefined;
        await store.complete(claim.key, claim.fingerprint, recorded, deps.now(), ttlMs);
      } else {
        await store.release(claim.key, claim.fingerprint);
      }
    } catch (error) {
      // The mutation already happened; the answer still goes out. A retry will then see the
      // claim in progress until it is reclaimable.
      request.log.error({ request_id: request.id, err: { type: error instanceof Error ? error.name : 'unknown' } }, 'idempotency record failed');
    }
  };

  // Callback-style hooks: a request without an Idempotency-Key header (most) passes through
  // without a promise or a store call.
  const preHandler: preHandlerHookHandler = function idempotencyClaim(request, reply, done) {
    const header = request.headers['idempotency-key'];
    if (header === undefined) {
      done();
      return;
    }
    claim(request, reply, header).then(
      // A replay was answered: the lifecycle stops here (done is not called).
      (replayed) => {
        if (!replayed) done();
      },
      (error: unknown) => done(error as Error),
    );
  };
  const onSend: onSendHookHandler = function idempotencyRecord(request, reply, payload, done) {
    const pending = claims.get(request);
    if (pending === undefined) {
      done(null, payload);
      return;
    }
    claims.delete(request);
    void settle(request, reply, payload, pending).then(() => done(null, payload));
  };

  // Only the routes that opt in get the hooks; every other route pays nothing for them.
  app.addHook('onRoute', (route) => {
    if (route.config?.idempotent !== true) return;
    route.preHandler = [...toArray(route.preHandler), preHandler];
    route.onSend = [...toArray(route.onSend), onSend];
  });
}

function toArray<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}
