// The capacity each store is opened with (storeLimits) and the startup warning of non-durable
// state (durabilityWarning), from configurations loaded as the server loads them.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/index.js';
import { DURABLE_IDEMPOTENCY_QUOTA, durabilityWarning, storeLimits } from './stores.js';

const SECRET = '4e'.repeat(32);
const load = (overrides: Record<string, unknown> = {}) => loadConfig({ env: { VEIL_SESSION_SECRET: SECRET, VEIL_DIGEST_SECRET: SECRET }, overrides }).config;

describe('storeLimits', () => {
  it('gives each tenant a tenth of every memory cap by default', () => {
    expect(storeLimits(load())).toEqual({
      revocation: { maxEntries: 500_000, maxPerOwner: 50_000 },
      replay: { maxEntries: 500_000, maxPerOwner: 50_000 },
      idempotency: { maxEntries: 100_000, maxPerOwner: 10_000, maxBytes: 134_217_728, maxBytesPerOwner: 13_421_772 },
      sessions: { maxEntries: 100_000, maxPerOwner: 10_000, maxBytes: 134_217_728, maxBytesPerOwner: 13_421_772 },
    });
  });

  it('takes configured caps and quotas', () => {
    const limits = storeLimits(load({ storage: { memory_limits: { revocations: 40 }, tenant_quotas: { revocations: 3, sessions: 7 } } }));
    expect(limits.revocation).toEqual({ maxEntries: 40, maxPerOwner: 3 });
    expect(limits.sessions?.maxPerOwner).toBe(7);
  });

  it('on durable stores: idempotency records always have a tenant quota, revocations only when configured', () => {
    const durable = { revocation_backend: 'sqlite', idempotency: { backend: 'sqlite' }, storage: { sqlite_path: '/tmp/unused.db' } };
    expect(storeLimits(load(durable)).revocation).toEqual({});
    expect(storeLimits(load(durable)).idempotency).toEqual({ maxPerOwner: DURABLE_IDEMPOTENCY_QUOTA });
    const configured = storeLimits(load({ ...durable, storage: { sqlite_path: '/tmp/unused.db', tenant_quotas: { revocations: 9, idempotency_records: 8 } } }));
    expect(configured.revocation).toEqual({ maxPerOwner: 9 });
    expect(configured.idempotency).toEqual({ maxPerOwner: 8 });
  });
});

describe('durabilityWarning', () => {
  it('says loudly that memory revocations are lost on restart, and how to keep them', () => {
    const warning = durabilityWarning(load());
    expect(warning).toMatch(/REVOCATIONS ARE NOT DURABLE/);
    expect(warning).toMatch(/revocation_backend, replay_backend, idempotency\.backend are memory/);
    expect(warning).toMatch(/sqlite with storage\.sqlite_path/);
  });

  it('names only the roles still in memory, and is silent when all are durable', () => {
    const partly = durabilityWarning(load({ revocation_backend: 'sqlite', storage: { sqlite_path: '/tmp/unused.db' } }));
    expect(partly).toMatch(/^storage: state is not durable; replay_backend, idempotency\.backend are memory/);
    const durable = { revocation_backend: 'sqlite', replay_backend: 'sqlite', idempotency: { backend: 'sqlite' }, storage: { sqlite_path: '/tmp/unused.db' } };
    expect(durabilityWarning(load(durable))).toBeUndefined();
  });
});
