// POST /v1/rehydrate: a thin adapter. The schema validates the body, auth checked the scope; the
// handler turns the body into a RehydrateCommand and calls the rehydrate use case
// (usecases/rehydrate.ts: session, open, deny list and revocations, restore, inline or on
// workers); the answer is the use case's object, or the body a worker serialized, sent as it is.
import { VeilError } from '@veil/common';
import type { FastifyInstance } from 'fastify';
import { auditFacts } from '../audit/facts.js';
import type { UseCases } from '../compose.js';
import { deferredSource } from '../plugins/json.js';
import type { RehydrateCommand } from '../usecases/rehydrate.js';
import { callerOf, callOf, type ConfigSlice, fingerprint, logCompleted, principalOf, sendJson, traceIdOf, type Principal } from './common.js';
import { RehydrateAnyBodySchema, RehydrateResponseSchema, type RehydrateAnyBody, type RehydrateBody } from './schemas.js';

/** The rehydrate parameters without the output (the ndjson stream sends output as deltas). */
export type RehydrateParams = Omit<RehydrateBody, 'output'>;

/** Rehydrate parameters as the use case's command (the caller from the credential outside dev mode). */
export function rehydrateCommandOf(deps: ConfigSlice<'auth'>, principal: Principal, params: RehydrateParams): RehydrateCommand {
  return {
    sessionState: params.session_state,
    sessionId: params.session_id,
    restoreMode: params.restore_mode,
    restoreOverrides: params.restore_overrides,
    channel: params.output_channel ?? 'user_output',
    caller: callerOf(deps, principal, params.context),
    traceId: traceIdOf(params.trace_id),
  };
}

export function rehydrateRoutes(deps: ConfigSlice<'auth'>, useCases: Pick<UseCases, 'scopeOf' | 'rehydrate'>) {
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
        const call = callOf(useCases, request);
        const base = await useCases.rehydrate.request(call, rehydrateCommandOf(deps, principalOf(request), body), body.output ?? '');
        const source = hasJson ? deferredSource(request, 'output_json') : undefined;
        const run = hasJson
          ? await useCases.rehydrate.json(call, base, source !== undefined ? { source } : { value: body.output_json })
          : await useCases.rehydrate.text(call, base);
        const logFields = () => ({ ...(hasJson ? { output: 'json' } : {}), trace_id: fingerprint(base.traceId ?? '') });
        if (run.where === 'worker') {
          logCompleted(request.log, 'rehydrate_completed', () => ({ ...logFields(), offloaded: true, resolved: run.result.tokensResolved }));
          return sendJson(reply, [run.result.body]);
        }
        logCompleted(request.log, 'rehydrate_completed', () => ({ ...logFields(), resolved: run.response.tokens_resolved, unresolved: run.response.tokens_unresolved.length }));
        return run.response;
      },
    );
  };
}
