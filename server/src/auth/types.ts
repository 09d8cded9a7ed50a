// The authenticator contract: one implementation per auth.mode. An authenticator sees only the
// request headers (authentication runs before the body is read) and either returns the
// principal or throws a VeilError: VEIL_AUTH_REQUIRED when no credential was sent,
// VEIL_AUTH_INVALID when one was sent and is not acceptable, VEIL_AUTH_UNAVAILABLE when the
// credential cannot be checked right now (OIDC key-set outage; fail closed).
import type { IncomingHttpHeaders } from 'node:http';
import type { AuthMode } from '../config/schema.js';
import type { Principal } from './principal.js';

export interface Authenticator {
  readonly mode: AuthMode;
  authenticate(headers: IncomingHttpHeaders): Promise<Principal>;
  /**
   * The same decision made synchronously, for modes that need no I/O (dev, api_key): returns
   * the principal or throws what authenticate() would reject with. The request hook then goes
   * on without a promise per request (auth/plugin.ts).
   */
  authenticateNow?(headers: IncomingHttpHeaders): Principal;
}
