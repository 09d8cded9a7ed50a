// Admin policy routes (interface.md 4.25):
//   POST /v1/admin/policy/validate {files} or {directory} -> {valid, errors[], changes[]} (scope
//     admin): validates policy files sent inline (name -> content), or a directory inside
//     policy.directory (a relative path; absolute paths, `..` and links leading out are refused,
//     see reload/policies.ts), and previews the changes against the running set; never swaps. A
//     tenant-bound admin may validate inline files only, and its preview names only the
//     policies its tenant may use.
//   POST /v1/admin/policy/reload (no body, or {}) -> {reloaded, changes[], errors?} (scope admin,
//     untenanted callers only: it swaps the set every tenant uses): reloads policy.directory; an
//     invalid set (or an empty one outside dev) leaves the running set and answers
//     reloaded:false with the reasons (a failed reload: health degraded until a good one). Without
//     policy.directory it is a no-op (reloaded:false naming the setting; no failure). In a
//     cluster the other workers reload too.
// Neither route echoes file contents (see reload/policies.ts).
import { Type, type Static } from 'typebox';
import { MAX_POLICY_FILE_BYTES, VeilError } from '@veil/common';
import type { FastifyInstance } from 'fastify';
import { principalOf } from '../auth/principal.js';
import type { ReloadManager } from '../reload/manager.js';
import { policiesFor, type PolicyHolder } from '../services/policies.js';
import { auditFacts } from '../audit/facts.js';
import { recordIntent } from '../plugins/audit.js';
import { INLINE_FILE_NAME, MAX_DIRECTORY_LENGTH, MAX_INLINE_FILES } from '../reload/policies.js';
import { RELOAD_FAILURE_CODE, reloadFailureReason } from '../reload/report.js';

const ValidateBodySchema = Type.Object(
  {
    directory: Type.Optional(Type.String({ maxLength: MAX_DIRECTORY_LENGTH })),
    // File name -> content; names are checked by propertyNames (a key pattern TypeBox's Record
    // would not enforce).
    files: Type.Optional(
      Type.Unsafe<Record<string, string>>({
        type: 'object',
        propertyNames: { type: 'string', pattern: INLINE_FILE_NAME },
        additionalProperties: { type: 'string', maxLength: MAX_POLICY_FILE_BYTES },
        minProperties: 1,
        maxProperties: MAX_INLINE_FILES,
      }),
    ),
  },
  { additionalProperties: false },
);

type ValidateBody = Static<typeof ValidateBodySchema>;

/** The policy set and the reload manager (validate, reload, what is configured). */
export interface AdminPolicyDeps {
  readonly policies: PolicyHolder;
  readonly reload: Pick<ReloadManager, 'tenants' | 'policies' | 'reloadPolicies' | 'configured'>;
}

export function adminPolicyRoutes(deps: AdminPolicyDeps) {
  return function register(app: FastifyInstance): void {
    app.post<{ Body: ValidateBody }>(
      '/v1/admin/policy/validate',
      { schema: { body: ValidateBodySchema }, config: { scope: 'admin' } },
      (request) => {
        const body = request.body;
        if ((body.directory === undefined) === (body.files === undefined)) throw new VeilError('VEIL_VALIDATION_FAILED', 'body: send exactly one of files, directory');
        const tenant = principalOf(request).tenant;
        // The server's directories are platform configuration: a tenant admin sends content.
        if (tenant !== null && body.directory !== undefined) {
          throw new VeilError('VEIL_SCOPE_DENIED', 'directory: reading server directories needs an untenanted (platform) admin credential; send files inline');
        }
        const visible = tenant === null ? undefined : policiesFor(deps, tenant).allowed;
        const result = deps.reload.policies.validate({ directory: body.directory, files: body.files, visible });
        request.log.info({ event: 'policy_validated', valid: result.valid, errors: result.errors.length, changes: result.changes.length }, 'policy_validated');
        return result;
      },
    );

    app.post('/v1/admin/policy/reload', { config: { scope: 'platform_admin' } }, async (request) => {
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
