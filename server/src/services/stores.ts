// Opens the state stores the configuration asks for (memory, SQLite or Redis per role; one
// SQLite file and one Redis client shared where roles coincide) and bundles them as AppStores,
// with their capacity: global caps of the memory stores and per-tenant quotas (storeLimits).
import type { VeilConfig } from '../config/index.js';
import type { AppStores } from '../stores/types.js';
import { createStores, type StoreLimits } from '../stores/index.js';
import { longestBlobRetentionMs } from './state.js';

/**
 * Default per-tenant quota of idempotency records on SQLite and Redis: records live
 * idempotency.ttl_seconds (a day by default), so this is about 11 idempotent requests a second
 * per tenant, sustained; size it (records x typical response) against the disk or Redis memory.
 */
export const DURABLE_IDEMPOTENCY_QUOTA = 1_000_000;

/** A tenant's default share of a memory store: a tenth of the cap. */
function tenth(cap: number): number {
  return Math.max(1, Math.floor(cap / 10));
}

/**
 * The caps and quotas of every store (docs/config.md `storage`). Memory stores: the configured
 * caps, each tenant a tenth unless configured. SQLite and Redis: idempotency records have a
 * per-tenant quota (DURABLE_IDEMPOTENCY_QUOTA unless configured); revocations only when
 * configured, since a durable revocation never expires and refusing an erasure is a last resort.
 */
export function storeLimits(config: VeilConfig): StoreLimits {
  const caps = config.storage.memory_limits;
  const quotas = config.storage.tenant_quotas;
  const memory = (backend: string): boolean => backend === 'memory';
  return {
    revocation: memory(config.revocation_backend)
      ? { maxEntries: caps.revocations, maxPerOwner: quotas.revocations ?? tenth(caps.revocations) }
      : quotas.revocations === undefined
        ? {}
        : { maxPerOwner: quotas.revocations },
    replay: { maxEntries: caps.replay_records, maxPerOwner: quotas.replay_records ?? tenth(caps.replay_records) },
    idempotency: memory(config.idempotency.backend)
      ? {
          maxEntries: caps.idempotency_records,
          maxPerOwner: quotas.idempotency_records ?? tenth(caps.idempotency_records),
          maxBytes: caps.idempotency_bytes,
          maxBytesPerOwner: quotas.idempotency_bytes ?? tenth(caps.idempotency_bytes),
        }
      : { maxPerOwner: quotas.idempotency_records ?? DURABLE_IDEMPOTENCY_QUOTA },
    sessions: {
      maxEntries: caps.sessions,
      maxPerOwner: quotas.sessions ?? tenth(caps.sessions),
      maxBytes: caps.session_bytes,
      maxBytesPerOwner: quotas.session_bytes ?? tenth(caps.session_bytes),
    },
  };
}

/**
 * The one startup warning of a configuration whose erasures do not outlive the process (memory
 * revocations, the bare `veil serve` default), naming the roles and how to make them durable;
 * undefined when revocation, replay and idempotency state are all durable.
 */
export function durabilityWarning(config: VeilConfig): string | undefined {
  const memory = [
    ['revocation_backend', config.revocation_backend],
    ['replay_backend', config.replay_backend],
    ['idempotency.backend', config.idempotency.backend],
  ]
    .filter(([, backend]) => backend === 'memory')
    .map(([name]) => name);
  if (memory.length === 0) return undefined;
  const lost =
    config.revocation_backend === 'memory'
      ? 'REVOCATIONS ARE NOT DURABLE: erasures live in this process only and are lost when it restarts or crashes (a blob that still opens afterwards restores an erased value in clear)'
      : 'state is not durable';
  return (
    `storage: ${lost}; ${memory.join(', ')} ${memory.length === 1 ? 'is' : 'are'} memory. ` +
    'To keep them, set revocation_backend, replay_backend and idempotency.backend to sqlite with storage.sqlite_path ' +
    '(one node; `make run` keeps them in .veil-data/) or to redis (several replicas): docs/operations.md, "State backends: which to choose"'
  );
}

export async function openAppStores(config: VeilConfig, onWarning: (message: string) => void): Promise<AppStores> {
  return createStores({
    replay: config.replay_backend,
    revocation: config.revocation_backend,
    idempotency: config.idempotency.backend,
    sessions: config.session.backend,
    ...(config.storage.sqlite_path !== undefined ? { sqlitePath: config.storage.sqlite_path } : {}),
    ...(config.session.redis_url !== undefined ? { redisUrl: config.session.redis_url } : {}),
    limits: storeLimits(config),
    // A memory revocation is kept as long as a blob holding its value could be rehydrated.
    revocationRetentionMs: longestBlobRetentionMs(config),
    requireDurableRedis: !config.storage.allow_non_durable_redis,
    onWarning,
  });
}
