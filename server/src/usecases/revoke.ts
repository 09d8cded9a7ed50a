// The revoke use case (erasure): digest the values (national phone numbers read in
// detector.default_region), put the intent on record, then add the digests to the caller's
// partition (a tenant's own, or the unscoped platform one). Only digests are stored. Free of
// Fastify: routes/revoke.ts validates the body and decides who may revoke globally.
import { VeilError } from '@veil/common';
import { entityInfo } from '../domain/catalog.js';
import { partitionOf, revocationDigests, withStore } from '../services/revocation.js';
import type { StateDeps } from '../services/state.js';
import type { UseCaseCall } from './transform.js';

export interface RevokeDeps {
  readonly state: Pick<StateDeps, 'config' | 'stores' | 'now' | 'digestSecret'>;
}

export interface Revocation {
  readonly entity_type: string;
  readonly value: string;
}

/** Where a caller's revocations go; an untenanted caller needs the global_revoke scope (implied by admin). */
export function revocationScope(tenant: string | null, mayRevokeGlobally: boolean): 'tenant' | 'global' {
  if (tenant !== null) return 'tenant';
  if (!mayRevokeGlobally) throw new VeilError('VEIL_SCOPE_DENIED', 'an untenanted caller needs the global_revoke scope to revoke');
  return 'global';
}

export class RevokeUseCase {
  readonly #deps: RevokeDeps;

  constructor(deps: RevokeDeps) {
    this.#deps = deps;
  }

  /**
   * Revoke `items` in the caller's partition. An untenanted caller writes the unscoped platform
   * partition and needs `mayRevokeGlobally` (the global_revoke scope, implied by admin).
   * `beforeMutation` (the audit write-ahead) runs before anything is stored.
   */
  async revoke(
    call: UseCaseCall,
    items: readonly Revocation[],
    options: { readonly bulk: boolean; readonly mayRevokeGlobally: boolean; readonly beforeMutation: () => Promise<void> },
  ): Promise<{ revoked: number; scope: 'tenant' | 'global' }> {
    items.forEach((item, index) => {
      if (entityInfo(item.entity_type) === undefined) {
        throw new VeilError('VEIL_VALIDATION_FAILED', `${options.bulk ? `entities[${index}].` : ''}entity_type: unknown entity type`);
      }
    });
    call.facts({ entity_types: items.map((item) => item.entity_type), entity_count: items.length });
    const scope = revocationScope(call.scope.tenant, options.mayRevokeGlobally);
    const state = this.#deps.state;
    const digests = [...new Set(items.flatMap((item) => revocationDigests(state.digestSecret, item.entity_type, item.value, state.config.detector.default_region)))];
    await options.beforeMutation();
    await withStore(() => state.stores.revocation.add(partitionOf(call.scope.tenant), digests, state.now()), state.now);
    return { revoked: items.length, scope };
  }

  /** Revocations in the caller's partition (a tenant sees its own, a platform caller the unscoped one). */
  count(call: UseCaseCall): Promise<number> {
    const store = this.#deps.state.stores.revocation;
    return withStore(() => store.count(partitionOf(call.scope.tenant)));
  }
}
