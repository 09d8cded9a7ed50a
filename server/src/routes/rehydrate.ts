// POST /v1/rehydrate: restore model output under the policy, the caller, the restore mode and
// the output channel. Opening and restoring are services/rehydrate.ts (inline or on a worker by
// size); the deny list and the revocation digests are checked here, between the two halves.
import { VeilError } from '@veil/common';
import type { FastifyInstance } from 'fastify';
import { ringMaterial, type AppDeps } from '../deps.js';
import { openForRehydrate, restoreOpened, type RehydrateEnvironment, type RehydrateRequest } from '../services/rehydrate.js';
import { partitionsFor, revokedEntryIds, withStore } from '../services/revocation.js';
import { assertNotDenied, incomingSession } from '../services/state.js';
import type { OpenedForRehydrate } from '../workers/offload-worker.js';
import { callerOf, fingerprint, principalOf, traceIdOf } from './common.js';
import { RehydrateBodySchema, RehydrateResponseSchema, type RehydrateBody } from './schemas.js';

export function rehydrateRoutes(deps: AppDeps) {
  return function register(app: FastifyInstance): void {
    app.post<{ Body: RehydrateBody }>(
      '/v1/rehydrate',
      { schema: { body: RehydrateBodySchema, response: { 200: RehydrateResponseSchema } } },
      async (request, reply) => {
        const started = performance.now();
        const body = request.body;
        const principal = principalOf(request);
        const sessionState = await incomingSession(deps, body.session_id, body.session_state);
        if (sessionState === undefined) throw new VeilError('VEIL_VALIDATION_FAILED', 'session_state: is required');
        const base: RehydrateRequest = {
          output: body.output,
          sessionState,
          restoreMode: body.restore_mode,
          restoreOverrides: body.restore_overrides,
          channel: body.output_channel ?? 'user_output',
          caller: callerOf(deps, principal, body.context),
          tenant: principal.tenant,
          traceId: traceIdOf(body.trace_id),
        };
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
          request.log.info({ ...logFields, offloaded: true }, 'rehydrate_completed');
          return reply.type('application/json; charset=utf-8').send(json);
        }
        const env: RehydrateEnvironment = { keyRing: deps.keyRing, policy: (name) => registry.get(name), templates: deps.config.restore_templates, nowMs: deps.now() };
        const session = openForRehydrate(env, sessionState, principal.tenant);
        await assertNotDenied(deps, session.sid);
        const revokedIds = await revokedEntryIds(deps.stores.revocation, deps.digestSecret, principal.tenant, session.entries);
        const response = restoreOpened(env, session, { ...base, revokedIds: [...revokedIds] }, started);
        request.log.info({ ...logFields, resolved: response.tokens_resolved, unresolved: response.tokens_unresolved.length }, 'rehydrate_completed');
        return response;
      },
    );
  };
}
