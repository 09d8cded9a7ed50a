// POST /v1/rehydrate: restore model output under the policy, the caller, the restore mode and
// the output channel. The work is services/rehydrate.ts, inline or on a worker by size.
import { VeilError } from '@veil/common';
import type { FastifyInstance } from 'fastify';
import { ringMaterial, type AppDeps } from '../deps.js';
import { rejectSessionId } from '../services/sessions.js';
import { runRehydrate, type RehydrateRequest } from '../services/rehydrate.js';
import { callerOf, fingerprint, principalOf, traceIdOf } from './common.js';
import { RehydrateBodySchema, RehydrateResponseSchema, type RehydrateBody } from './schemas.js';

export function rehydrateRoutes(deps: AppDeps) {
  return function register(app: FastifyInstance): void {
    app.post<{ Body: RehydrateBody }>(
      '/v1/rehydrate',
      { schema: { body: RehydrateBodySchema, response: { 200: RehydrateResponseSchema } } },
      async (request, reply) => {
        const body = request.body;
        const principal = principalOf(request);
        rejectSessionId(deps, body.session_id);
        if (body.session_state === undefined) throw new VeilError('VEIL_VALIDATION_FAILED', 'session_state: is required');
        const rehydrateRequest: RehydrateRequest = {
          output: body.output,
          sessionState: body.session_state,
          restoreMode: body.restore_mode,
          restoreOverrides: body.restore_overrides,
          channel: body.output_channel ?? 'user_output',
          caller: callerOf(deps, principal, body.context),
          tenant: principal.tenant,
          traceId: traceIdOf(body.trace_id),
        };
        const registry = deps.policies.registry;
        if (body.output.length > deps.offload.threshold || body.session_state.length > deps.offload.threshold) {
          const json = (await deps.offload.run({
            op: 'rehydrate',
            request: rehydrateRequest,
            ring: ringMaterial(deps),
            policies: registry.snapshot(),
            templates: deps.config.restore_templates,
            nowMs: deps.now(),
          })) as string;
          request.log.info({ event: 'rehydrate_completed', trace: fingerprint(rehydrateRequest.traceId ?? ''), offloaded: true }, 'rehydrate_completed');
          return reply.type('application/json; charset=utf-8').send(json);
        }
        const response = runRehydrate(
          { keyRing: deps.keyRing, policy: (name) => registry.get(name), templates: deps.config.restore_templates, nowMs: deps.now() },
          rehydrateRequest,
        );
        request.log.info(
          { event: 'rehydrate_completed', trace: fingerprint(response.trace_id), resolved: response.tokens_resolved, unresolved: response.tokens_unresolved.length },
          'rehydrate_completed',
        );
        return response;
      },
    );
  };
}
