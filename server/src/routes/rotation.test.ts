// Zero-downtime key rotation (interface.md section 5): add the new key while current_kid stays
// on the old one, switch current_kid, remove the old key after one session TTL. Blobs sealed
// before each step open or fail exactly as documented.
import { describe, expect, it } from 'vitest';
import { buildTestApp, post, type TestApp } from '../../test/support/harness.js';

const K1 = { kid: 'k1', secret: '11'.repeat(32) };
const K2 = { kid: 'k2', secret: '22'.repeat(32) };

async function ringApp(currentKid: string, keys: { kid: string; secret: string }[]): Promise<TestApp> {
  // VEIL_SESSION_SECRET would replace the ring, so the harness default is cleared here.
  return buildTestApp({ env: { VEIL_SESSION_SECRET: '' }, overrides: { session: { keyring: { current_kid: currentKid, keys } } } });
}

async function seal(app: TestApp): Promise<{ safe: string; state: string }> {
  const response = await post(app.app, '/v1/transform', { input: 'mail rotate.me@example.com' });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return { safe: response.body.safe_text, state: response.body.session_state };
}

async function opens(app: TestApp, blob: { safe: string; state: string }): Promise<boolean> {
  const response = await post(app.app, '/v1/rehydrate', { output: blob.safe, session_state: blob.state });
  if (response.status === 200) return response.body.restored_text === 'mail rotate.me@example.com';
  expect(response.body.code).toBe('VEIL_SESSION_EXPIRED');
  return false;
}

describe('key ring rotation', () => {
  it('stages, switches and retires a key without breaking live blobs', async () => {
    const before = await ringApp('k1', [K1]);
    const staged = await ringApp('k1', [K1, K2]);
    const switched = await ringApp('k2', [K1, K2]);
    const retired = await ringApp('k2', [K2]);
    try {
      const a = await seal(before);
      const b = await seal(staged);
      const c = await seal(switched);
      expect(a.state.startsWith('v1.k1.')).toBe(true);
      expect(b.state.startsWith('v1.k1.')).toBe(true);
      expect(c.state.startsWith('v1.k2.')).toBe(true);
      // Staging: replicas that already have k2 and those that do not both read every blob.
      expect(await opens(staged, a)).toBe(true);
      expect(await opens(before, b)).toBe(true);
      // Switching: new blobs use k2; old blobs still open.
      expect(await opens(switched, a)).toBe(true);
      expect(await opens(switched, b)).toBe(true);
      // A replica still on the staged ring reads k2 blobs too: that is why staging comes first.
      expect(await opens(staged, c)).toBe(true);
      expect(await opens(before, c)).toBe(false);
      // Retiring (after one TTL): k1 blobs no longer open, k2 blobs do.
      expect(await opens(retired, a)).toBe(false);
      expect(await opens(retired, b)).toBe(false);
      expect(await opens(retired, c)).toBe(true);
    } finally {
      await Promise.all([before.close(), staged.close(), switched.close(), retired.close()]);
    }
  });

  it('invalidates every blob when a single secret is replaced', async () => {
    const old = await buildTestApp({ env: { VEIL_SESSION_SECRET: 'aa'.repeat(32) } });
    const replaced = await buildTestApp({ env: { VEIL_SESSION_SECRET: 'bb'.repeat(32) } });
    try {
      const blob = await seal(old);
      expect(await opens(replaced, blob)).toBe(false);
    } finally {
      await Promise.all([old.close(), replaced.close()]);
    }
  });
});
