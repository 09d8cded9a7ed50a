// The Redis stores (backend `redis`): shared by every replica through one ioredis client per
// process. openRedisStores connects (failing fast with StoreUnavailableError when Redis does not
// answer) and reports server settings that weaken durability through `onWarning`.
import { RedisConnection, type RedisConnectionOptions } from './connection.js';
import { RedisIdempotencyStore } from './idempotency.js';
import { RedisReplayStore } from './replay.js';
import { RedisRevocationStore } from './revocation.js';
import { RedisSessionStore } from './sessions.js';

export { RedisConnection, type RedisConnectionOptions } from './connection.js';
export { redisKeys, LAYOUT_VERSION, PHYSICAL_TTL_SLACK_MS, type RedisKeys } from './keys.js';
export { RedisIdempotencyStore, type RedisIdempotencyOptions } from './idempotency.js';
export { RedisReplayStore } from './replay.js';
export { RedisRevocationStore, type RedisRevocationOptions } from './revocation.js';
export { RedisSessionStore } from './sessions.js';

export interface RedisStores {
  readonly replay: RedisReplayStore;
  readonly revocation: RedisRevocationStore;
  readonly idempotency: RedisIdempotencyStore;
  readonly sessions: RedisSessionStore;
  readonly connection: RedisConnection;
  /** Close all four stores and the client. */
  close(): Promise<void>;
}

export interface OpenRedisOptions extends RedisConnectionOptions {
  /** Receives warnings about server settings (eviction policy, AOF); default: ignored. */
  readonly onWarning?: (message: string) => void;
}

/** Connect to `url` and open every Redis store on one client. */
export async function openRedisStores(url: string, options: OpenRedisOptions = {}): Promise<RedisStores> {
  const connection = await connectRedis(url, options);
  const replay = new RedisReplayStore(connection);
  const revocation = new RedisRevocationStore(connection);
  const idempotency = new RedisIdempotencyStore(connection);
  const sessions = new RedisSessionStore(connection);
  return {
    replay,
    revocation,
    idempotency,
    sessions,
    connection,
    close: async () => {
      await Promise.all([replay.close(), revocation.close(), idempotency.close(), sessions.close()]);
      await connection.close();
    },
  };
}

/** A connected client (StoreUnavailableError when Redis does not answer in time), settings checked. */
export async function connectRedis(url: string, options: OpenRedisOptions = {}): Promise<RedisConnection> {
  const connection = RedisConnection.create(url, options);
  try {
    await connection.connect();
  } catch (error) {
    await connection.close();
    throw error;
  }
  if (options.onWarning !== undefined) {
    for (const warning of await connection.checkServerSettings()) options.onWarning(warning);
  }
  return connection;
}
