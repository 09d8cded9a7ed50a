// POST /v1/transform (text mode): detect, apply the policy, tokenize, seal the token map.
import { VeilError } from '@veil/common';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.js';
import { NER_DEGRADED_WARNING } from '../deps.js';
import { tokenizeText, type TokenizedEntity } from '../domain/tokenize.js';
import { TokenAllocator, renderToken } from '../domain/token/index.js';
import type { TokenEntry } from '../domain/types.js';
import { openSessionState, rejectSessionId, sealNext } from '../services/sessions.js';
import {
  checkDetectors,
  codePointSpans,
  effectiveContext,
  fingerprint,
  ms,
  patternSet,
  principalOf,
  traceIdOf,
} from './common.js';
import { TransformBodySchema, TransformResponseSchema, type TransformBody } from './schemas.js';

interface ContextItem {
  token: string;
  type: string;
}

function entityContext(
  strategy: string,
  limit: number,
  allEntries: readonly TokenEntry[],
  entities: readonly TokenizedEntity[],
): ContextItem[] | undefined {
  switch (strategy) {
    case 'full':
      return allEntries.slice(0, limit).map((entry) => ({ token: renderToken(entry), type: entry.type }));
    case 'referenced_only': {
      const seen = new Set<string>();
      const items: ContextItem[] = [];
      for (const entity of entities) {
        if (entity.action_applied !== 'tokenize' || seen.has(entity.token)) continue;
        seen.add(entity.token);
        items.push({ token: entity.token, type: entity.type });
        if (items.length >= limit) break;
      }
      return items;
    }
    default:
      return undefined;
  }
}

function summary(entities: readonly TokenizedEntity[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const entity of entities) counts[entity.type] = (counts[entity.type] ?? 0) + 1;
  return counts;
}

export function transformRoutes(deps: AppDeps) {
  return function register(app: FastifyInstance): void {
    app.post<{ Body: TransformBody }>(
      '/v1/transform',
      { schema: { body: TransformBodySchema, response: { 200: TransformResponseSchema } } },
      async (request) => {
        const started = performance.now();
        const body = request.body;
        const principal = principalOf(request);
        const inputType = body.input_type ?? 'text';
        if (inputType !== 'text' || body.input_json !== undefined || body.input_messages !== undefined) {
          throw new VeilError('VEIL_VALIDATION_FAILED', 'input_type: only text input is available in this build');
        }
        if (body.input === undefined) throw new VeilError('VEIL_VALIDATION_FAILED', 'input: is required');
        rejectSessionId(deps, body.session_id);
        checkDetectors(body.detectors);

        const previous =
          body.session_state !== undefined
            ? openSessionState(deps, body.session_state, ['transform'], principal.tenant)
            : undefined;
        if (previous !== undefined && body.policy !== undefined && body.policy !== previous.policy) {
          throw new VeilError('VEIL_VALIDATION_FAILED', "policy: does not match the session's policy");
        }
        const loaded = deps.policies.registry.get(body.policy ?? previous?.policy);
        const language = body.language ?? previous?.language ?? deps.config.detector.default_language;
        const patterns = patternSet(loaded, body.custom_patterns);
        const context = effectiveContext(deps, principal, body.context);

        const detectStarted = performance.now();
        const detections = await deps.detector.detect({ text: body.input, language, compiled: patterns.compiled, raw: patterns.raw });
        const detectionMs = ms(detectStarted);

        const previousEntries = previous?.entries ?? [];
        const result = tokenizeText({
          text: body.input,
          detections,
          policy: loaded.compiled,
          context,
          allocator: new TokenAllocator(previousEntries),
          protectionOverrides: body.protection_overrides,
        });
        const allEntries = previousEntries.length === 0 ? result.newEntries : [...previousEntries, ...result.newEntries];
        const { sessionState } = sealNext(deps, {
          previous,
          kind: 'transform',
          tenant: principal.tenant,
          language,
          policy: loaded.compiled.name,
          policyVersion: loaded.compiled.version,
          entries: allEntries,
        });

        const spans = codePointSpans(body.input, result.entities);
        const strategy = deps.config.transform.context_strategy;
        const items = entityContext(strategy, deps.config.transform.max_context_tokens, allEntries, result.entities);
        const traceId = traceIdOf(body.trace_id);
        request.log.info(
          { event: 'transform_completed', trace: fingerprint(traceId), entities: result.entities.length, policy: loaded.compiled.name },
          'transform_completed',
        );
        return {
          safe_text: result.safeText,
          session_state: sessionState,
          ...(items !== undefined ? { entity_context: items } : {}),
          entities: result.entities.map((entity, index) => ({
            token: entity.token,
            type: entity.type,
            protection_level: entity.protection_level,
            action_applied: entity.action_applied,
            confidence: entity.confidence,
            detector: entity.detector,
            span: spans[index]!,
          })),
          ...(strategy !== 'none' ? { entity_summary: summary(result.entities) } : {}),
          stats: {
            entities_detected: detections.length,
            entities_transformed: result.transformed,
            entities_blocked: result.blocked,
            detection_time_ms: detectionMs,
            transform_time_ms: ms(started),
          },
          detector_mode: 'builtin_regex',
          warnings: [NER_DEGRADED_WARNING],
          policy_version: loaded.compiled.version,
          trace_id: traceId,
        };
      },
    );
  };
}
