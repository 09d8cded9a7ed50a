// POST /v1/detect: detection without transformation, a thin adapter over the detect use case
// (usecases/detect.ts). Raw values only with detect_values scope.
import { VeilError } from '@veil/common';
import type { FastifyInstance } from 'fastify';
import { auditFacts } from '../audit/facts.js';
import type { UseCases } from '../compose.js';
import { checkRequestedTypes } from '../domain/catalog.js';
import { DEFAULT_THRESHOLD } from '../services/detect.js';
import { callOf, ms, patternSet, principalOf, sendJson, type ConfigSlice } from './common.js';
import { DetectBodySchema, DetectResponseSchema, type DetectBody } from './schemas.js';

export { DEFAULT_THRESHOLD };

/** interface.md 4.5: false suppresses; true needs detect_values; omitted uses the server default. */
export function includeValues(deps: ConfigSlice<'detect'>, scopes: ReadonlySet<string>, requested: boolean | undefined): boolean {
  if (requested === false) return false;
  const allowed = scopes.has('detect_values') || scopes.has('admin');
  if (requested === true) {
    if (!allowed) throw new VeilError('VEIL_SCOPE_DENIED', 'include_values requires the detect_values scope');
    return true;
  }
  return deps.config.detect.include_values_default && allowed;
}

export function detectRoutes(deps: ConfigSlice<'detect'>, useCases: Pick<UseCases, 'scopeOf' | 'detect'>) {
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
        const call = callOf(useCases, request);
        const loaded = body.policy !== undefined ? call.scope.registry.get(body.policy) : undefined;
        const patterns = patternSet(loaded, body.custom_patterns);
        if (body.entity_types !== undefined) {
          const customTypes = new Set(patterns.compiled.map((pattern) => pattern.type));
          checkRequestedTypes(body.entity_types, customTypes, (index) => `entity_types[${index}]`);
        }
        const found = await useCases.detect.run(call, {
          text: body.input,
          language: body.language,
          policy: loaded,
          patterns,
          detectors: body.detectors,
          threshold: body.threshold ?? DEFAULT_THRESHOLD,
          wanted: body.entity_types,
          withValues,
        });
        const plan = found.plan;
        if (loaded !== undefined) auditFacts(request, { policy: loaded.compiled.name });
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
