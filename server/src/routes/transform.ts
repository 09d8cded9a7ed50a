// POST /v1/transform (text mode). Validation, identity and the store checks here; the transform
// itself is services/transform.ts, run inline for small inputs and on a worker thread for
// large ones.
import { VeilError } from '@veil/common';
import type { FastifyInstance } from 'fastify';
import { ringMaterial, type AppDeps } from '../deps.js';
import { compileCustomPatterns } from '../domain/detect/index.js';
import { incomingSession, outgoingHandle, recordContinuation, withHandle } from '../services/state.js';
import { runTextTransform, type TextTransformRequest } from '../services/transform.js';
import type { OffloadedTransform } from '../workers/offload-worker.js';
import { planDetection } from '../services/ner.js';
import { effectiveContext, fingerprint, principalOf, traceIdOf } from './common.js';
import { TransformBodySchema, TransformResponseSchema, type TransformBody } from './schemas.js';

export function transformRoutes(deps: AppDeps) {
  const settings = () => ({
    defaultLanguage: deps.config.detector.default_language,
    ttlSeconds: deps.config.session.ttl_seconds,
    contextStrategy: deps.config.transform.context_strategy,
    maxContextTokens: deps.config.transform.max_context_tokens,
  });
  return function register(app: FastifyInstance): void {
    app.post<{ Body: TransformBody }>(
      '/v1/transform',
      { schema: { body: TransformBodySchema, response: { 200: TransformResponseSchema } }, config: { idempotent: true } },
      async (request, reply) => {
        const body = request.body;
        const principal = principalOf(request);
        const inputType = body.input_type ?? 'text';
        if (inputType !== 'text' || body.input_json !== undefined || body.input_messages !== undefined) {
          throw new VeilError('VEIL_VALIDATION_FAILED', 'input_type: only text input is available in this build');
        }
        if (body.input === undefined) throw new VeilError('VEIL_VALIDATION_FAILED', 'input: is required');
        const sessionState = await incomingSession(deps, body.session_id, body.session_state);
        const registry = deps.policies.registry;
        // The request's policy (or the default for a new session) decides NER fallback here;
        // the effective policy re-checks its detection rules inside the transform.
        const plannedPolicy = body.policy !== undefined ? registry.get(body.policy) : sessionState === undefined ? registry.get(undefined) : undefined;
        const plan = await planDetection(
          deps,
          body.input,
          body.language ?? deps.config.detector.default_language,
          body.detectors,
          plannedPolicy?.compiled.policy,
        );
        const transformRequest: TextTransformRequest = {
          input: body.input,
          language: body.language,
          policy: body.policy,
          sessionState,
          customPatterns: body.custom_patterns,
          protectionOverrides: body.protection_overrides,
          context: effectiveContext(deps, principal, body.context),
          tenant: principal.tenant,
          traceId: traceIdOf(body.trace_id),
          detection: plan,
        };
        const large = body.input.length > deps.offload.threshold || (sessionState?.length ?? 0) > deps.offload.threshold;
        const logFields = { event: 'transform_completed', trace: fingerprint(transformRequest.traceId ?? ''), policy: body.policy ?? registry.defaultName };
        if (large) {
          const outcome = (await deps.offload.run({
            op: 'transform',
            request: transformRequest,
            ring: ringMaterial(deps),
            policies: registry.snapshot(),
            settings: settings(),
            nowMs: deps.now(),
          })) as OffloadedTransform;
          if (outcome.meta.continued) await recordContinuation(deps, outcome.meta);
          const handle = await outgoingHandle(deps, outcome.meta, outcome.sessionState);
          request.log.info({ ...logFields, offloaded: true }, 'transform_completed');
          return reply.type('application/json; charset=utf-8').send(withHandle(outcome.body, handle));
        }
        const outcome = runTextTransform(
          {
            keyRing: deps.keyRing,
            policy: (name) => registry.get(name),
            compilePatterns: (raw) => compileCustomPatterns(raw, 'custom_patterns'),
            ...settings(),
            nowMs: deps.now(),
          },
          transformRequest,
        );
        if (outcome.meta.continued) await recordContinuation(deps, outcome.meta);
        const handle = await outgoingHandle(deps, outcome.meta, outcome.sessionState);
        request.log.info({ ...logFields, entities: outcome.response.entities.length }, 'transform_completed');
        return { ...outcome.response, ...handle };
      },
    );
  };
}
