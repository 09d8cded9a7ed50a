// POST /v1/transform (text mode). Validation, identity and the store checks here; the transform
// itself is services/transform.ts, run inline for small inputs and on a worker thread for
// large ones.
import { VeilError } from '@veil/common';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { ringMaterial, type AppDeps } from '../deps.js';
import { compileCustomPatterns } from '../domain/detect/index.js';
import { incomingSession, outgoingHandle, recordContinuation, withHandle } from '../services/state.js';
import { runChatTransform, runJsonTransform } from '../services/structured.js';
import { runTextTransform, type TextTransformRequest, type TransformEnvironment } from '../services/transform.js';
import type { OffloadedTransform } from '../workers/offload-worker.js';
import { planDetection } from '../services/ner.js';
import { effectiveContext, fingerprint, principalOf, traceIdOf, type Principal } from './common.js';
import { TransformBodySchema, TransformResponseSchema, type TransformBody } from './schemas.js';

export const STRUCTURED_NER_WARNING =
  'degraded detection coverage: the NER detector is not applied to json and chat input yet, so person, organization and location names may pass through undetected';

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

function transformSettings(deps: AppDeps) {
  return {
    defaultLanguage: deps.config.detector.default_language,
    ttlSeconds: deps.config.session.ttl_seconds,
    contextStrategy: deps.config.transform.context_strategy,
    maxContextTokens: deps.config.transform.max_context_tokens,
  };
}

function transformEnvironment(deps: AppDeps): TransformEnvironment {
  return {
    keyRing: deps.keyRing,
    policy: (name) => deps.policies.registry.get(name),
    compilePatterns: (raw) => compileCustomPatterns(raw, 'custom_patterns'),
    ...transformSettings(deps),
    nowMs: deps.now(),
  };
}

/** JSON and chat modes: regex detection over every string slot (NER is not applied yet). */
export async function structuredTransform(
  deps: AppDeps,
  log: FastifyBaseLogger,
  body: TransformBody,
  inputType: 'json' | 'chat_messages',
  sessionState: string | undefined,
  principal: Principal,
): Promise<Record<string, unknown>> {
  const nerWanted = body.detectors?.includes('python_ner') ?? deps.config.detector.mode !== 'builtin';
  if (nerWanted && (deps.config.detector.mode === 'advanced' || body.detectors?.includes('builtin_regex') === false)) {
    throw new VeilError('VEIL_VALIDATION_FAILED', `detectors: python_ner is not applied to ${inputType} input yet`);
  }
  const common = {
    language: body.language,
    policy: body.policy,
    sessionState,
    customPatterns: body.custom_patterns,
    protectionOverrides: body.protection_overrides,
    context: effectiveContext(deps, principal, body.context),
    tenant: principal.tenant,
    traceId: traceIdOf(body.trace_id),
    ...(nerWanted
      ? { detection: { useRegex: true, nerRan: false, ner: [], detectorMode: 'builtin_regex', warnings: [STRUCTURED_NER_WARNING] } }
      : {}),
  };
  const outcome =
    inputType === 'json'
      ? runJsonTransform(transformEnvironment(deps), { ...common, inputJson: body.input_json })
      : runChatTransform(transformEnvironment(deps), { ...common, inputMessages: body.input_messages });
  if (outcome.meta.continued) await recordContinuation(deps, outcome.meta);
  const handle = await outgoingHandle(deps, outcome.meta, outcome.sessionState);
  log.info({ event: 'transform_completed', input_type: inputType, trace: fingerprint(common.traceId), entities: outcome.response.entities.length }, 'transform_completed');
  return { ...outcome.response, ...handle };
}

export function transformRoutes(deps: AppDeps) {
  const settings = () => transformSettings(deps);
  return function register(app: FastifyInstance): void {
    app.post<{ Body: TransformBody }>(
      '/v1/transform',
      { schema: { body: TransformBodySchema, response: { 200: TransformResponseSchema } }, config: { idempotent: true } },
      async (request, reply) => {
        const body = request.body;
        const principal = principalOf(request);
        const inputType = inputTypeOf(body);
        const sessionState = await incomingSession(deps, body.session_id, body.session_state);
        const registry = deps.policies.registry;
        if (inputType !== 'text') return structuredTransform(deps, request.log, body, inputType, sessionState, principal);
        const input = body.input ?? '';
        // The request's policy (or the default for a new session) decides NER fallback here;
        // the effective policy re-checks its detection rules inside the transform.
        const plannedPolicy = body.policy !== undefined ? registry.get(body.policy) : sessionState === undefined ? registry.get(undefined) : undefined;
        const plan = await planDetection(
          deps,
          input,
          body.language ?? deps.config.detector.default_language,
          body.detectors,
          plannedPolicy?.compiled.policy,
        );
        const transformRequest: TextTransformRequest = {
          input,
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
        const large = input.length > deps.offload.threshold || (sessionState?.length ?? 0) > deps.offload.threshold;
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
