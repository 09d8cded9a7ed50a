// auth.mode oidc: `Authorization: Bearer` tokens from an identity provider, verified against its
// published key set (jwks.ts) with the configured asymmetric allowlist (RS/PS/ES only; the
// config schema cannot even name an HMAC algorithm here, so HMAC-with-the-public-key confusion
// is refused before any key is looked at). issuer, audience, exp (required), nbf and iat are
// checked; the tenant claim (auth.oidc.tenant_claim) is required on every token.
import type { IncomingHttpHeaders } from 'node:http';
import type { OidcConfig } from '../config/schema.js';
import { JwksCache, type FetchLike } from './jwks.js';
import type { Principal } from './principal.js';
import { bearerToken, inspectToken, principalFromClaims, verifyClaims } from './token.js';
import type { Authenticator } from './types.js';

export class OidcAuthenticator implements Authenticator {
  readonly mode = 'oidc' as const;
  readonly jwks: JwksCache;
  readonly #algorithms: readonly string[];
  readonly #issuer: string;
  readonly #audience: string;
  readonly #tenantClaim: string;
  readonly #now: () => number;

  constructor(config: OidcConfig, options: { now: () => number; fetch?: FetchLike | undefined }) {
    if (config.issuer === undefined || config.audience === undefined || config.jwks_url === undefined) {
      throw new Error('auth.oidc: issuer, jwks_url and audience are required in oidc mode');
    }
    this.#algorithms = [...config.algorithms];
    this.#issuer = config.issuer;
    this.#audience = config.audience;
    this.#tenantClaim = config.tenant_claim;
    this.#now = options.now;
    this.jwks = new JwksCache({
      url: config.jwks_url,
      algorithms: config.algorithms,
      now: options.now,
      ...(options.fetch !== undefined ? { fetch: options.fetch } : {}),
    });
  }

  async authenticate(headers: IncomingHttpHeaders): Promise<Principal> {
    const token = bearerToken(headers);
    const header = inspectToken(token, this.#algorithms);
    // Resolve the key first: a key-set outage is VEIL_AUTH_UNAVAILABLE, not a bad token.
    const key = await this.jwks.keyFor(header);
    const nowMs = this.#now();
    const payload = await verifyClaims(token, key, { algorithms: [header.alg], issuer: this.#issuer, audience: this.#audience, nowMs });
    return principalFromClaims(payload, { tenantClaim: this.#tenantClaim, tenantRequired: true, nowSeconds: Math.floor(nowMs / 1000) });
  }
}
