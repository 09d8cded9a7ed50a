// Opens the state stores the configuration asks for (memory, SQLite or Redis per role; one
// SQLite file and one Redis client shared where roles coincide) and bundles them as AppStores.
import type { VeilConfig } from '../config/index.js';
import type { AppStores } from '../deps.js';
import { createStores } from '../stores/index.js';

export async function openAppStores(config: VeilConfig, onWarning: (message: string) => void): Promise<AppStores> {
  return createStores({
    replay: config.replay_backend,
    revocation: config.revocation_backend,
    idempotency: config.idempotency.backend,
    sessions: config.session.backend,
    ...(config.storage.sqlite_path !== undefined ? { sqlitePath: config.storage.sqlite_path } : {}),
    ...(config.session.redis_url !== undefined ? { redisUrl: config.session.redis_url } : {}),
    requireDurableRedis: !config.storage.allow_non_durable_redis,
    onWarning,
  });
}
