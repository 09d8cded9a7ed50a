// POST /v1/rehydrate: restore model output under the policy, the caller, the restore mode and
// the output channel. Opening and restoring are services/rehydrate.ts (inline or on a worker by
// size); the deny list and the revocation digests are checked here, between the two halves.
// The halves are exported for /v1/rehydrate/stream (routes/stream.ts), which must apply the deny
// list and the revocations exactly as this route does.
import { isVeilError, VeilError } from '@veil/common';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { auditFacts, factSink, NO_FACTS, type FactSink } from '../audit/facts.js';
import { keyRingFor, policiesFor, type AppDeps } from '../deps.js';
import type { SessionPayload } from '../domain/seal/index.js';
import { jsonCost } from '../services/offload.js';
import { openOffloaded, restoreOffloaded } from '../services/rehydrate-offload.js';
import { outputProtectionSettings } from '../services/output-guard.js';
import {
  openForRehydrate,
  restoreJsonOpened,
  restoreOpened,
  type RehydrateEnvironment,
  type RehydrateRequest,
  type RehydrateResponse,
} from '../services/rehydrate.js';
import { revocationRegions, revokedEntryIds } from '../services/revocation.js';
import { assertNotDenied, incomingSession } from '../services/state.js';
import type { DeferredSource, OffloadedRehydrate } from '../workers/offload-worker.js';
import { deferredSource } from '../plugins/json.js';
import { callerOf, fingerprint, principalOf, sendJson, traceIdOf, type Principal } from './common.js';
import { RehydrateAnyBodySchema, RehydrateResponseSchema, type RehydrateAnyBody, type RehydrateBody } from './schemas.js';
import type { JsonText } from '../services/json-text.js';

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
export async function openInline(deps: AppDeps, base: RehydrateRequest, facts: FactSink = NO_FACTS): Promise<OpenedInline> {
  // The tenant's ring opens its blob; its allowed policies bound the session's policy.
  const registry = policiesFor(deps, base.tenant);
  const env: RehydrateEnvironment = {
    keyRing: keyRingFor(deps, base.tenant),
    policy: (name) => registry.get(name),
    templates: deps.config.restore_templates,
    outputProtection: outputProtectionSettings(deps.config),
    nowMs: deps.now(),
  };
  const session = openForRehydrate(env, base.sessionState, base.tenant);
  facts({ session_id: session.sid, policy: session.policy, trace_id: base.traceId ?? '' });
  await assertNotDenied(deps, session);
  const regions = revocationRegions(session.language, deps.config.detector.default_region);
  const revokedIds = await revokedEntryIds(deps.stores.revocation, deps.digestSecret, base.tenant, session.entries, regions);
  return { env, session, revokedIds: [...revokedIds] };
}

/** A rehydrate refused by the output guard (action block) still records that it triggered. */
async function recordingBlock<T>(facts: FactSink, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isVeilError(error) && error.code === 'VEIL_OUTPUT_BLOCKED') facts({ output_guard: true });
    throw error;
  }
}

export async function rehydrateOnce(
  deps: AppDeps,
  principal: Principal,
  body: RehydrateBody,
  log: FastifyBaseLogger,
  facts: FactSink = NO_FACTS,
  segments = false,
): Promise<RehydrateResponse | OffloadedRehydrate> {
  return recordingBlock(facts, () => rehydrateWhole(deps, principal, body, log, facts, segments));
}

/**
 * The whole rehydrate of one body: a response object (inline), or the response serialized on a
 * worker thread (large bodies), which the caller sends as is (with `segments`: the restored text
 * already cut for the stream, and the rest of the body).
 */
async function rehydrateWhole(
  deps: AppDeps,
  principal: Principal,
  body: RehydrateBody,
  log: FastifyBaseLogger,
  facts: FactSink,
  segments: boolean,
): Promise<RehydrateResponse | OffloadedRehydrate> {
  const started = performance.now();
  const base = await rehydrateRequestOf(deps, principal, body, body.output);
  const logFields = { event: 'rehydrate_completed', trace_id: fingerprint(base.traceId ?? '') };
  if (deps.offload.offloads(Math.max(body.output.length, base.sessionState.length))) {
    const { revokedIds } = await openOffloaded(deps, base, facts);
    const done = await restoreOffloaded(deps, base, revokedIds, facts, segments ? { shape: 'segments' } : {});
    log.info({ ...logFields, offloaded: true, resolved: done.tokensResolved }, 'rehydrate_completed');
    return done;
  }
  const { env, session, revokedIds } = await openInline(deps, base, facts);
  const response = restoreOpened(env, session, { ...base, revokedIds }, started);
  facts({ entity_count: response.tokens_resolved, ...(response.output_guard !== undefined ? { output_guard: response.output_guard.triggered } : {}) });
  log.info({ ...logFields, resolved: response.tokens_resolved, unresolved: response.tokens_unresolved.length }, 'rehydrate_completed');
  return response;
}

/** output_json: every string of the document (keys included) restored on its own; a large document on a worker. */
async function rehydrateJson(
  deps: AppDeps,
  principal: Principal,
  body: RehydrateAnyBody,
  log: FastifyBaseLogger,
  facts: FactSink,
  source: DeferredSource | undefined,
): Promise<Record<string, unknown> | JsonText> {
  const started = performance.now();
  const base = await rehydrateRequestOf(deps, principal, body, '');
  // A document still in its raw body (a large one) is parsed on the worker that restores it.
  const cost = source !== undefined ? source.raw.length : Math.max(jsonCost(body.output_json, deps.offload.threshold), base.sessionState.length);
  if (deps.offload.offloads(cost)) {
    const { revokedIds } = await openOffloaded(deps, base, facts);
    const done = await restoreOffloaded(deps, base, revokedIds, facts, { document: source !== undefined ? { source } : { value: body.output_json } });
    log.info({ event: 'rehydrate_completed', output: 'json', offloaded: true, trace_id: fingerprint(base.traceId ?? ''), resolved: done.tokensResolved }, 'rehydrate_completed');
    return done.body;
  }
  const { env, session, revokedIds } = await openInline(deps, base, facts);
  const response = restoreJsonOpened(env, session, { ...base, revokedIds }, body.output_json, started);
  facts({ entity_count: response.tokens_resolved, ...(response.output_guard !== undefined ? { output_guard: response.output_guard.triggered } : {}) });
  log.info({ event: 'rehydrate_completed', output: 'json', trace_id: fingerprint(response.trace_id), resolved: response.tokens_resolved }, 'rehydrate_completed');
  return { ...response };
}

/** A rehydrate a worker serialized. */
export function isOffloaded(result: object): result is OffloadedRehydrate {
  return 'body' in result && 'tokensResolved' in result;
}

export function rehydrateRoutes(deps: AppDeps) {
  return function register(app: FastifyInstance): void {
    app.post<{ Body: RehydrateAnyBody }>(
      '/v1/rehydrate',
      { schema: { body: RehydrateAnyBodySchema, response: { 200: RehydrateResponseSchema } }, config: { scope: 'rehydrate', deferDocuments: true } },
      async (request, reply) => {
        const body = request.body;
        if (body.trace_id !== undefined) auditFacts(request, { trace_id: body.trace_id });
        const hasJson = Object.hasOwn(body, 'output_json');
        if (hasJson === (body.output !== undefined)) {
          throw new VeilError('VEIL_VALIDATION_FAILED', 'output: send exactly one of output, output_json');
        }
        const result = hasJson
          ? await recordingBlock(factSink(request), () => rehydrateJson(deps, principalOf(request), body, request.log, factSink(request), deferredSource(request, 'output_json')))
          : await rehydrateOnce(deps, principalOf(request), { ...body, output: body.output ?? '' }, request.log, factSink(request));
        if (typeof result === 'string' || result instanceof Uint8Array) return sendJson(reply, [result]);
        if (isOffloaded(result)) return sendJson(reply, [result.body]);
        return result;
      },
    );
  };
}
