// POST /v1/transform: a thin adapter. The schema validates the body, auth checked the scope;
// the handler turns the body into a TransformCommand and calls the transform use case (usecases/transform.ts), which runs the whole sequence; the answer is
// the use case's object, or the body a worker serialized, sent as it is.
import { VeilError } from '@veil/common';
import type { FastifyInstance } from 'fastify';
import { auditFacts } from '../audit/facts.js';
import type { UseCases } from '../compose.js';
import { deferredSource } from '../plugins/json.js';
import { transformAnswerBytes, transformAnswerJson } from './answer-json.js';
import { JSON_BYTES_ABOVE } from '../services/json-text.js';
import { withHandleParts } from '../services/state.js';
import type { TransformCommand } from '../usecases/transform.js';
import { callOf, effectiveContext, type CallerDeps, type ConfigSlice, fingerprint, logCompleted, policyFact, principalOf, sendJson, traceIdOf, type Principal } from './common.js';
import { TransformBodySchema, TransformResponseSchema, type TransformBody } from './schemas.js';

/** interface.md 4.1: exactly one of input, input_json, input_messages, matching input_type. */
export function inputTypeOf(body: TransformBody): 'text' | 'json' | 'chat_messages' {
  const given: ('text' | 'json' | 'chat_messages')[] = [];
  if (body.input !== undefined) given.push('text');
  if (Object.hasOwn(body, 'input_json')) given.push('json');
  if (body.input_messages !== undefined) given.push('chat_messages');
  if (given.length !== 1) throw new VeilError('VEIL_VALIDATION_FAILED', 'input: send exactly one of input, input_json, input_messages');
  const kind = given[0]!;
  if (body.input_type !== undefined && body.input_type !== kind) {
    throw new VeilError('VEIL_VALIDATION_FAILED', `input_type: '${body.input_type}' does not match the input field sent`);
  }
  return kind;
}

/** A transform body (every input mode) as the use case's command. */
export function commandOf(deps: ConfigSlice<'auth'>, body: TransformBody, principal: Principal): TransformCommand {
  return {
    language: body.language,
    policy: body.policy,
    sessionState: body.session_state,
    sessionId: body.session_id,
    customPatterns: body.custom_patterns,
    protectionOverrides: body.protection_overrides,
    context: effectiveContext(deps, principal, body.context),
    traceId: traceIdOf(body.trace_id),
    detectors: body.detectors,
  };
}

export function transformRoutes(deps: CallerDeps, useCases: Pick<UseCases, 'scopeOf' | 'transform'>) {
  return function register(app: FastifyInstance): void {
    app.post<{ Body: TransformBody }>(
      '/v1/transform',
      { schema: { body: TransformBodySchema, response: { 200: TransformResponseSchema } }, config: { scope: 'transform', idempotent: true, deferDocuments: true } },
      async (request, reply) => {
        const body = request.body;
        const principal = principalOf(request);
        // Known before anything can fail, so a refused transform's event still names them.
        auditFacts(request, { ...policyFact(deps, body.policy), ...(body.trace_id !== undefined ? { trace_id: body.trace_id } : {}) });
        const inputType = inputTypeOf(body);
        const call = callOf(useCases, request);
        const command = commandOf(deps, body, principal);
        if (inputType !== 'text') {
          const document = inputType === 'json' ? { kind: 'json' as const, value: body.input_json, source: deferredSource(request, 'input_json') } : { kind: 'chat_messages' as const, value: body.input_messages };
          const done = await useCases.transform.structured(call, command, document);
          logCompleted(request.log, 'transform_completed', () => ({ input_type: inputType, trace_id: fingerprint(command.traceId), offloaded: done.json !== undefined }));
          return done.json !== undefined ? sendJson(reply, done.json) : done.object;
        }
        const done = await useCases.transform.text(call, command, body.input ?? '');
        const logFields = () => ({ trace_id: fingerprint(command.traceId), policy: body.policy ?? deps.policies.registry.defaultName });
        if (done.serialized !== undefined) {
          logCompleted(request.log, 'transform_completed', () => ({ ...logFields(), offloaded: true }));
          return sendJson(reply, withHandleParts(done.serialized, done.handle));
        }
        const response = done.response!;
        logCompleted(request.log, 'transform_completed', () => ({ ...logFields(), entities: response.entities.length }));
        // The bytes the schema's serializer would write (answer-json.ts): a long answer as one
        // Buffer built in two pieces, a shorter one as one flat string.
        return sendJson(reply, [response.safe_text.length > JSON_BYTES_ABOVE ? transformAnswerBytes(response, done.handle) : transformAnswerJson(response, done.handle)]);
      },
    );
  };
}
