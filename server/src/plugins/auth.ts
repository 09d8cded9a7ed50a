// Authentication and scope enforcement for every route (interface.md sections 4 and 5).
//
// How a route declares its scope: in its route options,
//     app.post('/v1/rag/ingest', { schema, config: { scope: 'rag' } }, handler)
// with one of the 11 scopes, a list of scopes that are all required (the OpenAI-compatible
// proxy tokenizes and restores, so it needs both transform and rehydrate), 'authenticated' (any
// valid credential: health, capabilities), 'public' (no credential, never authenticated:
// /livez, /readyz) or 'platform_admin' (scope admin held by an UNTENANTED credential:
// operations whose effect or answer spans every tenant, such as a global policy reload or the
// process-wide /metrics; a tenant-bound admin gets 403 VEIL_SCOPE_DENIED there, see
// docs/auth.md "Tenant admins"). The declaration sits on the
// route itself rather than on a wrapping register context because several route plugins mix
// scopes (revoke + admin count, rag + revoke delete); see docs/auth.md.
//
// Fail closed at startup: an onRoute hook records any route registered without a valid scope
// and the app refuses to become ready (buildApp rejects), so a route cannot ship unguarded. Every declaration is collected into a table that
// routeScopes(app) returns, from which the scope test is generated.
//
// At request time one ROOT onRequest hook (before the body is read or parsed) authenticates
// the caller, stores the principal (principal.ts: principalOf / authenticatedPrincipal), and
// checks the route's scope; `admin` implies every scope. Failures throw VeilErrors that leave
// through the normal error handler (envelope, logged once, the credential never in the log).
// Requests that match no route are authenticated too (401 before 404), so an anonymous caller
// cannot map the API surface.
import { routeOptionsOf } from './request-slot.js';
import cors from '@fastify/cors';
import { isVeilError, VeilError } from '@veil/common';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { AuthScope, VeilConfig } from '../config/schema.js';
import { corsOptions } from '../auth/cors.js';
import { isScope, setPrincipal, type Principal } from '../auth/principal.js';
import type { Authenticator } from '../auth/types.js';

export type RouteScope = AuthScope | readonly AuthScope[] | 'authenticated' | 'public' | 'platform_admin';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Required: the scope this route needs (plugins/auth.ts). Startup fails without it. */
    scope?: RouteScope;
  }
}

export interface RouteScopeEntry {
  readonly method: string;
  readonly url: string;
  readonly scope: RouteScope;
}

const tables = new WeakMap<FastifyInstance, RouteScopeEntry[]>();

/** Every registered route with its declared scope (HEAD twins of GET routes included). */
export function routeScopes(app: FastifyInstance): readonly RouteScopeEntry[] {
  return tables.get(app) ?? [];
}

function isRouteScope(value: unknown): value is RouteScope {
  if (Array.isArray(value)) return value.length > 0 && value.every((item) => typeof item === 'string' && isScope(item));
  return value === 'authenticated' || value === 'public' || value === 'platform_admin' || (typeof value === 'string' && isScope(value));
}

/** The scopes a route requires (every one of them); none for 'authenticated'; `admin` for
 * 'platform_admin' (whose credential must also be untenanted). */
export function requiredScopes(scope: Exclude<RouteScope, 'public'>): readonly AuthScope[] {
  if (scope === 'authenticated') return [];
  if (scope === 'platform_admin') return ['admin'];
  return typeof scope === 'string' ? [scope] : scope;
}

/** @fastify/cors registers `OPTIONS *` to answer preflights; a preflight carries no
 * credential by design (browsers strip it), so that one route is public. */
function isCorsPreflightRoute(route: RouteOptions): boolean {
  return route.method === 'OPTIONS' && route.url === '*';
}

/**
 * Install the scope check (onRoute), CORS and the auth hook (onRequest), in that order. Call it
 * before any route is registered. Hooks added after this call (rate limiting) run after
 * authentication and can read the principal.
 */
export async function registerAuth(app: FastifyInstance, config: VeilConfig, authenticator: Authenticator): Promise<void> {
  const table: RouteScopeEntry[] = [];
  tables.set(app, table);

  // Undeclared routes are collected and reported together when the app becomes ready: throwing
  // inside onRoute from a synchronous route plugin would escape avvio as an uncaught exception
  // instead of rejecting ready().
  const undeclared: string[] = [];
  app.addHook('onRoute', (route) => {
    if (isCorsPreflightRoute(route)) route.config = { ...route.config, scope: 'public' };
    const scope = route.config?.scope;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!isRouteScope(scope)) {
      undeclared.push(`${methods.join(',')} ${route.url}`);
      return;
    }
    for (const method of methods) table.push({ method, url: route.url, scope });
  });
  app.addHook('onReady', () =>
    undeclared.length > 0
      ? Promise.reject(new Error(`routes without a valid scope (add config.scope, see plugins/auth.ts): ${undeclared.join('; ')}`))
      : Promise.resolve(),
  );

  // CORS before auth: an allowed origin's preflight is answered here, without credentials.
  await app.register(cors, corsOptions(config));

  /** The scope check once the caller is known: throws VEIL_SCOPE_DENIED. */
  const admit = (request: FastifyRequest, scope: Exclude<RouteScope, 'public'>, principal: Principal): void => {
    setPrincipal(request, principal);
    const missing = requiredScopes(scope).find((required) => !principal.scopes.has(required));
    if (missing !== undefined) throw new VeilError('VEIL_SCOPE_DENIED', `missing required scope: ${missing}`);
    if (scope === 'platform_admin' && principal.tenant !== null) {
      throw new VeilError('VEIL_SCOPE_DENIED', 'this route acts on every tenant: it needs an untenanted (platform) admin credential');
    }
  };
  // RFC 6750: a 401 for a bearer-token mode names the scheme the client should use.
  const challenge = authenticator.mode === 'jwt' || authenticator.mode === 'oidc' ? 'Bearer realm="veil"' : undefined;
  const refuse = (reply: FastifyReply, error: unknown): Error => {
    if (challenge !== undefined && isVeilError(error) && error.status === 401) void reply.header('www-authenticate', challenge);
    return error as Error;
  };
  // Callback style: with an authenticator that decides synchronously (dev, api_key) a request
  // goes on without a promise; token modes that may fetch a key set take the promise path.
  const now = authenticator.authenticateNow?.bind(authenticator);
  app.addHook('onRequest', (request, reply, done) => {
    const scope = request.is404 ? 'authenticated' : routeOptionsOf(request).config.scope;
    if (scope === 'public') {
      done();
      return;
    }
    if (scope === undefined) {
      done(new VeilError('VEIL_INTERNAL', undefined, 'route without a declared scope'));
      return;
    }
    if (now !== undefined) {
      try {
        admit(request, scope, now(request.headers));
      } catch (error) {
        done(refuse(reply, error));
        return;
      }
      done();
      return;
    }
    let pending: Promise<Principal>;
    try {
      pending = authenticator.authenticate(request.headers);
    } catch (error) {
      done(refuse(reply, error));
      return;
    }
    pending.then(
      (principal) => {
        try {
          admit(request, scope, principal);
        } catch (error) {
          done(refuse(reply, error));
          return;
        }
        done();
      },
      (error: unknown) => done(refuse(reply, error)),
    );
  });
}
