// Symmetric keys as node:crypto KeyObjects, built once per key. On Node 24 every createHmac or
// createCipheriv given a raw Buffer first builds a KeyObject from it; that costs several times
// the MAC or the encryption of a small message (measured: HMAC-SHA-256 of ~40 bytes ~90 µs with
// a Buffer key, ~13 µs with a KeyObject). Long-lived key buffers (the digest secret, the audit
// key, derived corpus and session keys) map to their KeyObject here, so the hot path never
// rebuilds one.
import { createSecretKey, type KeyObject } from 'node:crypto';

const cache = new WeakMap<Buffer, KeyObject>();

/**
 * The KeyObject of a secret key buffer, cached by the buffer's identity. Callers hold their key
 * buffers for the process's life and never write to them (key rings copy what they are given);
 * a buffer mutated after first use would keep its first key here.
 */
export function secretKeyOf(key: Buffer): KeyObject {
  let object = cache.get(key);
  if (object === undefined) {
    object = createSecretKey(key);
    cache.set(key, object);
  }
  return object;
}
