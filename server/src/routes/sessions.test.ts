// Session invalidation outlives every blob of the session (issue 15 item 3), through inject with
// an injected clock: a continuation issued after the presented blob (so expiring later), and an
// older blob issued under a longer TTL than the one now configured.
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, post, send, type TestApp } from '../../test/support/harness.js';

const apps: TestApp[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function app(env: Record<string, string> = {}): Promise<TestApp> {
  const built = await buildTestApp({ env });
  apps.push(built);
  return built;
}

describe('DELETE /v1/sessions', () => {
  it('denies a continuation that expires after the presented blob, beyond the presented expiry, and refuses to continue it', async () => {
    const t = await app({ VEIL_SESSION__TTL_SECONDS: '600' });
    const first = await post(t.app, '/v1/transform', { input: 'mail first.deny@example.com' });
    t.advance(300);
    // Issued 300 s later: lives 300 s past the first blob.
    const later = await post(t.app, '/v1/transform', { input: 'and more', session_state: first.body.session_state });
    expect(later.status).toBe(200);
    const deleted = await send(t.app, { method: 'DELETE', url: '/v1/sessions', body: { session_state: first.body.session_state } });
    expect(deleted.body).toEqual({ invalidated: true });
    // Past the presented blob's expiry, inside the continuation's own lifetime.
    t.advance(450);
    const restored = await post(t.app, '/v1/rehydrate', { output: first.body.safe_text, session_state: later.body.session_state });
    expect(restored.status).toBe(410);
    expect(restored.body.code).toBe('VEIL_SESSION_EXPIRED');
    const continued = await post(t.app, '/v1/transform', { input: 'again', session_state: later.body.session_state });
    expect(continued.status).toBe(410);
  });

  it('refuses a blob older than the longest lifetime now configured, even when its own expiry is later', async () => {
    const long = await app({ VEIL_SESSION__TTL_SECONDS: '86400' });
    const made = await post(long.app, '/v1/transform', { input: 'mail long.lived@example.com' });
    // Same secret, TTL lowered to 60 s: the old blob opens for its first 60 s only.
    const short = await app({ VEIL_SESSION__TTL_SECONDS: '60' });
    const early = await post(short.app, '/v1/rehydrate', { output: made.body.safe_text, session_state: made.body.session_state });
    expect(early.body.restored_text).toBe('mail long.lived@example.com');
    short.advance(61);
    const late = await post(short.app, '/v1/rehydrate', { output: made.body.safe_text, session_state: made.body.session_state });
    expect(late.status).toBe(410);
    const status = await post(short.app, '/v1/sessions/status', { session_state: made.body.session_state });
    expect(status.status).toBe(410);
  });

});
