// auth.mode jwt: `Authorization: Bearer` tokens signed with HMAC (HS256/384/512, the configured
// allowlist) under auth.jwt.secret taken as its UTF-8 bytes (decisions.md section 5). issuer,
// audience, exp (required), nbf and iat are checked with a small clock tolerance; the tenant is
// the optional `tenant_id` claim (absent = untenanted platform caller).
import type { IncomingHttpHeaders } from 'node:http';
import type { JwtConfig } from '../config/schema.js';
import type { Principal } from './principal.js';
import { bearerToken, inspectToken, principalFromClaims, verifyClaims } from './token.js';
import type { Authenticator } from './types.js';

export class JwtAuthenticator implements Authenticator {
  readonly mode = 'jwt' as const;
  readonly #secret: Uint8Array;
  readonly #algorithms: readonly string[];
  readonly #issuer: string;
  readonly #audience: string;
  readonly #now: () => number;

  constructor(config: JwtConfig, now: () => number) {
    if (config.secret === undefined || config.issuer === undefined || config.audience === undefined) {
      // load.ts guarantees these in jwt mode; refuse to start rather than accept anything.
      throw new Error('auth.jwt: secret, issuer and audience are required in jwt mode');
    }
    this.#secret = new TextEncoder().encode(config.secret.reveal());
    this.#algorithms = [...config.algorithms];
    this.#issuer = config.issuer;
    this.#audience = config.audience;
    this.#now = now;
  }

  async authenticate(headers: IncomingHttpHeaders): Promise<Principal> {
    const token = bearerToken(headers);
    inspectToken(token, this.#algorithms);
    const nowMs = this.#now();
    const payload = await verifyClaims(token, this.#secret, { algorithms: this.#algorithms, issuer: this.#issuer, audience: this.#audience, nowMs });
    return principalFromClaims(payload, { tenantClaim: 'tenant_id', tenantRequired: false, nowSeconds: Math.floor(nowMs / 1000) });
  }
}
