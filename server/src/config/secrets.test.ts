// Tests of the secret helpers: accepted encodings, keygen, fingerprints and the Secret wrapper.
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Secret, keygen, kidForSecret, parseSecret, secretFingerprint } from './secrets.js';

describe('secret helpers', () => {
  it('keygen prints 64 hex characters that parse back to 32 bytes', () => {
    const generated = new Set(Array.from({ length: 100 }, keygen));
    expect(generated.size).toBe(100);
    for (const text of generated) {
      expect(text).toMatch(/^[0-9a-f]{64}$/);
      expect(parseSecret(text)).toHaveLength(32);
    }
  });

  it('parses hex and standard base64, nothing else', () => {
    const bytes = Buffer.alloc(32, 0xfe);
    expect(parseSecret(bytes.toString('hex'))!.equals(bytes)).toBe(true);
    expect(parseSecret(bytes.toString('base64'))!.equals(bytes)).toBe(true);
    expect(parseSecret(bytes.toString('base64url'))).toBeNull();
    expect(parseSecret('')).toBeNull();
  });

  it('fingerprints and kids are stable, short and not the secret', () => {
    const secret = Buffer.alloc(32, 3);
    expect(secretFingerprint(secret)).toMatch(/^[0-9a-f]{16}$/);
    expect(secretFingerprint(secret)).toBe(secretFingerprint(Buffer.alloc(32, 3)));
    expect(secretFingerprint(secret)).not.toBe(secretFingerprint(Buffer.alloc(32, 4)));
    expect(kidForSecret(secret)).toBe(secretFingerprint(secret).slice(0, 8));
    expect(secret.toString('hex')).not.toContain(secretFingerprint(secret));
  });

  it('Secret hides its value from every printing path', () => {
    const secret = new Secret('hunter2-canary');
    expect(secret.reveal()).toBe('hunter2-canary');
    for (const shown of [String(secret), secret.toString(), JSON.stringify({ secret }), inspect({ secret }, { depth: 5 }), inspect(secret, { showHidden: true })]) {
      expect(shown).not.toContain('hunter2');
    }
    expect(Object.isFrozen(secret)).toBe(true);
  });
});
