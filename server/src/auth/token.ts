// Bearer-token handling shared by auth.mode jwt and oidc: header extraction, the structural
// checks that run BEFORE any cryptography (threats.md item 11), the signature and registered-claim
// verification both modes run (verifyClaims), and the mapping from verified claims to a principal
// (decisions.md section 5; plus `access_level`, the caller's RAG clearance).
//
// Checked before crypto, each a VEIL_AUTH_INVALID:
// - more than 8 KB, or not exactly three non-empty base64url segments (JWE, detached or
//   truncated tokens);
// - a protected header that is not a JSON object, or has duplicate keys (parsers disagree on
//   which copy wins: a classic way to show one `alg` to a checker and another to the verifier);
// - `alg` not exactly one of the configured algorithms (so `none` in any casing, and HMAC in
//   the asymmetric mode, never reach a verifier);
// - key-bearing headers `jwk`, `jku`, `x5u`, `x5c`: keys come only from configuration, so a
//   token that brings its own key is refused outright and nothing it names is ever fetched;
// - any `crit` header: no extension is understood here, so every critical one is unknown;
// - a `kid` that is not a string of at most 256 characters (it is only ever a map lookup, but
//   there is no reason to carry a 7 KB one further);
// - a payload that is not a JSON object or has duplicate keys.
import type { IncomingHttpHeaders } from 'node:http';
import { VeilError } from '@veil/common';
import type { CryptoKey, KeyObject } from 'jose';
import { isScope, makePrincipal, TENANT_ID_PATTERN, type Principal } from './principal.js';

/**
 * jose (~46 modules) loads with the first token verified or key imported, not with the server:
 * a deployment without auth.mode jwt or oidc never loads it (BENCHMARKS.md, "Session 13
 * (wave12/boot)"; e2e/startup.e2e.test.ts checks a default server does not).
 */
let joseModule: Promise<typeof import('jose')> | undefined;
export function loadJose(): Promise<typeof import('jose')> {
  joseModule ??= import('jose');
  return joseModule;
}

export const MAX_TOKEN_BYTES = 8 * 1024;
export const MAX_KID_LENGTH = 256;
/** Allowed clock skew for exp, nbf and iat, in seconds. Small: tokens are short-lived. */
export const CLOCK_TOLERANCE_SECONDS = 30;
/** Same bound as the request context's caller_role / caller_purpose fields. */
const MAX_ROLE_LENGTH = 128;
const MAX_IDENTITY_LENGTH = 256;

const TOKEN_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const BEARER = /^Bearer +([^\s]+) *$/i;
const KEY_BEARING_HEADERS = ['jwk', 'jku', 'x5u', 'x5c'] as const;

export function invalidToken(detail: string): VeilError {
  // The detail names the check that failed, never a claim value or the token.
  return new VeilError('VEIL_AUTH_INVALID', undefined, `token: ${detail}`);
}

/** The bearer token of the Authorization header. */
export function bearerToken(headers: IncomingHttpHeaders): string {
  const header = headers.authorization;
  if (header === undefined || header === '') {
    throw new VeilError('VEIL_AUTH_REQUIRED', 'authentication required: send Authorization: Bearer <token>');
  }
  const match = BEARER.exec(header);
  if (match === null) throw invalidToken('Authorization is not a Bearer credential');
  return match[1]!;
}

/**
 * True when a JSON text (already known to parse) has an object with the same key twice, after
 * unescaping (`"a"` and `"\u0061"` are the same key).
 */
export function hasDuplicateKeys(text: string): boolean {
  const stack: { keys: Set<string> | null; expectKey: boolean }[] = [];
  let index = 0;
  while (index < text.length) {
    const char = text[index]!;
    if (char === '"') {
      let end = index + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const top = stack[stack.length - 1];
      if (top !== undefined && top.keys !== null && top.expectKey) {
        const key = JSON.parse(text.slice(index, end + 1)) as string;
        if (top.keys.has(key)) return true;
        top.keys.add(key);
        top.expectKey = false;
      }
      index = end + 1;
      continue;
    }
    if (char === '{') stack.push({ keys: new Set(), expectKey: true });
    else if (char === '[') stack.push({ keys: null, expectKey: false });
    else if (char === '}' || char === ']') stack.pop();
    else if (char === ',') {
      const top = stack[stack.length - 1];
      if (top !== undefined && top.keys !== null) top.expectKey = true;
    }
    index += 1;
  }
  return false;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function decodeSegment(segment: string, name: string): Record<string, unknown> {
  let text: string;
  let value: unknown;
  try {
    text = decoder.decode(Buffer.from(segment, 'base64url'));
    value = JSON.parse(text);
  } catch {
    throw invalidToken(`${name} is not base64url JSON`);
  }
  if (!isPlainObject(value)) throw invalidToken(`${name} is not a JSON object`);
  if (hasDuplicateKeys(text)) throw invalidToken(`${name} has duplicate keys`);
  return value;
}

export interface TokenHeader {
  readonly alg: string;
  readonly kid?: string;
}

/** The structural checks above; returns the protected header for key selection. */
export function inspectToken(token: string, algorithms: readonly string[]): TokenHeader {
  if (Buffer.byteLength(token, 'utf8') > MAX_TOKEN_BYTES) throw invalidToken(`larger than ${MAX_TOKEN_BYTES} bytes`);
  if (!TOKEN_SHAPE.test(token)) throw invalidToken('not three base64url segments');
  const [headerSegment, payloadSegment] = token.split('.') as [string, string, string];
  const header = decodeSegment(headerSegment, 'header');
  const alg = header.alg;
  if (typeof alg !== 'string' || !algorithms.includes(alg)) throw invalidToken('alg not allowed');
  for (const name of KEY_BEARING_HEADERS) {
    if (Object.hasOwn(header, name)) throw invalidToken(`header ${name} not accepted`);
  }
  if (Object.hasOwn(header, 'crit')) throw invalidToken('crit header not supported');
  const kid = header.kid;
  if (kid !== undefined && (typeof kid !== 'string' || kid.length === 0 || kid.length > MAX_KID_LENGTH)) {
    throw invalidToken('kid is not a string of 1 to 256 characters');
  }
  decodeSegment(payloadSegment, 'payload');
  return kid === undefined ? { alg } : { alg, kid };
}

function optionalString(claims: Record<string, unknown>, name: string, maxLength: number): string | undefined {
  const value = claims[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0 || value.length > maxLength) throw invalidToken(`claim ${name} is not a string of 1 to ${maxLength} characters`);
  return value;
}

/** Scopes from `scope` (space-separated) and/or `scopes` (array); names that are not Veil
 * scopes (an IdP's `openid`, `profile`) are ignored. */
function scopesOf(claims: Record<string, unknown>): string[] {
  const names: string[] = [];
  const scope = claims.scope;
  if (scope !== undefined) {
    if (typeof scope !== 'string') throw invalidToken('claim scope is not a string');
    names.push(...scope.split(/\s+/));
  }
  const scopes = claims.scopes;
  if (scopes !== undefined) {
    if (!Array.isArray(scopes) || !scopes.every((item) => typeof item === 'string')) throw invalidToken('claim scopes is not an array of strings');
    names.push(...scopes);
  }
  return names;
}

export interface ClaimRules {
  /** Claim holding the tenant id: `tenant_id` in jwt mode, auth.oidc.tenant_claim in oidc. */
  readonly tenantClaim: string;
  /** OIDC requires the tenant claim on every token; jwt allows untenanted platform callers. */
  readonly tenantRequired: boolean;
  /** Seconds since the epoch, for the iat check jose does not do on its own. */
  readonly nowSeconds: number;
}

/** The principal of verified claims (signature, iss, aud, exp and nbf already checked). */
export function principalFromClaims(claims: Record<string, unknown>, rules: ClaimRules): Principal {
  const identity = optionalString(claims, 'sub', MAX_IDENTITY_LENGTH);
  if (identity === undefined) throw invalidToken('claim sub is required');
  const iat = claims.iat;
  if (typeof iat === 'number' && iat > rules.nowSeconds + CLOCK_TOLERANCE_SECONDS) throw invalidToken('iat is in the future');
  const tenantValue = claims[rules.tenantClaim];
  let tenant: string | null = null;
  if (tenantValue === undefined || tenantValue === null) {
    if (rules.tenantRequired) throw invalidToken('tenant claim is required');
  } else if (typeof tenantValue === 'string' && TENANT_ID_PATTERN.test(tenantValue)) {
    tenant = tenantValue;
  } else {
    throw invalidToken('tenant claim is not a valid tenant id');
  }
  return makePrincipal({
    identity,
    tenant,
    scopes: scopesOf(claims).filter(isScope),
    role: optionalString(claims, 'role', MAX_ROLE_LENGTH),
    purpose: optionalString(claims, 'purpose', MAX_ROLE_LENGTH),
    // RAG clearance (a rag.classification_levels label); an unknown label reads as the lowest.
    accessLevel: optionalString(claims, 'access_level', MAX_ROLE_LENGTH),
  });
}

/** jose errors carry a stable `code` (ERR_JWT_EXPIRED, ...); the message and the claims it may
 * hold are never logged. VeilErrors thrown from key resolution pass through unchanged. */
export function verificationError(error: unknown): VeilError {
  if (error instanceof VeilError) return error;
  const code = typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string' ? (error as { code: string }).code : 'unknown';
  return invalidToken(`verification failed (${code})`);
}

export interface VerifyRules {
  /** Algorithms the verifier accepts (already checked against the header by inspectToken). */
  readonly algorithms: readonly string[];
  readonly issuer: string;
  readonly audience: string;
  /** Milliseconds since the epoch: the clock every time check uses. */
  readonly nowMs: number;
}

/**
 * Signature, iss, aud, exp (required) and nbf, the same rules in jwt and oidc mode; returns the
 * payload, or throws verificationError's VEIL_AUTH_INVALID.
 */
export async function verifyClaims(token: string, key: Uint8Array | CryptoKey | KeyObject, rules: VerifyRules): Promise<Record<string, unknown>> {
  const { jwtVerify } = await loadJose();
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: [...rules.algorithms],
      issuer: rules.issuer,
      audience: rules.audience,
      requiredClaims: ['exp'],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      currentDate: new Date(rules.nowMs),
    });
    return payload;
  } catch (error) {
    throw verificationError(error);
  }
}
