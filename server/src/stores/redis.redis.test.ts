// Runs the conformance suites against the Redis stores on a real Redis (REDIS_URL, else a private
// redis-server; see server/test/support/redis.ts). Each test gets its own key prefix, so tests never see each
// other's keys and nothing is flushed; the peer is a second client (another replica). The broken
// store points at a loopback port nothing listens on. Redis-only checks follow: startup against a
// dead port, a hung server (SIGSTOP) bounded by the command timeout, the script cache being
// flushed (NOSCRIPT fallback), OOM as STORE_FULL, the settings check (a non-durable Redis for
// revocations is refused unless waived), and the key layout.
// Without any Redis the suite fails under CI and is skipped, with the reason, elsewhere.
import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findRedisServer, freePort, redisAvailability, startLocalRedis, startTestRedis, type LocalRedis, type TestRedis } from '../../test/support/redis.js';
import { idempotencyStoreSuite, replayStoreSuite, revocationStoreSuite, sessionStoreSuite, type StoreFactory } from './conformance.suite.js';
import { createStores, NonDurableRedisError } from './index.js';
import {
  connectRedis,
  openRedisStores,
  RedisConnection,
  RedisIdempotencyStore,
  RedisReplayStore,
  RedisRevocationStore,
  RedisSessionStore,
  redisKeys,
} from './redis/index.js';
import { StoreFullError, StoreUnavailableError } from './types.js';

const availability = redisAvailability();
const T0 = 1_700_000_000_000;

if (!availability.available) {
  if ((process.env.CI ?? '') !== '') {
    it('Redis store suite needs a Redis under CI', () => {
      throw new Error(`Redis store suite cannot run: ${availability.reason}`);
    });
  } else {
    describe.skip(`Redis stores (skipped: ${availability.reason})`, () => {
      it('conformance', () => undefined);
    });
  }
} else {
  let redis: TestRedis | undefined;
  let deadUrl = '';
  const prefixes: string[] = [];
  beforeAll(async () => {
    redis = await startTestRedis();
    deadUrl = `redis://127.0.0.1:${await freePort()}`;
  });
  afterAll(async () => {
    // A shared REDIS_URL server keeps nothing of ours: delete every key under the test prefixes.
    if (redis !== undefined && !redis.local && prefixes.length > 0) {
      const connection = await connectRedis(redis.url);
      try {
        for (const prefix of prefixes) {
          const stream = connection.client.scanStream({ match: `${prefix}:*`, count: 500 });
          for await (const keys of stream) if ((keys as string[]).length > 0) await connection.client.del(...(keys as string[]));
        }
      } finally {
        await connection.close();
      }
    }
    await redis?.stop();
  });

  const url = (): string => {
    if (redis === undefined) throw new Error('Redis not started');
    return redis.url;
  };

  function factory<T extends { close(): Promise<void> }>(build: (connection: RedisConnection, quota?: number) => T, noQuotaReason?: string): StoreFactory<T> {
    let prefix = '';
    const open = async (quota?: number): Promise<T> => {
      const connection = RedisConnection.create(url(), { prefix });
      await connection.connect();
      return build(connection, quota);
    };
    const fresh = (quota?: number): Promise<T> => {
      prefix = `veiltest-${randomBytes(6).toString('hex')}`;
      prefixes.push(prefix);
      return open(quota);
    };
    return {
      open: () => fresh(),
      ...(noQuotaReason === undefined ? { openWithQuota: (quota: number) => fresh(quota) } : { noQuotaReason }),
      openPeer: () => open(),
      openBroken: () => Promise.resolve(build(RedisConnection.create(deadUrl, { connectTimeoutMs: 500, commandTimeoutMs: 500 }))),
    };
  }

  const bounded = 'Redis bounds replay records and sessions with maxmemory and their expiry; only revocations and idempotency keys have a per-tenant quota';
  replayStoreSuite('redis', factory((connection) => new RedisReplayStore(connection), bounded));
  revocationStoreSuite('redis', factory((connection, quota) => new RedisRevocationStore(connection, quota === undefined ? {} : { maxPerOwner: quota })));
  sessionStoreSuite('redis', factory((connection) => new RedisSessionStore(connection), bounded));
  idempotencyStoreSuite('redis', factory((connection, quota) => new RedisIdempotencyStore(connection, quota === undefined ? {} : { maxPerOwner: quota })));

  describe('Redis stores: connection, outage and layout', () => {
    it('openRedisStores against a dead port fails fast with StoreUnavailableError', async () => {
      await expect(openRedisStores(deadUrl, { connectTimeoutMs: 500 })).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(createStores({ replay: 'redis', revocation: 'memory', idempotency: 'memory', sessions: 'sealed', redisUrl: deadUrl, redisConnectTimeoutMs: 500 })).rejects.toBeInstanceOf(
        StoreUnavailableError,
      );
    });

    it('re-runs scripts after the script cache is flushed (NOSCRIPT falls back to EVAL)', async () => {
      const stores = await openRedisStores(url(), { prefix: `veiltest-${randomBytes(6).toString('hex')}` });
      prefixes.push(stores.connection.keys.prefix);
      try {
        expect(await stores.replay.advance('s', 1, T0 + 60_000, T0)).toBe(true);
        await stores.connection.client.script('FLUSH');
        expect(await stores.replay.advance('s', 2, T0 + 60_000, T0)).toBe(true);
        expect(await stores.idempotency.claim({ tenant: 't', identity: 'i', key: 'k' }, 'fp', T0, 1000, 60_000)).toEqual({ state: 'claimed' });
      } finally {
        await stores.close();
      }
    });

    it('builds every key from one layout, with caller parts encoded inside one hash tag', () => {
      const keys = redisKeys('veil');
      expect(keys.replayCounter('ab12')).toBe('veil:v1:replay:{ab12}:counter');
      expect(keys.replayDeny('ab12')).toBe('veil:v1:replay:{ab12}:deny');
      expect(keys.revocations('*')).toBe('veil:v1:rev:{*}:digests');
      expect(keys.revocations('t}:x{')).toBe('veil:v1:rev:{t%7D%3Ax%7B}:digests');
      expect(keys.idempotency('tenant\u0000key')).toBe('veil:v1:idem:{tenant%00key}');
      expect(keys.idempotencyOwner('tenant-a')).toBe('veil:v1:idem-owner:{tenant-a}');
      expect(keys.session('ab12')).toBe('veil:v1:session:{ab12}');
      expect(() => redisKeys('bad prefix')).toThrow(RangeError);
    });

    it('createStores shares one client between every Redis store', async () => {
      const prefix = `veiltest-${randomBytes(6).toString('hex')}`;
      prefixes.push(prefix);
      const warnings: string[] = [];
      const stores = await createStores({
        replay: 'redis',
        revocation: 'redis',
        idempotency: 'redis',
        sessions: 'redis',
        redisUrl: url(),
        redisKeyPrefix: prefix,
        onWarning: (message) => warnings.push(message),
      });
      try {
        const all = [stores.replay, stores.revocation, stores.idempotency, stores.sessions];
        const connections = all.map((store) => (store as unknown as { connection: RedisConnection }).connection);
        expect(new Set(connections).size).toBe(1);
        expect(await stores.revocation.add('t', ['d'], T0)).toBe(1);
        await stores.sessions?.put('s', 'payload', T0 + 60_000, T0);
        expect(await stores.sessions?.get('s', T0)).toBe('payload');
      } finally {
        await stores.close();
      }
      // The private test server is durable (AOF, noeviction): nothing to warn about.
      if (redis?.local === true) expect(warnings).toEqual([]);
    });

    describe('on a private redis-server', () => {
      const localReason = 'redis-server is not on PATH (the hung-server and OOM checks need a server this test may pause and reconfigure)';
      const hasLocal = findRedisServer() !== undefined;
      let local: LocalRedis | undefined;
      beforeAll(async () => {
        if (hasLocal) local = await startLocalRedis();
      });
      afterAll(async () => {
        await local?.stop();
      });

      it('refuses a Redis without AOF for revocations unless waived, and only for revocations', async (context) => {
        if (!hasLocal) context.skip(localReason);
        const volatile = await startLocalRedis(['--appendonly', 'no', '--maxmemory-policy', 'allkeys-lru']);
        try {
          const base = { replay: 'redis', idempotency: 'redis', sessions: 'sealed', redisUrl: volatile.url } as const;
          const refused = await createStores({ ...base, revocation: 'redis' }).catch((error: unknown) => error);
          expect(refused).toBeInstanceOf(NonDurableRedisError);
          expect((refused as NonDurableRedisError).problems.join('\n')).toMatch(/maxmemory-policy is allkeys-lru[\s\S]*appendonly is off/);
          expect((refused as Error).message).toContain('storage.allow_non_durable_redis');
          const warnings: string[] = [];
          const waived = await createStores({ ...base, revocation: 'redis', requireDurableRedis: false, onWarning: (message) => warnings.push(message) });
          await waived.close();
          expect(warnings.length).toBe(2);
          const noRevocations = await createStores({ ...base, revocation: 'memory' });
          await noRevocations.close();
        } finally {
          await volatile.stop();
        }
      });
      const itLocal = hasLocal ? it : it.skip;
      const suffix = hasLocal ? '' : ` (skipped: ${localReason})`;

      itLocal(`a hung Redis (SIGSTOP) fails calls within the command timeout${suffix}`, async () => {
        const server = local!;
        const stores = await openRedisStores(server.url, { commandTimeoutMs: 300 });
        try {
          expect(await stores.revocation.add('t', ['d'], T0)).toBe(1);
          server.pause();
          const calls = [
            stores.revocation.revoked(['t'], ['d']),
            stores.replay.advance('s', 1, T0 + 60_000, T0),
            stores.idempotency.claim({ tenant: 't', identity: 'i', key: 'k' }, 'fp', T0, 1000, 60_000),
            stores.sessions.get('s', T0),
          ];
          for (const call of calls) await expect(call).rejects.toBeInstanceOf(StoreUnavailableError);
        } finally {
          server.resume();
          await stores.close();
        }
      });

      itLocal(`a Redis that went away fails calls at once, and the stores recover when it returns${suffix}`, async () => {
        const server = await startLocalRedis();
        const stores = await openRedisStores(server.url, { commandTimeoutMs: 500 });
        try {
          expect(await stores.revocation.count('t')).toBe(0);
          await server.stop();
          await expect(stores.revocation.count('t')).rejects.toBeInstanceOf(StoreUnavailableError);
          await expect(stores.idempotency.claim({ tenant: 't', identity: 'i', key: 'k' }, 'fp', T0, 1000, 60_000)).rejects.toBeInstanceOf(StoreUnavailableError);
        } finally {
          await stores.close();
        }
      });

      itLocal(`an out-of-memory Redis (noeviction) is STORE_FULL for a claim and an outage elsewhere${suffix}`, async () => {
        const server = local!;
        const stores = await openRedisStores(server.url);
        try {
          await stores.connection.client.config('SET', 'maxmemory', '1');
          await expect(stores.idempotency.claim({ tenant: 't', identity: 'i', key: 'k' }, 'fp', T0, 1000, 60_000)).rejects.toBeInstanceOf(StoreFullError);
          await expect(stores.revocation.add('t', ['d'], T0)).rejects.toBeInstanceOf(StoreUnavailableError);
          await expect(stores.replay.advance('s', 1, T0 + 60_000, T0)).rejects.toBeInstanceOf(StoreUnavailableError);
          // The error (and its cause) must not carry the command's arguments into a log line.
          const error: unknown = await stores.revocation.add('tenant-secret', ['digest-secret'], T0).catch((caught: unknown) => caught);
          expect(error).toBeInstanceOf(StoreUnavailableError);
          expect(inspect(error, { depth: 10 })).not.toMatch(/digest-secret|tenant-secret/);
        } finally {
          await stores.connection.client.config('SET', 'maxmemory', '0');
          await stores.close();
        }
      });
    });
  });
}
