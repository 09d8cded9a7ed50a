// Revocation (erasure): POST /v1/revoke, POST /v1/revoke/bulk, GET /v1/revocations/count, thin
// adapters over the revoke use case (usecases/revoke.ts). Only digests are stored; a tenant
// caller revokes within its tenant, an untenanted caller needs global_revoke (implied by admin)
// and writes the unscoped platform partition.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { recordIntent } from '../plugins/audit.js';
import type { UseCases } from '../compose.js';
import { revocationScope } from '../usecases/revoke.js';
import { callOf, principalOf, type Principal } from './common.js';

export const MAX_BULK_REVOCATIONS = 1000;

const RevocationSchema = Type.Object(
  { entity_type: Type.String({ minLength: 1, maxLength: 80 }), value: Type.String({ minLength: 1, maxLength: 65536 }) },
  { additionalProperties: false },
);
const BulkSchema = Type.Object({ entities: Type.Array(RevocationSchema, { minItems: 1, maxItems: MAX_BULK_REVOCATIONS }) }, { additionalProperties: false });
const RevokeResponseSchema = Type.Object({ revoked: Type.Integer(), scope: Type.String() });

type Revocation = Static<typeof RevocationSchema>;

/** The caller may revoke globally: the global_revoke scope, implied by admin. */
function mayRevokeGlobally(principal: Principal): boolean {
  return principal.scopes.has('global_revoke') || principal.scopes.has('admin');
}

/** Where the caller's revocations go (rag/delete writes there too); refuses an untenanted caller without global_revoke. */
export function scopeOf(principal: Principal): 'tenant' | 'global' {
  return revocationScope(principal.tenant, mayRevokeGlobally(principal));
}

export function revokeRoutes(useCases: UseCases) {
  return function register(app: FastifyInstance): void {
    app.post<{ Body: Revocation }>(
      '/v1/revoke',
      { schema: { body: RevocationSchema, response: { 200: RevokeResponseSchema } }, config: { scope: 'revoke', idempotent: true } },
      async (request) => {
        const options = { bulk: false, mayRevokeGlobally: mayRevokeGlobally(principalOf(request)), beforeMutation: () => recordIntent(request) };
        const result = await useCases.revoke.revoke(callOf(useCases, request), [request.body], options);
        request.log.info({ event: 'revoked', count: 1, scope: result.scope }, 'revoked');
        return result;
      },
    );
    app.post<{ Body: Static<typeof BulkSchema> }>(
      '/v1/revoke/bulk',
      { schema: { body: BulkSchema, response: { 200: RevokeResponseSchema } }, config: { scope: 'revoke', idempotent: true } },
      async (request) => {
        const options = { bulk: true, mayRevokeGlobally: mayRevokeGlobally(principalOf(request)), beforeMutation: () => recordIntent(request) };
        const result = await useCases.revoke.revoke(callOf(useCases, request), request.body.entities, options);
        request.log.info({ event: 'revoked', count: result.revoked, scope: result.scope }, 'revoked');
        return result;
      },
    );
    app.get(
      '/v1/revocations/count',
      { schema: { response: { 200: Type.Object({ count: Type.Integer(), scope: Type.String() }) } }, config: { scope: 'admin' } },
      async (request) => {
        const principal = principalOf(request);
        const count = await useCases.revoke.count(callOf(useCases, request));
        return { count, scope: principal.tenant === null ? 'global' : 'tenant' };
      },
    );
  };
}
