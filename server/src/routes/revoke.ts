// Revocation (erasure): POST /v1/revoke, POST /v1/revoke/bulk, GET /v1/revocations/count.
// Only digests are stored; a tenant caller revokes within its tenant, an untenanted caller
// needs global_revoke (implied by admin) and writes the unscoped platform partition.
import { VeilError } from '@veil/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { auditFacts } from '../audit/facts.js';
import { recordIntent } from '../audit/plugin.js';
import type { AppDeps } from '../deps.js';
import { entityInfo } from '../domain/catalog.js';
import { partitionOf, revocationDigest, withStore } from '../services/revocation.js';
import { principalOf, type Principal } from './common.js';

export const MAX_BULK_REVOCATIONS = 1000;

const RevocationSchema = Type.Object(
  { entity_type: Type.String({ minLength: 1, maxLength: 80 }), value: Type.String({ minLength: 1, maxLength: 65536 }) },
  { additionalProperties: false },
);
const BulkSchema = Type.Object({ entities: Type.Array(RevocationSchema, { minItems: 1, maxItems: MAX_BULK_REVOCATIONS }) }, { additionalProperties: false });
const RevokeResponseSchema = Type.Object({ revoked: Type.Integer(), scope: Type.String() });

type Revocation = Static<typeof RevocationSchema>;

export function scopeOf(principal: Principal): 'tenant' | 'global' {
  if (principal.tenant !== null) return 'tenant';
  if (!principal.scopes.has('global_revoke') && !principal.scopes.has('admin')) {
    throw new VeilError('VEIL_SCOPE_DENIED', 'an untenanted caller needs the global_revoke scope to revoke');
  }
  return 'global';
}

function checkType(type: string, index: number | undefined): void {
  if (entityInfo(type) === undefined) {
    throw new VeilError('VEIL_VALIDATION_FAILED', `${index === undefined ? '' : `entities[${index}].`}entity_type: unknown entity type`);
  }
}

export function revokeRoutes(deps: AppDeps) {
  const revoke = async (request: FastifyRequest, items: readonly Revocation[]): Promise<{ revoked: number; scope: string }> => {
    const principal = principalOf(request);
    const scope = scopeOf(principal);
    // National phone numbers in a request are read in detector.default_region.
    const digests = items.map((item) => revocationDigest(deps.digestSecret, item.entity_type, item.value, deps.config.detector.default_region));
    // Under audit.strict the event is on record before anything is stored.
    await recordIntent(request);
    await withStore(() => deps.stores.revocation.add(partitionOf(principal.tenant), digests, deps.now()), deps.now);
    return { revoked: items.length, scope };
  };
  return function register(app: FastifyInstance): void {
    app.post<{ Body: Revocation }>(
      '/v1/revoke',
      { schema: { body: RevocationSchema, response: { 200: RevokeResponseSchema } }, config: { scope: 'revoke', idempotent: true } },
      async (request) => {
        checkType(request.body.entity_type, undefined);
        auditFacts(request, { entity_types: [request.body.entity_type], entity_count: 1 });
        const result = await revoke(request, [request.body]);
        request.log.info({ event: 'revoked', count: 1, scope: result.scope }, 'revoked');
        return result;
      },
    );
    app.post<{ Body: Static<typeof BulkSchema> }>(
      '/v1/revoke/bulk',
      { schema: { body: BulkSchema, response: { 200: RevokeResponseSchema } }, config: { scope: 'revoke', idempotent: true } },
      async (request) => {
        request.body.entities.forEach((item, index) => checkType(item.entity_type, index));
        auditFacts(request, { entity_types: request.body.entities.map((item) => item.entity_type), entity_count: request.body.entities.length });
        const result = await revoke(request, request.body.entities);
        request.log.info({ event: 'revoked', count: result.revoked, scope: result.scope }, 'revoked');
        return result;
      },
    );
    app.get(
      '/v1/revocations/count',
      { schema: { response: { 200: Type.Object({ count: Type.Integer(), scope: Type.String() }) } }, config: { scope: 'admin' } },
      async (request) => {
        const principal = principalOf(request);
        // Scope-local: a tenant sees its own partition, a platform caller the unscoped one.
        const count = await withStore(() => deps.stores.revocation.count(partitionOf(principal.tenant)));
        return { count, scope: principal.tenant === null ? 'global' : 'tenant' };
      },
    );
  };
}
