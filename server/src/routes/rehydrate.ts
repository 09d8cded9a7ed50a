// POST /v1/rehydrate: restore model output under the policy, the caller, the restore mode and
// the output channel.
import { VeilError } from '@veil/common';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.js';
import { indexEntries, rehydrateText } from '../domain/rehydrate.js';
import { openSessionState, rejectSessionId } from '../services/sessions.js';
import { callerOf, fingerprint, ms, principalOf, traceIdOf } from './common.js';
import { RehydrateBodySchema, RehydrateResponseSchema, type RehydrateBody } from './schemas.js';

export function rehydrateRoutes(deps: AppDeps) {
  return function register(app: FastifyInstance): void {
    app.post<{ Body: RehydrateBody }>(
      '/v1/rehydrate',
      { schema: { body: RehydrateBodySchema, response: { 200: RehydrateResponseSchema } } },
      (request) => {
        const started = performance.now();
        const body = request.body;
        const principal = principalOf(request);
        rejectSessionId(deps, body.session_id);
        if (body.session_state === undefined) throw new VeilError('VEIL_VALIDATION_FAILED', 'session_state: is required');
        const session = openSessionState(deps, body.session_state, ['transform'], principal.tenant);
        let loaded;
        try {
          loaded = deps.policies.registry.get(session.policy);
        } catch {
          // The session's policy was removed: restore nothing rather than guess another policy.
          throw new VeilError('VEIL_POLICY_DENIED', "the session's policy is no longer loaded");
        }
        const channel = body.output_channel ?? 'user_output';
        loaded.compiled.channelCeiling(channel); // validates the channel name before any restore
        const result = rehydrateText({
          output: body.output,
          entries: indexEntries(session.entries),
          policy: loaded.compiled,
          language: session.language,
          caller: callerOf(deps, principal, body.context),
          channel,
          requestedMode: body.restore_mode,
          tokenOverrides: body.restore_overrides,
          templates: deps.config.restore_templates,
        });
        const traceId = traceIdOf(body.trace_id);
        request.log.info(
          { event: 'rehydrate_completed', trace: fingerprint(traceId), resolved: result.tokensResolved, unresolved: result.tokensUnresolved.length },
          'rehydrate_completed',
        );
        return {
          restored_text: result.restoredText,
          tokens_resolved: result.tokensResolved,
          tokens_unresolved: result.tokensUnresolved,
          stats: { rehydrate_time_ms: ms(started) },
          trace_id: traceId,
        };
      },
    );
  };
}
