// POST /v1/detect: detection without transformation. Raw values only with detect_values scope.
import { VeilError } from '@veil/common';
import type { FastifyInstance } from 'fastify';
import { auditFacts } from '../audit/facts.js';
import { policiesFor, type AppDeps } from '../deps.js';
import { checkRequestedTypes } from '../domain/catalog.js';
import { applyPolicyDetection, planDetection } from '../services/ner.js';
import { DEFAULT_THRESHOLD, selectDetections, type DetectedEntity, type DetectSelection } from '../services/detect.js';
import { ms, patternSet, principalOf, sendJson, type PatternSet } from './common.js';
import type { JsonText } from '../services/json-text.js';
import { DetectBodySchema, DetectResponseSchema, type DetectBody } from './schemas.js';

export { DEFAULT_THRESHOLD };

/** The entities of one text: objects (small text, inline) or their JSON (large text, serialized on a worker). */
export type FoundEntities =
  | { readonly entities: DetectedEntity[]; readonly entitiesJson?: undefined; readonly count: number; readonly typeCounts: Record<string, number> }
  | { readonly entities?: undefined; readonly entitiesJson: JsonText; readonly count: number; readonly typeCounts: Record<string, number> };

/**
 * Detect and select the entities of one text, inline or on a worker by its size (the executor's
 * decision; `large`: part of a request that is large as a whole): a large text's answer is
 * serialized on the worker, never copied back as objects.
 */
export async function detectEntities(deps: AppDeps, input: { text: string; language: string; patterns: PatternSet }, selection: DetectSelection, large = false): Promise<FoundEntities> {
  if (large || deps.offload.offloads(input.text.length)) {
    return deps.offload.run({ op: 'detect-entities', text: input.text, language: input.language, defaultRegion: deps.config.detector.default_region, patterns: input.patterns.raw, selection });
  }
  const regex = await deps.offload.detect({ text: input.text, language: input.language, compiled: input.patterns.compiled, raw: input.patterns.raw });
  const { entities, typeCounts } = selectDetections(input.text, regex, selection);
  return { entities, count: entities.length, typeCounts };
}

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
      async (request, reply) => {
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
        const selection = { useRegex: plan.useRegex, ner, threshold: body.threshold ?? DEFAULT_THRESHOLD, wanted: body.entity_types, withValues };
        const found = await detectEntities(deps, { text: body.input, language, patterns }, selection);
        auditFacts(request, {
          entity_types: Object.keys(found.typeCounts),
          type_counts: found.typeCounts,
          entity_count: found.count,
          ...(loaded !== undefined ? { policy: loaded.compiled.name } : {}),
        });
        const used = new Set<string>(plan.used);
        if (patterns.compiled.length > 0) used.add('custom_pattern');
        const stats = { detection_time_ms: ms(started), detectors_used: [...used], detector_mode: plan.detectorMode };
        const warnings = plan.warnings.length > 0 ? { warnings: plan.warnings } : {};
        if (found.entitiesJson === undefined) return { entities: found.entities, stats, ...warnings };
        // A worker serialized the entities: the rest of the answer is spliced around them.
        return sendJson(reply, ['{"entities":', found.entitiesJson, `,"stats":${JSON.stringify(stats)}${plan.warnings.length > 0 ? `,"warnings":${JSON.stringify(plan.warnings)}` : ''}}`]);
      },
    );
  };
}
