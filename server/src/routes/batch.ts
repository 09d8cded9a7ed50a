// POST /v1/batch/transform and POST /v1/batch/detect (interface.md 4.7, 4.8). Each item runs
// the same transform or detection as the single-item route; a failing item carries its error
// message (a VeilError message, never a value) and the others still process. Shared mode
// carries one session across the items: each item continues the previous successful item's
// blob, so the session counter advances once per successful item, and only the last successful
// result carries the combined handle. Only that final continuation is recorded in the replay
// store (the intermediate blobs never leave the server). Batch sessions are sealed with kind
// 'transform', exactly as /v1/transform seals them, so they continue and rehydrate alike.
import { isVeilError, VeilError } from '@veil/common';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { auditFacts, transformFacts, type EntityLike } from '../audit/facts.js';
import { keyRingFor, policiesFor, ringMaterial, type AppDeps } from '../deps.js';
import type { PolicyRegistry } from '../services/policies.js';
import { compileCustomPatterns } from '../domain/detect/index.js';
import { applyPolicyDetection, planDetection } from '../services/ner.js';
import { outgoingHandle, recordContinuation } from '../services/state.js';
import {
  mergeDetections,
  runTextTransform,
  type SessionMeta,
  type TextTransformRequest,
  type TransformEnvironment,
} from '../services/transform.js';
import type { OffloadedTransform } from '../workers/offload-worker.js';
import { codePointSpans, effectiveContext, ms, patternSet, policyFact, principalOf, traceIdOf, type Principal } from './common.js';
import { DEFAULT_THRESHOLD, includeValues } from './detect.js';
import {
  batchDetectBodySchema,
  BatchDetectResponseSchema,
  batchTransformBodySchema,
  BatchTransformResponseSchema,
  type BatchDetectBody,
  type BatchTransformBody,
  type BatchTransformItem,
} from './schemas.js';
import { nerWillRun, plannedPolicy, promptFacts, runStructuredWithNer, type StructuredRequest } from './transform.js';
import { chargeRateLimit } from '../plugins/rate-limit.js';
import { promptSecuritySettings, screenBeforeNer, type PromptSecuritySummary } from '../services/prompt-security.js';

type InputKind = 'text' | 'json' | 'chat_messages';

/** interface.md 4.7 item: exactly one of text, input_json, input_messages, matching input_type. */
export function itemInputType(item: BatchTransformItem): InputKind {
  const given: InputKind[] = [];
  if (item.text !== undefined) given.push('text');
  if (Object.hasOwn(item, 'input_json')) given.push('json');
  if (item.input_messages !== undefined) given.push('chat_messages');
  if (given.length !== 1) throw new VeilError('VEIL_VALIDATION_FAILED', 'item: send exactly one of text, input_json, input_messages');
  const kind = given[0]!;
  if (item.input_type !== undefined && item.input_type !== kind) {
    throw new VeilError('VEIL_VALIDATION_FAILED', `input_type: '${item.input_type}' does not match the input field sent`);
  }
  return kind;
}

/** The message a failed item carries: a VeilError's own (value-free) message, else generic. */
function itemError(log: FastifyBaseLogger, route: string, index: number, error: unknown): { error: string; code: string } {
  if (isVeilError(error)) {
    log.info({ event: 'batch_item_failed', route, index, code: error.code }, 'batch_item_failed');
    return { error: error.message, code: error.code };
  }
  // Unexpected failures: log the error class only (messages can quote input).
  log.error({ event: 'batch_item_failed', route, index, code: 'VEIL_INTERNAL', error_type: error instanceof Error ? error.name : typeof error }, 'batch_item_failed');
  return { error: 'internal error', code: 'VEIL_INTERNAL' };
}

interface ItemOutcome {
  readonly response: {
    safe_text: string;
    safe_json?: unknown;
    safe_messages?: unknown[];
    entities: readonly EntityLike[];
    stats: { entities_detected: number; entities_transformed: number; entities_blocked?: number };
    prompt_security?: PromptSecuritySummary;
    warnings?: string[];
  };
  readonly sessionState: string;
  readonly meta: SessionMeta;
}

interface BatchTransformResult {
  index: number;
  safe_text: string;
  safe_json?: unknown;
  safe_messages?: unknown[];
  entities_detected: number;
  entities_transformed: number;
  session_state?: string;
  session_id?: string;
  prompt_security?: PromptSecuritySummary;
  warnings?: string[];
  error?: string;
  code?: string;
}

export function batchRoutes(deps: AppDeps) {
  const settings = () => ({
    defaultLanguage: deps.config.detector.default_language,
    ttlSeconds: deps.config.session.ttl_seconds,
    contextStrategy: deps.config.transform.context_strategy,
    maxContextTokens: deps.config.transform.max_context_tokens,
    promptSecurity: promptSecuritySettings(deps.config),
  });
  // `registry` is the request's policy snapshot (as the tenant may use it): every item of one
  // batch sees the same set. The key ring is the tenant's.
  const environment = (registry: PolicyRegistry, tenant: string | null): TransformEnvironment => ({
    keyRing: keyRingFor(deps, tenant),
    policy: (name) => registry.get(name),
    compilePatterns: (raw) => compileCustomPatterns(raw, 'custom_patterns'),
    ...settings(),
    nowMs: deps.now(),
  });

  /** One item, exactly as /v1/transform would run it (no store checks: the batch does those). */
  const transformItem = async (
    item: BatchTransformItem,
    policy: string | undefined,
    sessionState: string | undefined,
    principal: Principal,
    traceId: string,
    registry: PolicyRegistry,
    log: FastifyBaseLogger,
  ): Promise<ItemOutcome> => {
    const kind = itemInputType(item);
    const common = {
      language: item.language,
      policy,
      sessionState,
      context: effectiveContext(deps, principal, undefined),
      tenant: principal.tenant,
      traceId,
    };
    if (kind !== 'text') {
      const input: StructuredRequest =
        kind === 'json' ? { kind, request: { ...common, inputJson: item.input_json } } : { kind, request: { ...common, inputMessages: item.input_messages } };
      return runStructuredWithNer(deps, environment(registry, principal.tenant), input, undefined, plannedPolicy(registry, policy, sessionState), log);
    }
    let input = item.text ?? '';
    // As /v1/transform: prompt security screens before the NER sidecar sees the text.
    const promptSettings = promptSecuritySettings(deps.config);
    let promptScreened: PromptSecuritySummary | undefined;
    if (promptSettings !== undefined && nerWillRun(deps, undefined)) {
      const screened = screenBeforeNer(promptSettings, input, { keyRing: keyRingFor(deps, principal.tenant), sessionState, tenant: principal.tenant, nowMs: deps.now() });
      input = screened.text;
      promptScreened = screened.summary;
    }
    const planned = plannedPolicy(registry, policy, sessionState);
    const plan = await planDetection(deps, input, item.language ?? deps.config.detector.default_language, undefined, planned?.compiled.policy, log);
    const request: TextTransformRequest = { ...common, input, detection: plan, ...(promptScreened !== undefined ? { promptScreened } : {}) };
    if (input.length > deps.offload.threshold || (sessionState?.length ?? 0) > deps.offload.threshold) {
      const outcome = (await deps.offload.run({
        op: 'transform',
        request,
        ring: ringMaterial(deps, principal.tenant),
        policies: registry.snapshot(),
        settings: settings(),
        nowMs: deps.now(),
      })) as OffloadedTransform;
      return { response: JSON.parse(outcome.body) as ItemOutcome['response'], sessionState: outcome.sessionState, meta: outcome.meta };
    }
    return runTextTransform(environment(registry, principal.tenant), request);
  };

  return function register(app: FastifyInstance): void {
    const maxItems = deps.config.limits.max_batch_size;

    app.post<{ Body: BatchTransformBody }>(
      '/v1/batch/transform',
      { schema: { body: batchTransformBodySchema(maxItems), response: { 200: BatchTransformResponseSchema } }, config: { scope: 'batch', idempotent: true } },
      async (request) => {
        const started = performance.now();
        const body = request.body;
        // Every item is a transform: the request paid one unit, the other items pay now.
        chargeRateLimit(request, body.items.length - 1);
        const principal = principalOf(request);
        const shared = body.session_mode === 'shared';
        const traceId = traceIdOf(undefined);
        // One policy snapshot for the whole batch (a reload mid-batch never mixes two sets).
        const registry = policiesFor(deps, principal.tenant);
        const results: BatchTransformResult[] = [];
        let carried: { sessionState: string; meta: SessionMeta; result: BatchTransformResult } | undefined;
        let totalEntities = 0;
        for (const [index, item] of body.items.entries()) {
          try {
            const outcome = await transformItem(item, item.policy ?? body.policy, shared ? carried?.sessionState : undefined, principal, traceId, registry, request.log);
            const result: BatchTransformResult = {
              index,
              safe_text: outcome.response.safe_text,
              ...(outcome.response.safe_json !== undefined || Object.hasOwn(outcome.response, 'safe_json') ? { safe_json: outcome.response.safe_json } : {}),
              ...(outcome.response.safe_messages !== undefined ? { safe_messages: outcome.response.safe_messages } : {}),
              entities_detected: outcome.response.stats.entities_detected,
              entities_transformed: outcome.response.stats.entities_transformed,
            };
            if (outcome.response.prompt_security !== undefined) result.prompt_security = outcome.response.prompt_security;
            // As /v1/transform: NER coverage (degraded, unavailable) and prompt security warnings.
            if (outcome.response.warnings !== undefined && outcome.response.warnings.length > 0) result.warnings = [...outcome.response.warnings];
            totalEntities += result.entities_detected;
            auditFacts(request, { ...transformFacts(outcome.response), ...promptFacts(outcome.response) });
            results.push(result);
            if (shared) {
              carried = { sessionState: outcome.sessionState, meta: outcome.meta, result };
            } else {
              Object.assign(result, await outgoingHandle(deps, outcome.meta, outcome.sessionState));
            }
          } catch (error) {
            if (isVeilError(error) && error.code === 'VEIL_PROMPT_REJECTED') auditFacts(request, { prompt_security: true });
            results.push({ index, safe_text: '', entities_detected: 0, entities_transformed: 0, ...itemError(request.log, 'batch_transform', index, error) });
          }
        }
        if (carried !== undefined) {
          // One continuation record for the whole chain: the final counter (N successful items).
          if (carried.meta.continued) await recordContinuation(deps, carried.meta);
          Object.assign(carried.result, await outgoingHandle(deps, carried.meta, carried.sessionState));
        }
        const failed = results.filter((result) => result.error !== undefined).length;
        auditFacts(request, {
          item_count: results.length,
          items_failed: failed,
          ...policyFact(deps, body.policy),
          ...(carried !== undefined ? { session_id: carried.meta.sid } : {}),
        });
        request.log.info(
          { event: 'batch_transform_completed', items: results.length, failed, session_mode: shared ? 'shared' : 'independent', entities: totalEntities },
          'batch_transform_completed',
        );
        return { results, stats: { total_items: results.length, total_entities: totalEntities, total_time_ms: ms(started) } };
      },
    );

    app.post<{ Body: BatchDetectBody }>(
      '/v1/batch/detect',
      { schema: { body: batchDetectBodySchema(maxItems), response: { 200: BatchDetectResponseSchema } }, config: { scope: 'batch' } },
      async (request) => {
        const started = performance.now();
        const body = request.body;
        // Every item is a detection: the request paid one unit, the other items pay now.
        chargeRateLimit(request, body.items.length - 1);
        const principal = principalOf(request);
        const withValues = includeValues(deps, principal.scopes, body.include_values);
        const results: Record<string, unknown>[] = [];
        let totalEntities = 0;
        const registry = policiesFor(deps, principal.tenant);
        for (const [index, item] of body.items.entries()) {
          try {
            const policyName = item.policy ?? body.policy;
            const loaded = policyName !== undefined ? registry.get(policyName) : undefined;
            const patterns = patternSet(loaded, undefined);
            const language = item.language ?? deps.config.detector.default_language;
            const plan = await planDetection(deps, item.text, language, undefined, loaded?.compiled.policy, request.log);
            const ner = loaded !== undefined ? applyPolicyDetection(loaded.compiled.policy, plan) : plan.ner;
            const regex = await deps.offload.detect({ text: item.text, language, compiled: patterns.compiled, raw: patterns.raw });
            const regexKept = plan.useRegex ? regex : regex.filter((detection) => detection.detector === 'custom_pattern');
            const detections = ner.length === 0 ? regexKept : mergeDetections(regexKept, ner);
            const kept = detections.filter((detection) => detection.confidence >= DEFAULT_THRESHOLD);
            const spans = codePointSpans(item.text, kept);
            totalEntities += kept.length;
            auditFacts(request, { entity_types: kept.map((detection) => detection.type), entity_count: kept.length });
            results.push({
              index,
              entities: kept.map((detection, position) => ({
                type: detection.type,
                value: withValues ? detection.value : '',
                span: spans[position]!,
                confidence: detection.confidence,
                detector: detection.detector,
              })),
              ...(plan.warnings.length > 0 ? { warnings: plan.warnings } : {}),
            });
          } catch (error) {
            results.push({ index, entities: [], ...itemError(request.log, 'batch_detect', index, error) });
          }
        }
        auditFacts(request, {
          item_count: results.length,
          items_failed: results.filter((result) => result.error !== undefined).length,
          ...policyFact(deps, body.policy),
        });
        request.log.info({ event: 'batch_detect_completed', items: results.length, entities: totalEntities }, 'batch_detect_completed');
        return { results, stats: { total_items: results.length, total_entities: totalEntities, total_time_ms: ms(started) } };
      },
    );
  };
}
