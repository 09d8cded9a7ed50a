// POST /v1/evaluate-policy: a dry run of the policy; nothing stored, no session created.
import { checkRequestedTypes, CUSTOM_TYPE_PREFIX, entityInfo, isCustomType } from '../domain/catalog.js';
import type { FastifyInstance } from 'fastify';
import { auditFacts } from '../audit/facts.js';
import { policiesFor, type TenantPolicySource } from '../services/policies.js';
import type { RestoreMode } from '../domain/types.js';
import { callerOf, effectiveContext, principalOf, type CallerDeps } from './common.js';
import { EvaluatePolicyBodySchema, type EvaluatePolicyBody } from './schemas.js';

export function policyRoutes(deps: CallerDeps & TenantPolicySource) {
  return function register(app: FastifyInstance): void {
    app.post<{ Body: EvaluatePolicyBody }>('/v1/evaluate-policy', { schema: { body: EvaluatePolicyBodySchema }, config: { scope: 'policy' } }, (request) => {
      const body = request.body;
      const principal = principalOf(request);
      const loaded = policiesFor(deps, principal.tenant).get(body.policy);
      const policy = loaded.compiled;
      const channel = body.output_channel ?? 'user_output';
      policy.channelCeiling(channel);
      const context = effectiveContext(deps, principal, body.context);
      const caller = callerOf(deps, principal, body.context);
      // A dry run has no custom patterns of its own: besides built-in types it accepts the
      // policy's custom types (bare, as policy rules write them, or custom:<name>) and any
      // well-formed custom:<name> (a request's custom patterns may define it at transform).
      // Anything else is a 400 naming the entity, as on every route that names types.
      const customTypes = new Set<string>();
      for (const pattern of loaded.patterns) customTypes.add(pattern.type).add(pattern.type.slice(CUSTOM_TYPE_PREFIX.length));
      for (const entity of body.entities) if (isCustomType(entity.type) && entityInfo(entity.type) !== undefined) customTypes.add(entity.type);
      checkRequestedTypes(
        body.entities.map((entity) => entity.type),
        customTypes,
        (index) => `entities[${index}].type`,
      );
      const decisions = body.entities.map((entity) => {
        const type = entity.type;
        const decision = policy.decide(type, context, entity.value);
        // What the value would restore as on this channel, exactly as rehydrate resolves it.
        const restoreMode: RestoreMode =
          decision.action === 'tokenize'
            ? policy.resolveRestoreMode({ type, floor: decision.restore_mode, caller, channel })
            : decision.action === 'allow'
              ? 'full'
              : 'none';
        return {
          entity_type: decision.entity_type,
          action: decision.action,
          protection_level: decision.protection_level,
          rule_matched: decision.rule_matched,
          restore_mode: restoreMode,
          ...(decision.reason !== undefined ? { reason: decision.reason } : {}),
        };
      });
      auditFacts(request, {
        policy: policy.name,
        // Only real type names: the field is free text, and an event must not carry a caller's string.
        entity_types: body.entities.map((entity) => entity.type).filter((type) => entityInfo(type) !== undefined),
        entity_count: body.entities.length,
      });
      return {
        decisions,
        policy_version: policy.version,
      };
    });
  };
}
