// /readyz follows the shared store (issue 15 item 14), against the real `veil serve` and a real
// redis-server that the test stops and starts again on the same port: ready, not ready while
// Redis is gone (and requests fail closed meanwhile), ready again once it is back.
import { describe, expect, it } from 'vitest';
import { redisAvailability, startLocalRedis, type LocalRedis } from '../server/test/support/redis.js';
import { fresh, startVeil } from './support/server.js';

const availability = redisAvailability();
if (!availability.available && process.env.CI !== undefined) throw new Error(`the readiness suite needs redis-server in CI: ${availability.reason}`);
// REDIS_URL points at a server this test cannot stop: the suite needs its own.
const local = availability.available && availability.source === 'redis-server';

/** Poll `/readyz` until it answers `status` (a probe's view: whatever it says now). */
async function readyzBecomes(url: string, status: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if ((await fresh(url, 'GET', '/readyz')).status === status) return;
    if (Date.now() > deadline) throw new Error(`/readyz never answered ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(!local)('/readyz with a Redis store', () => {
  it('is not ready while Redis is down and ready again when it returns', async () => {
    let redis: LocalRedis = await startLocalRedis();
    const server = await startVeil({
      env: {
        VEIL_SESSION_SECRET: '4f'.repeat(32),
        VEIL_SESSION__REDIS_URL: redis.url,
        VEIL_REVOCATION_BACKEND: 'redis',
        VEIL_REPLAY_BACKEND: 'redis',
        VEIL_IDEMPOTENCY__BACKEND: 'redis',
      },
    });
    try {
      const ready = await fresh(server.url, 'GET', '/readyz');
      expect(ready.status).toBe(200);
      expect(ready.json).toEqual({ status: 'ready' });
      const made = await fresh(server.url, 'POST', '/v1/transform', { input: 'mail readyz.redis@example.org' });

      await redis.stop();
      await readyzBecomes(server.url, 503);
      expect((await fresh(server.url, 'GET', '/readyz')).json).toEqual({ status: 'not_ready' });
      // Meanwhile requests that need the store fail closed.
      const refused = await fresh(server.url, 'POST', '/v1/rehydrate', { output: made.json.safe_text, session_state: made.json.session_state });
      expect(refused.status).toBe(503);
      expect(refused.text).not.toContain('readyz.redis@example.org');

      redis = await startLocalRedis([], { port: redis.port });
      await readyzBecomes(server.url, 200);
      const restored = await fresh(server.url, 'POST', '/v1/rehydrate', { output: made.json.safe_text, session_state: made.json.session_state });
      expect(restored.json.restored_text).toBe('mail readyz.redis@example.org');
    } finally {
      await server.stop();
      await redis.stop();
    }
  }, 60_000);
});
