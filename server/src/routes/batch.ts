// POST /v1/batch/transform and POST /v1/batch/detect (interface.md 4.7, 4.8): thin adapters.
// Each item runs the same use case as the single-item route (usecases/batch.ts over the
// transform use case, usecases/detect.ts); a failing item carries its error message (a VeilError
// message, never a value) and the others still process. Shared mode carries one session across
// the items (usecases/batch.ts). The answer is serialized item by item on the event loop.
import { isVeilError } from '@veil/common';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { auditFacts } from '../audit/facts.js';
import type { UseCases } from '../compose.js';
import { RawJson, serializeSliced, withLeadingFields, type Slicer } from '../services/offload.js';
import { withHandle } from '../services/state.js';
import { batchItemFields } from '../services/transform.js';
import { callOf, effectiveContext, ms, patternSet, policyFact, principalOf, traceIdOf, type CallerDeps, type ConfigSlice } from './common.js';
import { DEFAULT_THRESHOLD, includeValues } from './detect.js';
import {
  batchDetectBodySchema,
  BatchDetectResponseSchema,
  batchTransformBodySchema,
  BatchTransformResponseSchema,
  type BatchDetectBody,
  type BatchTransformBody,
} from './schemas.js';
import { chargeRateLimit } from '../plugins/rate-limit.js';
import { bodySize } from '../plugins/json.js';
import { jsonString } from '../services/json-text.js';

export { itemInputType } from '../usecases/batch.js';

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

/** An item's result: an object (inline, or a failure) or the fields a worker serialized. */
type ItemResult = { readonly index: number; object: Record<string, unknown>; json?: undefined } | { readonly index: number; object?: undefined; json: string };

/** Give an item its session handle. */
function withItemHandle(result: ItemResult, handle: { session_state: string } | { session_id: string }): ItemResult {
  if (result.json !== undefined) return { index: result.index, json: withHandle(result.json, handle) };
  Object.assign(result.object, handle);
  return result;
}

/** The batch answer, serialized item by item on the event loop (pausing between items). */
async function batchAnswer(slicer: Slicer, results: readonly ItemResult[], stats: Record<string, number>): Promise<string> {
  const items = results.map((result) => (result.json !== undefined ? new RawJson(withLeadingFields(result.json, { index: result.index })) : result.object));
  return serializeSliced(slicer, '{"results":[', items, `],"stats":${JSON.stringify(stats)}}`);
}

export function batchRoutes(deps: CallerDeps & ConfigSlice<'auth' | 'limits' | 'detect'>, useCases: Pick<UseCases, 'scopeOf' | 'executor' | 'batch' | 'detect'>) {
  return function register(app: FastifyInstance): void {
    const maxItems = deps.config.limits.max_batch_size;

    app.post<{ Body: BatchTransformBody }>(
      '/v1/batch/transform',
      { schema: { body: batchTransformBodySchema(maxItems), response: { 200: BatchTransformResponseSchema } }, config: { scope: 'batch', idempotent: true } },
      async (request, reply) => {
        const started = performance.now();
        const body = request.body;
        // Every item is a transform: the request paid one unit, the other items pay now.
        chargeRateLimit(request, body.items.length - 1);
        const principal = principalOf(request);
        const shared = body.session_mode === 'shared';
        // One scope for the whole batch: a reload mid-batch never mixes two policy sets.
        const call = callOf(useCases, request);
        const large = useCases.executor.offloads(bodySize(request));
        const context = effectiveContext(deps, principal, undefined);
        const { outcomes, sessionId } = await useCases.batch.transform(call, body.items, { shared, policy: body.policy, context, traceId: traceIdOf(undefined), large });
        let totalEntities = 0;
        let failed = 0;
        const results = outcomes.map((outcome): ItemResult => {
          const index = outcome.index;
          if (outcome.run === undefined) {
            failed += 1;
            return { index, object: { index, safe_text: '', entities_detected: 0, entities_transformed: 0, ...itemError(request.log, 'batch_transform', index, outcome.error) } };
          }
          let result: ItemResult;
          if (outcome.run.where === 'worker') {
            result = { index, json: jsonString(outcome.run.outcome.body) };
            totalEntities += outcome.run.outcome.facts.entity_count ?? 0;
          } else {
            const fields = batchItemFields(outcome.run.outcome.response);
            result = { index, object: { index, ...fields } };
            totalEntities += fields.entities_detected;
          }
          return outcome.handle !== undefined ? withItemHandle(result, outcome.handle) : result;
        });
        auditFacts(request, { item_count: results.length, items_failed: failed, ...policyFact(deps, body.policy), ...(sessionId !== undefined ? { session_id: sessionId } : {}) });
        request.log.debug(
          { event: 'batch_transform_completed', items: results.length, failed, session_mode: shared ? 'shared' : 'independent', entities: totalEntities },
          'batch_transform_completed',
        );
        const answer = await batchAnswer(useCases.executor.slicer(), results, { total_items: results.length, total_entities: totalEntities, total_time_ms: ms(started) });
        return reply.type('application/json; charset=utf-8').send(answer);
      },
    );

    app.post<{ Body: BatchDetectBody }>(
      '/v1/batch/detect',
      { schema: { body: batchDetectBodySchema(maxItems), response: { 200: BatchDetectResponseSchema } }, config: { scope: 'batch' } },
      async (request, reply) => {
        const started = performance.now();
        const body = request.body;
        // Every item is a detection: the request paid one unit, the other items pay now.
        chargeRateLimit(request, body.items.length - 1);
        const principal = principalOf(request);
        const withValues = includeValues(deps, principal.scopes, body.include_values);
        const slicer = useCases.executor.slicer();
        const large = useCases.executor.offloads(bodySize(request));
        const results: ItemResult[] = [];
        let totalEntities = 0;
        let failed = 0;
        const call = callOf(useCases, request);
        const registry = call.scope.registry;
        for (const [index, item] of body.items.entries()) {
          await slicer.pause();
          try {
            const policyName = item.policy ?? body.policy;
            const loaded = policyName !== undefined ? registry.get(policyName) : undefined;
            const found = await useCases.detect.run(
              call,
              { text: item.text, language: item.language, policy: loaded, patterns: patternSet(loaded, undefined), threshold: DEFAULT_THRESHOLD, withValues },
              large,
            );
            const plan = found.plan;
            const warnings = plan.warnings.length > 0 ? { warnings: plan.warnings } : {};
            totalEntities += found.count;
            results.push(
              found.entitiesJson !== undefined
                ? { index, json: `{"entities":${jsonString(found.entitiesJson)}${plan.warnings.length > 0 ? `,"warnings":${JSON.stringify(plan.warnings)}` : ''}}` }
                : { index, object: { index, entities: found.entities, ...warnings } },
            );
          } catch (error) {
            failed += 1;
            results.push({ index, object: { index, entities: [], ...itemError(request.log, 'batch_detect', index, error) } });
          }
        }
        auditFacts(request, { item_count: results.length, items_failed: failed, ...policyFact(deps, body.policy) });
        request.log.debug({ event: 'batch_detect_completed', items: results.length, entities: totalEntities }, 'batch_detect_completed');
        const answer = await batchAnswer(slicer, results, { total_items: results.length, total_entities: totalEntities, total_time_ms: ms(started) });
        return reply.type('application/json; charset=utf-8').send(answer);
      },
    );
  };
}
