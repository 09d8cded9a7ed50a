// Admin policy routes (interface.md 4.25, scope admin):
//   POST /v1/admin/policy/validate {directory} -> {valid, errors[], changes[]}: validates the policy
//     files of an absolute directory and previews the changes against the running set; never swaps.
//   POST /v1/admin/policy/reload (no body, or {}) -> {reloaded, changes[], errors?}: reloads
//     policy.directory; an invalid set (or an empty one outside dev) leaves the running set and
//     answers reloaded:false with the reasons (a failed reload: health degraded until a good
//     one). Without policy.directory it is a no-op (reloaded:false naming the setting; no
//     failure). In a cluster the other workers reload too.
// Neither route echoes file contents (see reload/policies.ts).
import { Type, type Static } from 'typebox';
import { VeilError } from '@veil/common';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.js';
import { auditFacts } from '../audit/facts.js';
import { recordIntent } from '../audit/plugin.js';
import { MAX_DIRECTORY_LENGTH } from './policies.js';
import { RELOAD_FAILURE_CODE, reloadFailureReason } from './report.js';

const ValidateBodySchema = Type.Object({ directory: Type.String({ minLength: 1, maxLength: MAX_DIRECTORY_LENGTH }) }, { additionalProperties: false });

type ValidateBody = Static<typeof ValidateBodySchema>;

export function adminPolicyRoutes(deps: AppDeps) {
  return function register(app: FastifyInstance): void {
    app.post<{ Body: ValidateBody }>(
      '/v1/admin/policy/validate',
      { schema: { body: ValidateBodySchema }, config: { scope: 'admin' } },
      (request) => {
        const result = deps.reload.policies.validate(request.body.directory);
        request.log.info({ event: 'policy_validated', valid: result.valid, errors: result.errors.length, changes: result.changes.length }, 'policy_validated');
        return result;
      },
    );

    app.post('/v1/admin/policy/reload', { config: { scope: 'admin' } }, async (request) => {
      const body = request.body;
      if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body) || Object.keys(body).length > 0)) {
        throw new VeilError('VEIL_VALIDATION_FAILED', 'body: must be empty');
      }
      // Under audit.strict the reload is on record before the running set can change.
      auditFacts(request, { event_type: 'policy_reloaded' });
      await recordIntent(request);
      const result = deps.reload.reloadPolicies('api');
      // This request is the policy_reloaded audit event: a refused set is its failure; without a
      // directory nothing was attempted (reloaded: false names the setting), which is no failure.
      const failed = !result.reloaded && deps.reload.configured('policies');
      auditFacts(request, {
        event_type: 'policy_reloaded',
        ...(failed ? { failure_code: RELOAD_FAILURE_CODE, failure_reason: reloadFailureReason({ source: 'policies', errors: result.errors, trigger: 'api' }) } : {}),
      });
      return result.reloaded ? { reloaded: true, changes: result.changes } : { reloaded: false, changes: [], errors: result.errors };
    });
  };
}
