// Store wiring: builds the replay, revocation, idempotency and (server-side) session stores from
// the configured backends, opening at most one SQLite file and one Redis client however many
// stores use them, and closing them together. Which backend to choose:
//   memory  per process, lost on restart: tests, development, one throwaway replica;
//   sqlite  durable single node (WAL + synchronous=FULL: acknowledged writes survive SIGKILL and
//           power loss); processes on one host may share the file, hosts may not;
//   redis   shared by every replica; durability is the Redis server's (AOF, noeviction).
// Capacity: every memory store has a global cap and a per-tenant quota below it (StoreLimits);
// the SQLite and Redis revocation and idempotency stores take the per-tenant quota too.
import { MemoryIdempotencyStore, MemoryReplayStore, MemoryRevocationStore, MemorySessionStore, type MemoryLimits } from './memory/index.js';
// The Redis stores (and ioredis) load only when a role uses Redis: most processes never need them.
import type { RedisConnection } from './redis/index.js';
import { SqliteHandle, SqliteIdempotencyStore, SqliteReplayStore, SqliteRevocationStore } from './sqlite/index.js';
import type { IdempotencyStore, ReplayStore, RevocationStore, SessionStore } from './types.js';

export * from './types.js';

export type DurableBackend = 'memory' | 'sqlite' | 'redis';
export type SessionBackend = 'sealed' | 'memory' | 'redis';

/**
 * Bounds per store (memory/limits.ts): `maxEntries` and the byte caps bind the memory stores;
 * `maxPerOwner` (the per-tenant quota) binds the memory stores and, for revocations and
 * idempotency records, the SQLite and Redis ones too.
 */
export interface StoreLimits {
  readonly revocation?: Pick<MemoryLimits, 'maxEntries' | 'maxPerOwner'>;
  readonly replay?: Pick<MemoryLimits, 'maxEntries' | 'maxPerOwner'>;
  readonly idempotency?: MemoryLimits;
  readonly sessions?: MemoryLimits;
}

export interface StoreOptions {
  readonly replay: DurableBackend;
  readonly revocation: DurableBackend;
  readonly idempotency: DurableBackend;
  readonly sessions: SessionBackend;
  /** Required when any store is `sqlite` (storage.sqlite_path). */
  readonly sqlitePath?: string;
  /** Required when any store is `redis` (session.redis_url). */
  readonly redisUrl?: string;
  /** Caps and per-tenant quotas (defaults: the stores' own; no quota). */
  readonly limits?: StoreLimits;
  /**
   * How long the memory revocation store keeps a digest after it was last needed (the longest
   * blob lifetime plus the clock-skew allowance); default: forever. Durable stores never forget.
   */
  readonly revocationRetentionMs?: number;
  /** Redis key prefix (default "veil"); lets several deployments share one Redis. */
  readonly redisKeyPrefix?: string;
  /** SQLite busy timeout (default 2000 ms). */
  readonly sqliteBusyTimeoutMs?: number;
  /** Redis connect / command timeouts (defaults 2000 / 1000 ms). */
  readonly redisConnectTimeoutMs?: number;
  readonly redisCommandTimeoutMs?: number;
  /** Startup warnings (Redis eviction policy or AOF off). */
  readonly onWarning?: (message: string) => void;
}

export interface Stores {
  readonly replay: ReplayStore;
  readonly revocation: RevocationStore;
  readonly idempotency: IdempotencyStore;
  /** Absent for `sealed` sessions (the state travels in the blob). */
  readonly sessions?: SessionStore;
  /**
   * Can the shared backends be reached right now? Redis must answer PING within `timeoutMs`;
   * SQLite must answer a trivial query; memory always can. Never throws.
   */
  ping(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/** Open the configured stores; throws StoreUnavailableError when a backend cannot be reached. */
export async function createStores(options: StoreOptions): Promise<Stores> {
  const durable = [options.replay, options.revocation, options.idempotency];
  const needsSqlite = durable.includes('sqlite');
  const needsRedis = durable.includes('redis') || options.sessions === 'redis';
  if (needsSqlite && options.sqlitePath === undefined) throw new Error('storage.sqlite_path is required for the sqlite backend');
  if (needsRedis && options.redisUrl === undefined) throw new Error('session.redis_url is required for the redis backend');

  const sqlite =
    needsSqlite && options.sqlitePath !== undefined
      ? SqliteHandle.open(options.sqlitePath, options.sqliteBusyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.sqliteBusyTimeoutMs })
      : undefined;
  let redis: RedisConnection | undefined;
  let redisStores: typeof import('./redis/index.js') | undefined;
  try {
    if (needsRedis && options.redisUrl !== undefined) {
      redisStores = await import('./redis/index.js');
      redis = await redisStores.connectRedis(options.redisUrl, {
        ...(options.redisKeyPrefix === undefined ? {} : { prefix: options.redisKeyPrefix }),
        ...(options.redisConnectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.redisConnectTimeoutMs }),
        ...(options.redisCommandTimeoutMs === undefined ? {} : { commandTimeoutMs: options.redisCommandTimeoutMs }),
        ...(options.onWarning === undefined ? {} : { onWarning: options.onWarning }),
      });
    }
  } catch (error) {
    sqlite?.close();
    throw error;
  }

  type RedisStores = typeof import('./redis/index.js');
  const pick = <T>(
    backend: DurableBackend,
    memory: () => T,
    onSqlite: (handle: SqliteHandle) => T,
    onRedis: (connection: RedisConnection, stores: RedisStores) => T,
  ): T => {
    if (backend === 'sqlite' && sqlite !== undefined) return onSqlite(sqlite);
    if (backend === 'redis' && redis !== undefined && redisStores !== undefined) return onRedis(redis, redisStores);
    return memory();
  };
  const limits = options.limits ?? {};
  const quota = (bound: { readonly maxPerOwner?: number } | undefined): { maxPerOwner?: number } =>
    bound?.maxPerOwner === undefined ? {} : { maxPerOwner: bound.maxPerOwner };
  const replay = pick<ReplayStore>(options.replay, () => new MemoryReplayStore(limits.replay), (h) => new SqliteReplayStore(h), (c, r) => new r.RedisReplayStore(c));
  const revocation = pick<RevocationStore>(
    options.revocation,
    () =>
      new MemoryRevocationStore({
        ...limits.revocation,
        ...(options.revocationRetentionMs === undefined ? {} : { retentionMs: options.revocationRetentionMs }),
      }),
    (h) => new SqliteRevocationStore(h, quota(limits.revocation)),
    (c, r) => new r.RedisRevocationStore(c, quota(limits.revocation)),
  );
  const idempotency = pick<IdempotencyStore>(
    options.idempotency,
    () => new MemoryIdempotencyStore(limits.idempotency),
    (h) => new SqliteIdempotencyStore(h, quota(limits.idempotency)),
    (c, r) => new r.RedisIdempotencyStore(c, quota(limits.idempotency)),
  );
  let sessions: SessionStore | undefined;
  if (options.sessions === 'memory') sessions = new MemorySessionStore(limits.sessions);
  else if (options.sessions === 'redis' && redis !== undefined && redisStores !== undefined) sessions = new redisStores.RedisSessionStore(redis);

  const ping = async (timeoutMs: number): Promise<boolean> => {
    if (sqlite !== undefined && !sqlite.ping()) return false;
    return redis === undefined ? true : await redis.ping(timeoutMs);
  };

  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    // Each store drops its reference; the shared SQLite file and Redis client close with the last.
    await Promise.all([replay.close(), revocation.close(), idempotency.close(), sessions?.close()]);
  };
  return sessions === undefined ? { replay, revocation, idempotency, ping, close } : { replay, revocation, idempotency, sessions, ping, close };
}
