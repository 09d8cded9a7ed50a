// POST /v1/detect: detection without transformation. Raw values only with detect_values scope.
import { VeilError } from '@veil/common';
import type { FastifyInstance } from 'fastify';
import { auditFacts } from '../audit/facts.js';
import { policiesFor, type AppDeps } from '../deps.js';
import { checkRequestedTypes } from '../domain/catalog.js';
import { applyPolicyDetection, planDetection } from '../services/ner.js';
import { mergeDetections } from '../services/transform.js';
import { codePointSpans, ms, patternSet, principalOf } from './common.js';
import { DetectBodySchema, DetectResponseSchema, type DetectBody } from './schemas.js';

export const DEFAULT_THRESHOLD = 0.5;

/** interface.md 4.5: false suppresses; true needs detect_values; omitted uses the server default. */
export function includeValues(deps: AppDeps, scopes: ReadonlySet<string>, requested: boolean | undefined): boolean {
  if (requested === false) return false;
  const allowed = scopes.has('detect_values') || scopes.has('admin');
  if (requested === true) {
    if (!allowed) throw new VeilError('VEIL_SCOPE_DENIED', 'include_values requires the detect_values scope');
    return true;
  }
  return deps.config.detect.include_values_default && allowed;
}

export function detectRoutes(deps: AppDeps) {
  return function register(app: FastifyInstance): void {
    app.post<{ Body: DetectBody }>(
      '/v1/detect',
      { schema: { body: DetectBodySchema, response: { 200: DetectResponseSchema } }, config: { scope: 'detect' } },
      async (request) => {
        const started = performance.now();
        const body = request.body;
        const principal = principalOf(request);
        const withValues = includeValues(deps, principal.scopes, body.include_values);
        // Without a policy, detection is the raw built-in set (plus request patterns); with
        // one, its patterns, ner_labels and required_for apply too.
        const loaded = body.policy !== undefined ? policiesFor(deps, principal.tenant).get(body.policy) : undefined;
        const patterns = patternSet(loaded, body.custom_patterns);
        if (body.entity_types !== undefined) {
          const customTypes = new Set(patterns.compiled.map((pattern) => pattern.type));
          checkRequestedTypes(body.entity_types, customTypes, (index) => `entity_types[${index}]`);
        }
        const language = body.language ?? deps.config.detector.default_language;
        const plan = await planDetection(deps, body.input, language, body.detectors, loaded?.compiled.policy, request.log);
        const ner = loaded !== undefined ? applyPolicyDetection(loaded.compiled.policy, plan) : plan.ner;
        const regex = await deps.offload.detect({ text: body.input, language, compiled: patterns.compiled, raw: patterns.raw });
        const regexKept = plan.useRegex ? regex : regex.filter((detection) => detection.detector === 'custom_pattern');
        const detections = ner.length === 0 ? regexKept : mergeDetections(regexKept, ner);
        const threshold = body.threshold ?? DEFAULT_THRESHOLD;
        const wanted = body.entity_types !== undefined ? new Set(body.entity_types) : undefined;
        const kept = detections.filter(
          (detection) => detection.confidence >= threshold && (wanted === undefined || wanted.has(detection.type)),
        );
        auditFacts(request, {
          entity_types: kept.map((detection) => detection.type),
          entity_count: kept.length,
          ...(loaded !== undefined ? { policy: loaded.compiled.name } : {}),
        });
        const spans = codePointSpans(body.input, kept);
        const used = new Set<string>(plan.used);
        if (patterns.compiled.length > 0) used.add('custom_pattern');
        return {
          entities: kept.map((detection, index) => ({
            type: detection.type,
            value: withValues ? detection.value : '',
            span: spans[index]!,
            confidence: detection.confidence,
            detector: detection.detector,
          })),
          stats: { detection_time_ms: ms(started), detectors_used: [...used], detector_mode: plan.detectorMode },
          ...(plan.warnings.length > 0 ? { warnings: plan.warnings } : {}),
        };
      },
    );
  };
}
