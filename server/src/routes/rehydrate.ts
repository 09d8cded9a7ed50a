// POST /v1/rehydrate: restore model output under the policy, the caller, the restore mode and
// the output channel. Opening and restoring are services/rehydrate.ts (inline or on a worker by
// size); the deny list and the revocation digests are checked here, between the two halves.
// The halves are exported for /v1/rehydrate/stream (routes/stream.ts), which must apply the deny
// list and the revocations exactly as this route does.
import { isVeilError, VeilError } from '@veil/common';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { auditFacts, factSink, NO_FACTS, type FactSink } from '../audit/facts.js';
import { keyRingFor, policiesFor, ringMaterial, type AppDeps } from '../deps.js';
import type { SessionPayload } from '../domain/seal/index.js';
import { restoreJsonValue } from '../domain/structured/index.js';
import { guardJsonValue, type OutputGuardSummary } from '../domain/guard/index.js';
import { outputProtectionSettings } from '../services/output-guard.js';
import {
  openForRehydrate,
  outputGuardFor,
  restoreOpened,
  withOutputGuard,
  type RehydrateEnvironment,
  type RehydrateRequest,
  type RehydrateResponse,
} from '../services/rehydrate.js';
import { partitionsFor, revokedEntryIds, withStore } from '../services/revocation.js';
import { assertNotDenied, incomingSession } from '../services/state.js';
import type { OffloadedRehydrate, OpenedForRehydrate } from '../workers/offload-worker.js';
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
  const revokedIds = await revokedEntryIds(deps.stores.revocation, deps.digestSecret, base.tenant, session.entries);
  return { env, session, revokedIds: [...revokedIds] };
}

/**
 * The whole rehydrate of one body: a response object (inline), or the response serialized on a
 * worker thread (large bodies), which the caller sends as is or parses.
 */
/** tokens_resolved of a response a worker serialized: the key, quoted, cannot occur inside a JSON string. */
function resolvedCount(json: string): number | undefined {
  const at = json.lastIndexOf('"tokens_resolved":');
  const match = at === -1 ? null : /^"tokens_resolved":(\d+)/.exec(json.slice(at, at + 40));
  return match === null ? undefined : Number(match[1]);
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
): Promise<RehydrateResponse | string> {
  return recordingBlock(facts, () => rehydrateWhole(deps, principal, body, log, facts));
}

async function rehydrateWhole(
  deps: AppDeps,
  principal: Principal,
  body: RehydrateBody,
  log: FastifyBaseLogger,
  facts: FactSink,
): Promise<RehydrateResponse | string> {
  const started = performance.now();
  const base = await rehydrateRequestOf(deps, principal, body, body.output);
  const sessionState = base.sessionState;
  const registry = policiesFor(deps, principal.tenant);
  const logFields = { event: 'rehydrate_completed', trace_id: fingerprint(base.traceId ?? '') };
  if (body.output.length > deps.offload.threshold || sessionState.length > deps.offload.threshold) {
    const ring = ringMaterial(deps, principal.tenant);
    const opened = (await deps.offload.run({
      op: 'rehydrate-open',
      sessionState,
      tenant: principal.tenant,
      ring,
      digestKey: deps.digestSecret,
      nowMs: deps.now(),
    })) as OpenedForRehydrate;
    facts({ session_id: opened.sid, trace_id: base.traceId ?? '', ...(opened.policy !== undefined ? { policy: opened.policy } : {}) });
    await assertNotDenied(deps, opened);
    const digests = opened.digests.map((item) => item.digest);
    const revoked = digests.length === 0 ? new Set<string>() : await withStore(() => deps.stores.revocation.revoked(partitionsFor(principal.tenant), digests));
    const revokedIds = opened.digests.filter((item) => revoked.has(item.digest)).map((item) => item.id);
    const done = (await deps.offload.run({
      op: 'rehydrate',
      request: { ...base, revokedIds },
      ring,
      policies: registry.snapshot(),
      templates: deps.config.restore_templates,
      outputProtection: outputProtectionSettings(deps.config),
      nowMs: deps.now(),
    })) as OffloadedRehydrate;
    const json = done.body;
    if (deps.config.output_protection.enabled) facts({ output_guard: done.outputGuardTriggered });
    const resolved = resolvedCount(json);
    if (resolved !== undefined) facts({ entity_count: resolved });
    log.info({ ...logFields, offloaded: true }, 'rehydrate_completed');
    return json;
  }
  const { env, session, revokedIds } = await openInline(deps, base, facts);
  const response = restoreOpened(env, session, { ...base, revokedIds }, started);
  facts({ entity_count: response.tokens_resolved, ...(response.output_guard !== undefined ? { output_guard: response.output_guard.triggered } : {}) });
  log.info({ ...logFields, resolved: response.tokens_resolved, unresolved: response.tokens_unresolved.length }, 'rehydrate_completed');
  return response;
}

/** output_json: restore every string of the document (keys included) on its own. */
async function rehydrateJson(
  deps: AppDeps,
  principal: Principal,
  body: RehydrateAnyBody,
  log: FastifyBaseLogger,
  facts: FactSink,
): Promise<Record<string, unknown>> {
  const started = performance.now();
  const base = await rehydrateRequestOf(deps, principal, body, '');
  const { env, session, revokedIds } = await openInline(deps, base, facts);
  let traceId = base.traceId ?? '';
  // The output guard sees every string of the document as the model wrote it, before restore.
  const guard = outputGuardFor(env, session, base.caller);
  const document = guard !== undefined ? guardJsonValue(body.output_json, guard) : body.output_json;
  const restored = restoreJsonValue(document, (text) => {
    const one = restoreOpened(env, session, { ...base, output: text, revokedIds }, started, null);
    traceId = one.trace_id;
    return { restoredText: one.restored_text, tokensResolved: one.tokens_resolved, tokensUnresolved: one.tokens_unresolved };
  });
  facts({ entity_count: restored.tokensResolved, ...(guard !== undefined ? { output_guard: guard.triggered } : {}) });
  log.info({ event: 'rehydrate_completed', output: 'json', trace_id: fingerprint(traceId), resolved: restored.tokensResolved }, 'rehydrate_completed');
  const response: Record<string, unknown> & { output_guard?: OutputGuardSummary; warnings?: string[] } = {
    restored_text: JSON.stringify(restored.value),
    restored_json: restored.value,
    tokens_resolved: restored.tokensResolved,
    tokens_unresolved: restored.tokensUnresolved,
    stats: { rehydrate_time_ms: Math.round((performance.now() - started) * 1000) / 1000 },
    trace_id: traceId,
  };
  return guard !== undefined ? withOutputGuard(response, guard.summary()) : response;
}

export function rehydrateRoutes(deps: AppDeps) {
  return function register(app: FastifyInstance): void {
    app.post<{ Body: RehydrateAnyBody }>(
      '/v1/rehydrate',
      { schema: { body: RehydrateAnyBodySchema, response: { 200: RehydrateResponseSchema } }, config: { scope: 'rehydrate' } },
      async (request, reply) => {
        const body = request.body;
        if (body.trace_id !== undefined) auditFacts(request, { trace_id: body.trace_id });
        const hasJson = Object.hasOwn(body, 'output_json');
        if (hasJson === (body.output !== undefined)) {
          throw new VeilError('VEIL_VALIDATION_FAILED', 'output: send exactly one of output, output_json');
        }
        if (hasJson) return recordingBlock(factSink(request), () => rehydrateJson(deps, principalOf(request), body, request.log, factSink(request)));
        const result = await rehydrateOnce(deps, principalOf(request), { ...body, output: body.output ?? '' }, request.log, factSink(request));
        if (typeof result === 'string') return reply.type('application/json; charset=utf-8').send(result);
        return result;
      },
    );
  };
}
