// Secret handling for configuration (decisions.md section 10, house-style rule 7): the accepted
// encodings of a 32-byte secret, `veil keygen`, a fingerprint that is safe to log, and a wrapper
// that keeps credential strings out of logs, JSON and error messages.
import { createHash, randomBytes } from 'node:crypto';

export const SECRET_BYTES = 32;
const HEX_SECRET = /^[0-9a-fA-F]{64}$/;
/** Standard (not URL-safe) base64 of 32 bytes: 43 characters and one `=`. */
const BASE64_SECRET = /^[A-Za-z0-9+/]{43}=$/;

/**
 * Decode a 32-byte secret written as 64 hex characters or as standard base64. Returns null for
 * anything else: other lengths, base64url, missing padding, whitespace, or a base64 string whose
 * unused bits are not zero (only the canonical spelling of a key is accepted).
 */
export function parseSecret(text: string): Buffer | null {
  if (HEX_SECRET.test(text)) return Buffer.from(text, 'hex');
  if (BASE64_SECRET.test(text)) {
    const bytes = Buffer.from(text, 'base64');
    if (bytes.length === SECRET_BYTES && bytes.toString('base64') === text) return bytes;
  }
  return null;
}

/** A new random 32-byte secret as 64 lowercase hex characters (`veil keygen`). */
export function keygen(): string {
  return randomBytes(SECRET_BYTES).toString('hex');
}

/** First 16 hex characters of SHA-256(secret): identifies a secret in logs without revealing it. */
export function secretFingerprint(secret: Buffer): string {
  return createHash('sha256').update(secret).digest('hex').slice(0, 16);
}

/**
 * Key id of a single configured secret: first 8 hex of SHA-256(secret). Stable across restarts
 * and replicas (so blobs keep opening when the same secret is redeployed), and 32 bits of a
 * hash of a 256-bit random key reveal nothing usable about it.
 */
export function kidForSecret(secret: Buffer): string {
  return createHash('sha256').update(secret).digest('hex').slice(0, 8);
}

const REDACTED = '[redacted]';

/**
 * A credential from the configuration (API key, JWT secret, sidecar API key). Printing,
 * interpolating, JSON-encoding or inspecting it shows `[redacted]`; `reveal()` is the one
 * deliberate way to read it, so every use is greppable.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
    Object.freeze(this);
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `Secret(${REDACTED})`;
  }
}
