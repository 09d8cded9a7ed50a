// The session key ring (interface.md section 5, decisions.md section 11): seal under the
// current kid, open under any listed kid, so keys rotate without downtime. Each configured
// 32-byte secret is stretched once, at construction, into the AES-256-GCM key actually used,
// so the hot path never runs HKDF and the raw secret is never used directly as a cipher key.
import { createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';

/** Key ids appear in the blob (`v1.<kid>.…`): short, URL- and log-safe. */
export const KID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const SESSION_SECRET_BYTES = 32;
const SESSION_KEY_INFO = 'veil/session/v1';
const SESSION_KEY_SALT = Buffer.alloc(0);

/** Derived AEAD keys per ring, kept outside the public surface of KeyRing. */
// KeyObjects, built once here: on Node 24 createCipheriv with a raw Buffer key builds one per
// call, which costs about three times the encryption of a 1 KB session (domain/keys.ts).
const aeadKeys = new WeakMap<KeyRing, ReadonlyMap<string, KeyObject>>();

export class KeyRing {
  readonly currentKid: string;
  readonly kids: readonly string[];
  readonly #secrets: ReadonlyMap<string, Buffer>;

  /**
   * Throws a plain Error (a startup configuration error) when a kid is malformed or repeated,
   * a key is not exactly 32 bytes, or currentKid is not listed. Messages name kids, never keys.
   */
  constructor(currentKid: string, keys: readonly { kid: string; key: Buffer }[]) {
    if (keys.length === 0) throw new Error('session key ring: at least one key is required');
    const secrets = new Map<string, Buffer>();
    const derived = new Map<string, KeyObject>();
    for (const [index, { kid, key }] of keys.entries()) {
      if (typeof kid !== 'string' || !KID_PATTERN.test(kid)) {
        throw new Error(`session key ring: key ${index} has an invalid kid (expected [A-Za-z0-9_-]{1,64})`);
      }
      if (secrets.has(kid)) throw new Error(`session key ring: kid "${kid}" is listed twice`);
      if (!Buffer.isBuffer(key) || key.length !== SESSION_SECRET_BYTES) {
        throw new Error(`session key ring: key "${kid}" must be exactly ${SESSION_SECRET_BYTES} bytes`);
      }
      // Copies: a caller that later zeroes or reuses its buffer cannot change the ring.
      secrets.set(kid, Buffer.from(key));
      derived.set(kid, createSecretKey(Buffer.from(hkdfSync('sha256', key, SESSION_KEY_SALT, SESSION_KEY_INFO, 32))));
    }
    if (!secrets.has(currentKid)) {
      throw new Error(`session key ring: current kid "${currentKid}" is not among the listed keys`);
    }
    this.currentKid = currentKid;
    this.kids = Object.freeze([...secrets.keys()]);
    this.#secrets = secrets;
    aeadKeys.set(this, derived);
    Object.freeze(this);
  }

  /** The configured secret for `kid` (a copy), or undefined for an unknown kid. */
  get(kid: string): Buffer | undefined {
    const secret = this.#secrets.get(kid);
    return secret === undefined ? undefined : Buffer.from(secret);
  }
}

/** The derived AES-256-GCM key for `kid`; for the seal module only (not re-exported). */
export function aeadKeyFor(ring: KeyRing, kid: string): KeyObject | undefined {
  return aeadKeys.get(ring)?.get(kid);
}
