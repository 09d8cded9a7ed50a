// POST /v1/evaluate-policy: a dry run of the policy; nothing stored, no session created.
import { ENTITY_CATALOG, entityInfo, isCustomType } from '../domain/catalog.js';
import type { FastifyInstance } from 'fastify';
import { auditFacts } from '../audit/facts.js';
import { policiesFor, type AppDeps } from '../deps.js';
import type { RestoreMode } from '../domain/types.js';
import { callerOf, effectiveContext, principalOf } from './common.js';
import { EvaluatePolicyBodySchema, type EvaluatePolicyBody } from './schemas.js';

export function policyRoutes(deps: AppDeps) {
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
      const warnings: string[] = [];
      const decisions = body.entities.map((entity, index) => {
        const type = entity.type;
        if (!ENTITY_CATALOG.has(type) && !isCustomType(type)) {
          warnings.push(`entities[${index}].type: not a built-in entity type; evaluated as given`);
        }
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
        ...(warnings.length > 0 ? { warnings } : {}),
      };
    });
  };
}
