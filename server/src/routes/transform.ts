// POST /v1/transform (text mode). Validation and identity here; the transform itself is
// services/transform.ts, run inline for small inputs and on a worker thread for large ones.
import { VeilError } from '@veil/common';
import type { FastifyInstance } from 'fastify';
import { ringMaterial, type AppDeps } from '../deps.js';
import { compileCustomPatterns } from '../domain/detect/index.js';
import { rejectSessionId } from '../services/sessions.js';
import { runTextTransform, type TextTransformRequest } from '../services/transform.js';
import { checkDetectors, effectiveContext, fingerprint, principalOf, traceIdOf } from './common.js';
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
      { schema: { body: TransformBodySchema, response: { 200: TransformResponseSchema } } },
      async (request, reply) => {
        const body = request.body;
        const principal = principalOf(request);
        const inputType = body.input_type ?? 'text';
        if (inputType !== 'text' || body.input_json !== undefined || body.input_messages !== undefined) {
          throw new VeilError('VEIL_VALIDATION_FAILED', 'input_type: only text input is available in this build');
        }
        if (body.input === undefined) throw new VeilError('VEIL_VALIDATION_FAILED', 'input: is required');
        rejectSessionId(deps, body.session_id);
        checkDetectors(body.detectors);
        const transformRequest: TextTransformRequest = {
          input: body.input,
          language: body.language,
          policy: body.policy,
          sessionState: body.session_state,
          customPatterns: body.custom_patterns,
          protectionOverrides: body.protection_overrides,
          context: effectiveContext(deps, principal, body.context),
          tenant: principal.tenant,
          traceId: traceIdOf(body.trace_id),
        };
        const registry = deps.policies.registry;
        const large = body.input.length > deps.offload.threshold || (body.session_state?.length ?? 0) > deps.offload.threshold;
        if (large) {
          const json = (await deps.offload.run({
            op: 'transform',
            request: transformRequest,
            ring: ringMaterial(deps),
            policies: registry.snapshot(),
            settings: settings(),
            nowMs: deps.now(),
          })) as string;
          request.log.info(
            { event: 'transform_completed', trace: fingerprint(transformRequest.traceId ?? ''), offloaded: true, policy: body.policy ?? registry.defaultName },
            'transform_completed',
          );
          return reply.type('application/json; charset=utf-8').send(json);
        }
        const response = runTextTransform(
          {
            keyRing: deps.keyRing,
            policy: (name) => registry.get(name),
            compilePatterns: (raw) => compileCustomPatterns(raw, 'custom_patterns'),
            ...settings(),
            nowMs: deps.now(),
          },
          transformRequest,
        );
        request.log.info(
          { event: 'transform_completed', trace: fingerprint(response.trace_id), entities: response.entities.length, policy: body.policy ?? registry.defaultName },
          'transform_completed',
        );
        return response;
      },
    );
  };
}
