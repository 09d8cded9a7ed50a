// State across processes: two server processes sharing one Redis honour each other's sessions,
// revocations, idempotent requests and deny-listed blobs; a server on SQLite loses nothing it
// acknowledged across 50 SIGKILL restarts.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findRedisServer, redisAvailability, startLocalRedis, startTestRedis, type TestRedis } from '../server/test/support/redis.js';
import { postJson, startVeil, type ServerProcess } from './support/server.js';

const SECRETS = { VEIL_SESSION_SECRET: '6d'.repeat(32), VEIL_DIGEST_SECRET: '7e'.repeat(32) };
const availability = redisAvailability();
if (!availability.available && process.env.CI !== undefined) {
  throw new Error(`the multi-replica suite needs Redis in CI: ${availability.reason}`);
}

async function idempotent(url: string, key: string, body: unknown): Promise<{ status: number; replayed: string | null; body: unknown }> {
  const response = await fetch(`${url}/v1/transform`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify(body),
  });
  return { status: response.status, replayed: response.headers.get('idempotency-replayed'), body: await response.json() };
}

describe.skipIf(!availability.available)('two replicas sharing Redis', () => {
  let redis: TestRedis;
  const servers: ServerProcess[] = [];
  const start = async (extra: Record<string, string>): Promise<ServerProcess> => {
    const server = await startVeil({
      env: {
        ...SECRETS,
        VEIL_SESSION__REDIS_URL: redis.url,
        VEIL_REPLAY_BACKEND: 'redis',
        VEIL_REVOCATION_BACKEND: 'redis',
        VEIL_IDEMPOTENCY__BACKEND: 'redis',
        ...extra,
      },
    });
    servers.push(server);
    return server;
  };
  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await redis.stop();
  });

  it('honours revocations, idempotent requests and deny-listed blobs made on the other replica', async () => {
    const a = await start({});
    const b = await start({});
    const value = 'replica.person@example.com';
    const made = await idempotent(a.url, 'replica-key', { input: `mail ${value}` });
    expect(made.status).toBe(200);
    const replayed = await idempotent(b.url, 'replica-key', { input: `mail ${value}` });
    expect(replayed.replayed).toBe('true');
    expect(replayed.body).toEqual(made.body);
    const session = made.body as { safe_text: string; session_state: string };

    const onB = await postJson(`${b.url}/v1/rehydrate`, { output: session.safe_text, session_state: session.session_state });
    expect(onB.body.restored_text).toBe(`mail ${value}`);
    await postJson(`${a.url}/v1/revoke`, { entity_type: 'email', value });
    const erased = await postJson(`${b.url}/v1/rehydrate`, { output: session.safe_text, session_state: session.session_state });
    expect(erased.body.restored_text).toBe('mail [DELETED]');

    const continued = await postJson(`${a.url}/v1/transform`, { input: 'next', session_state: session.session_state });
    expect(continued.status).toBe(200);
    const replay = await postJson(`${b.url}/v1/transform`, { input: 'again', session_state: session.session_state });
    expect(replay.status).toBe(409);

    await fetch(`${a.url}/v1/sessions`, { method: 'DELETE', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ session_state: continued.body.session_state }) });
    const denied = await postJson(`${b.url}/v1/rehydrate`, { output: continued.body.safe_text, session_state: continued.body.session_state });
    expect(denied.status).toBe(410);
  });

  it('shares server-side sessions', async () => {
    const a = await start({ VEIL_SESSION__BACKEND: 'redis' });
    const b = await start({ VEIL_SESSION__BACKEND: 'redis' });
    const made = await postJson(`${a.url}/v1/transform`, { input: 'mail shared.session@example.com' });
    expect(made.body.session_id).toMatch(/^[0-9a-f]{32}$/);
    const next = await postJson(`${b.url}/v1/transform`, { input: 'and shared.session@example.com', session_id: made.body.session_id });
    expect(next.status).toBe(200);
    const restored = await postJson(`${a.url}/v1/rehydrate`, { output: `${made.body.safe_text} / ${next.body.safe_text}`, session_id: made.body.session_id });
    expect(restored.body.restored_text).toBe('mail shared.session@example.com / and shared.session@example.com');
  });
});

describe.skipIf(findRedisServer() === undefined)('a Redis that would lose revocations', () => {
  it('stops `veil serve` with a message naming the setting and the waiver; the waiver starts it with a warning', async () => {
    const volatile = await startLocalRedis(['--appendonly', 'no']);
    try {
      const env = { ...SECRETS, VEIL_SESSION__REDIS_URL: volatile.url, VEIL_REVOCATION_BACKEND: 'redis' };
      const refused = await startVeil({ env }).then(
        async (server) => {
          await server.stop();
          return undefined;
        },
        (error: unknown) => String(error),
      );
      expect(refused).toMatch(/server exited with 1/);
      expect(refused).toContain('veil: failed to start: the Redis holding revocations is not durable: Redis appendonly is off');
      expect(refused).toContain('storage.allow_non_durable_redis: true');
      const waived = await startVeil({ env: { ...env, VEIL_STORAGE__ALLOW_NON_DURABLE_REDIS: 'true' } });
      await waived.stop();
      expect(waived.logs.join('\n')).toContain('Redis appendonly is off');
    } finally {
      await volatile.stop();
    }
  });
});

describe('SQLite durability across SIGKILL', () => {
  it('keeps every acknowledged revocation and idempotent response through 50 kill-restart cycles', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'veil-durable-'));
    const env = {
      ...SECRETS,
      VEIL_STORAGE__SQLITE_PATH: join(dir, 'veil.db'),
      VEIL_REPLAY_BACKEND: 'sqlite',
      VEIL_REVOCATION_BACKEND: 'sqlite',
      VEIL_IDEMPOTENCY__BACKEND: 'sqlite',
      VEIL_LOG_LEVEL: 'warn',
    };
    const acknowledged: { key: string; body: unknown }[] = [];
    const cycles = 50;
    for (let cycle = 0; cycle < cycles; cycle += 1) {
      const server = await startVeil({ env: { ...env, VEIL_LOG_LEVEL: 'info' } });
      try {
        const count = (await (await fetch(`${server.url}/v1/revocations/count`)).json()) as { count: number };
        expect(count.count).toBe(cycle);
        const previous = acknowledged.at(-1);
        if (previous !== undefined) {
          const again = await idempotent(server.url, previous.key, { input: `cycle ${cycle - 1} x${cycle - 1}@example.com` });
          expect(again.replayed).toBe('true');
          expect(again.body).toEqual(previous.body);
        }
        const revoked = await postJson(`${server.url}/v1/revoke`, { entity_type: 'email', value: `gone${cycle}@example.com` });
        expect(revoked.status).toBe(200);
        const made = await idempotent(server.url, `cycle-${cycle}`, { input: `cycle ${cycle} x${cycle}@example.com` });
        expect(made.status).toBe(200);
        acknowledged.push({ key: `cycle-${cycle}`, body: made.body });
      } finally {
        await server.stop('SIGKILL');
      }
    }
    const final = await startVeil({ env: { ...env, VEIL_LOG_LEVEL: 'info' } });
    try {
      const count = (await (await fetch(`${final.url}/v1/revocations/count`)).json()) as { count: number };
      expect(count.count).toBe(cycles);
      for (const [index, record] of acknowledged.entries()) {
        const again = await idempotent(final.url, record.key, { input: `cycle ${index} x${index}@example.com` });
        expect(again.replayed).toBe('true');
        expect(again.body).toEqual(record.body);
      }
    } finally {
      await final.stop();
    }
  }, 600_000);
});
