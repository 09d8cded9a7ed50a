// The auth layer's public surface: build the authenticator for auth.mode, the principal seam
// other hooks use, and the route-scope registration (plugin.ts).
import type { VeilConfig } from '../config/schema.js';
import { ApiKeyAuthenticator } from './api-key.js';
import type { FetchLike } from './jwks.js';
import { JwtAuthenticator } from './jwt.js';
import { OidcAuthenticator } from './oidc.js';
import { DEV_PRINCIPAL } from './principal.js';
import type { Authenticator } from './types.js';

export { ApiKeyAuthenticator } from './api-key.js';
export { JwtAuthenticator } from './jwt.js';
export { OidcAuthenticator } from './oidc.js';
export { JwksCache, type FetchLike } from './jwks.js';
export type { Authenticator } from './types.js';
export {
  ALL_SCOPES,
  DEV_PRINCIPAL,
  TENANT_ID_PATTERN,
  authenticatedPrincipal,
  makePrincipal,
  principalOf,
  type Principal,
} from './principal.js';
export { registerAuth, routeScopes, type RouteScope, type RouteScopeEntry } from '../plugins/auth.js';
export { corsOptions, isLoopbackOrigin } from './cors.js';

export interface AuthenticatorOptions {
  /** Milliseconds since the epoch (token expiry, JWKS cache age). */
  readonly now: () => number;
  /** Outbound fetch for the OIDC key set; the global fetch when omitted. */
  readonly fetch?: FetchLike | undefined;
}

const devAuthenticator: Authenticator = { mode: 'dev', authenticate: () => Promise.resolve(DEV_PRINCIPAL), authenticateNow: () => DEV_PRINCIPAL };

export function createAuthenticator(auth: VeilConfig['auth'], options: AuthenticatorOptions): Authenticator {
  switch (auth.mode) {
    case 'dev':
      return devAuthenticator;
    case 'api_key':
      return new ApiKeyAuthenticator(auth.api_keys);
    case 'jwt':
      if (auth.jwt === undefined) throw new Error('auth.jwt is required in jwt mode');
      return new JwtAuthenticator(auth.jwt, options.now);
    case 'oidc':
      if (auth.oidc === undefined) throw new Error('auth.oidc is required in oidc mode');
      return new OidcAuthenticator(auth.oidc, options);
  }
}
