// POST /v1/rehydrate: restore model output under the policy, the caller, the restore mode and
// the output channel. Opening and restoring are services/rehydrate.ts (inline or on a worker by
// size); the deny list and the revocation digests are checked here, between the two halves.
// The halves are exported for /v1/rehydrate/stream (routes/stream.ts), which must apply the deny
// list and the revocations exactly as this route does.
import { VeilError } from '@veil/common';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { ringMaterial, type AppDeps } from '../deps.js';
import type { SessionPayload } from '../domain/seal/index.js';
import { restoreJsonValue } from '../domain/structured/index.js';
import {
  openForRehydrate,
  restoreOpened,
  type RehydrateEnvironment,
  type RehydrateRequest,
  type RehydrateResponse,
} from '../services/rehydrate.js';
import { partitionsFor, revokedEntryIds, withStore } from '../services/revocation.js';
import { assertNotDenied, incomingSession } from '../services/state.js';
import type { OpenedForRehydrate } from '../workers/offload-worker.js';
import { callerOf, fingerprint, principalOf, traceIdOf, type Principal } from './common.js';
import { RehydrateAnyBodySchema, RehydrateResponseSchema, type RehydrateAnyBody, type RehydrateBody } from './schemas.js';

/** The rehydrate parameters without the output (the ndjson stream sends output as deltas). */
export type RehydrateParams = Omit<RehydrateBody, 'output'>;

/** Resolve the incoming session and the caller into a restore request for `output`. */
export async function rehydrateRequestOf(deps: AppDeps, principal: Principal, params: RehydrateParams, output: string): Promise<RehydrateRequest> {
  const sessionState = await incomingSession(deps, params.session_id, params.session_state);
  if (sessionState === undefined) throw new VeilError('VEIL_VALIDATION_FAILED', 'session_state: is required');
  return {
    output,
    sessionState,
    restoreMode: params.restore_mode,
    restoreOverrides: params.restore_overrides,
    channel: params.output_channel ?? 'user_output',
    caller: callerOf(deps, principal, params.context),
    tenant: principal.tenant,
    traceId: traceIdOf(params.trace_id),
  };
}

export interface OpenedInline {
  readonly env: RehydrateEnvironment;
  readonly session: SessionPayload;
  /** Token ids whose values are revoked, computed after the session was opened. */
  readonly revokedIds: string[];
}

/** Open the session on the event loop, then check the deny list and the revocations. */
export async function openInline(deps: AppDeps, base: RehydrateRequest): Promise<OpenedInline> {
  const registry = deps.policies.registry;
  const env: RehydrateEnvironment = { keyRing: deps.keyRing, policy: (name) => registry.get(name), templates: deps.config.restore_templates, nowMs: deps.now() };
  const session = openForRehydrate(env, base.sessionState, base.tenant);
  await assertNotDenied(deps, session.sid);
  const revokedIds = await revokedEntryIds(deps.stores.revocation, deps.digestSecret, base.tenant, session.entries);
  return { env, session, revokedIds: [...revokedIds] };
}

/**
 * The whole rehydrate of one body: a response object (inline), or the response serialized on a
 * worker thread (large bodies), which the caller sends as is or parses.
 */
export async function rehydrateOnce(deps: AppDeps, principal: Principal, body: RehydrateBody, log: FastifyBaseLogger): Promise<RehydrateResponse | string> {
  const started = performance.now();
  const base = await rehydrateRequestOf(deps, principal, body, body.output);
  const sessionState = base.sessionState;
  const registry = deps.policies.registry;
  const logFields = { event: 'rehydrate_completed', trace: fingerprint(base.traceId ?? '') };
  if (body.output.length > deps.offload.threshold || sessionState.length > deps.offload.threshold) {
    const ring = ringMaterial(deps);
    const opened = (await deps.offload.run({
      op: 'rehydrate-open',
      sessionState,
      tenant: principal.tenant,
      ring,
      digestKey: deps.digestSecret,
      nowMs: deps.now(),
    })) as OpenedForRehydrate;
    await assertNotDenied(deps, opened.sid);
    const digests = opened.digests.map((item) => item.digest);
    const revoked = digests.length === 0 ? new Set<string>() : await withStore(() => deps.stores.revocation.revoked(partitionsFor(principal.tenant), digests));
    const revokedIds = opened.digests.filter((item) => revoked.has(item.digest)).map((item) => item.id);
    const json = (await deps.offload.run({
      op: 'rehydrate',
      request: { ...base, revokedIds },
      ring,
      policies: registry.snapshot(),
      templates: deps.config.restore_templates,
      nowMs: deps.now(),
    })) as string;
    log.info({ ...logFields, offloaded: true }, 'rehydrate_completed');
    return json;
  }
  const { env, session, revokedIds } = await openInline(deps, base);
  const response = restoreOpened(env, session, { ...base, revokedIds }, started);
  log.info({ ...logFields, resolved: response.tokens_resolved, unresolved: response.tokens_unresolved.length }, 'rehydrate_completed');
  return response;
}

/** output_json: restore every string of the document (keys included) on its own. */
async function rehydrateJson(deps: AppDeps, principal: Principal, body: RehydrateAnyBody, log: FastifyBaseLogger): Promise<Record<string, unknown>> {
  const started = performance.now();
  const base = await rehydrateRequestOf(deps, principal, body, '');
  const { env, session, revokedIds } = await openInline(deps, base);
  let traceId = base.traceId ?? '';
  const restored = restoreJsonValue(body.output_json, (text) => {
    const one = restoreOpened(env, session, { ...base, output: text, revokedIds }, started);
    traceId = one.trace_id;
    return { restoredText: one.restored_text, tokensResolved: one.tokens_resolved, tokensUnresolved: one.tokens_unresolved };
  });
  log.info({ event: 'rehydrate_completed', output: 'json', trace: fingerprint(traceId), resolved: restored.tokensResolved }, 'rehydrate_completed');
  return {
    restored_text: JSON.stringify(restored.value),
    restored_json: restored.value,
    tokens_resolved: restored.tokensResolved,
    tokens_unresolved: restored.tokensUnresolved,
    stats: { rehydrate_time_ms: Math.round((performance.now() - started) * 1000) / 1000 },
    trace_id: traceId,
  };
}

export function rehydrateRoutes(deps: AppDeps) {
  return function register(app: FastifyInstance): void {
    app.post<{ Body: RehydrateAnyBody }>(
      '/v1/rehydrate',
      { schema: { body: RehydrateAnyBodySchema, response: { 200: RehydrateResponseSchema } } },
      async (request, reply) => {
        const body = request.body;
        const hasJson = Object.hasOwn(body, 'output_json');
        if (hasJson === (body.output !== undefined)) {
          throw new VeilError('VEIL_VALIDATION_FAILED', 'output: send exactly one of output, output_json');
        }
        if (hasJson) return rehydrateJson(deps, principalOf(request), body, request.log);
        const result = await rehydrateOnce(deps, principalOf(request), { ...body, output: body.output ?? '' }, request.log);
        if (typeof result === 'string') return reply.type('application/json; charset=utf-8').send(result);
        return result;
      },
    );
  };
}
