// The authenticated principal and where a request keeps it. The root onRequest hook (plugin.ts)
// authenticates once and stores the result here; route handlers read it with principalOf, and
// later hooks (rate limit, audit) read it with authenticatedPrincipal, which never throws.
import { VeilError } from '@veil/common';
import type { FastifyRequest } from 'fastify';
import { AUTH_SCOPES, type AuthScope } from '../config/schema.js';
import { requestSlot } from '../plugins/request-slot.js';

export interface Principal {
  /** Who the caller is: the API key entry's identity, or the token's `sub`. */
  readonly identity: string;
  /** The caller's tenant; null for an untenanted (platform) caller. */
  readonly tenant: string | null;
  /** Granted scopes, with `admin` already expanded to every scope. */
  readonly scopes: ReadonlySet<AuthScope>;
  readonly role?: string;
  readonly purpose?: string;
  /**
   * RAG clearance from the credential (API-key entry or token claim `access_level`): the highest
   * classification label the caller may read. Absent: the lowest level (routes/rag.ts).
   */
  readonly accessLevel?: string;
}

/** The 11 scopes of interface.md section 5 (one list: config/schema.ts). */
export const ALL_SCOPES: readonly AuthScope[] = AUTH_SCOPES;

const SCOPE_NAMES: ReadonlySet<string> = new Set(AUTH_SCOPES);

export function isScope(name: string): name is AuthScope {
  return SCOPE_NAMES.has(name);
}

/**
 * Tenant ids: the same spelling `tenants.<id>` config keys allow, so every tenant a credential
 * can name can also be configured, and no tenant id can contain the separators store keys use.
 */
export const TENANT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** A frozen principal; `admin` implies every scope (interface.md section 5). */
export function makePrincipal(fields: {
  identity: string;
  tenant: string | null;
  scopes: Iterable<AuthScope>;
  role?: string | undefined;
  purpose?: string | undefined;
  accessLevel?: string | undefined;
}): Principal {
  const granted = new Set<AuthScope>(fields.scopes);
  const scopes: ReadonlySet<AuthScope> = granted.has('admin') ? new Set(AUTH_SCOPES) : granted;
  return Object.freeze({
    identity: fields.identity,
    tenant: fields.tenant,
    scopes,
    ...(fields.role !== undefined ? { role: fields.role } : {}),
    ...(fields.purpose !== undefined ? { purpose: fields.purpose } : {}),
    ...(fields.accessLevel !== undefined ? { accessLevel: fields.accessLevel } : {}),
  });
}

/** Dev mode: no credentials, everything open, untenanted (interface.md section 5). */
export const DEV_PRINCIPAL: Principal = makePrincipal({ identity: 'dev', tenant: null, scopes: AUTH_SCOPES });

const principals = requestSlot<Principal>('veil.principal');

/** Called by the auth hook only. */
export function setPrincipal(request: FastifyRequest, principal: Principal): void {
  principals.set(request, principal);
}

/**
 * The principal of an authenticated request, or undefined when the request was not (yet)
 * authenticated: a public route, or a request whose authentication failed. For hooks (audit,
 * rate limit) that must also run on failed requests.
 */
export function authenticatedPrincipal(request: FastifyRequest): Principal | undefined {
  return principals.get(request);
}

/**
 * The principal of the request, for route handlers. Every non-public route is authenticated
 * before its handler runs, so a missing principal is a wiring bug: fail closed.
 */
export function principalOf(request: FastifyRequest): Principal {
  const principal = principals.get(request);
  if (principal === undefined) throw new VeilError('VEIL_INTERNAL', undefined, 'principalOf called on an unauthenticated request');
  return principal;
}
