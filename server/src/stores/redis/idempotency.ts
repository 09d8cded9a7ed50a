// Redis idempotency store: one hash per key, every transition a Lua script (claim with fingerprint
// check and reclaim after the in-progress TTL, complete, release), so 100 replicas racing on one
// key still see exactly one 'claimed'. An OOM reply on a claim (maxmemory reached; noeviction) is
// StoreFullError: 503 STORE_FULL before the mutation runs.
//
// Per-owner quota: each owner (the key's tenant partition, shared.ts idempotencyOwner) has a
// sorted set of its storage keys scored by expiry (keys.ts idempotencyOwner). A claim first
// reserves its key there (IDEMPOTENCY_OWNER_RESERVE: refused with QuotaExceededError when the
// owner's live keys fill the quota), then runs the claim script. The set lives in the owner's
// hash-tag slot, not the key's, so the two steps are separate scripts: the count is exact per
// step, and between replicas racing on one owner the quota can be overshot by at most the claims
// in flight at once.
import { claimRetentionMs, idempotencyOwner, idempotencyStorageKey, parseResponse, serializeResponse } from '../shared.js';
import { QuotaExceededError, type ClaimResult, type IdempotencyKey, type IdempotencyStore, type StoredResponse } from '../types.js';
import type { RedisConnection } from './connection.js';
import { PHYSICAL_TTL_SLACK_MS } from './keys.js';
import { IDEMPOTENCY_CLAIM, IDEMPOTENCY_COMPLETE, IDEMPOTENCY_OWNER_RESERVE, IDEMPOTENCY_RELEASE } from './scripts.js';

export interface RedisIdempotencyOptions {
  /** Live keys of one owner (tenant); default: no quota. */
  readonly maxPerOwner?: number;
}

function toClaimResult(reply: unknown): ClaimResult {
  if (!Array.isArray(reply)) throw new Error('unexpected claim reply');
  const [state, response] = reply as unknown[];
  switch (state) {
    case 'claimed':
    case 'in_progress':
    case 'mismatch':
    case 'result_unavailable':
      return { state };
    case 'completed':
      if (typeof response !== 'string') throw new Error('unexpected claim reply');
      return { state, response: parseResponse(response) };
    default:
      throw new Error('unexpected claim reply');
  }
}

export class RedisIdempotencyStore implements IdempotencyStore {
  private closed = false;

  private readonly quota: number | undefined;

  constructor(
    private readonly connection: RedisConnection,
    options: RedisIdempotencyOptions = {},
  ) {
    this.quota = options.maxPerOwner;
    connection.acquire();
  }

  claim(key: IdempotencyKey, fingerprint: string, nowMs: number, inProgressTtlMs: number, ttlMs: number): Promise<ClaimResult> {
    const retentionMs = claimRetentionMs(inProgressTtlMs, ttlMs);
    const redisKey = this.connection.keys.idempotency(idempotencyStorageKey(key));
    return this.connection.run(
      'idempotency',
      async () => {
        if (this.quota !== undefined) await this.reserve(key, nowMs, nowMs + retentionMs, this.quota);
        return toClaimResult(
          await this.connection.evalScript(IDEMPOTENCY_CLAIM, [redisKey], [
            fingerprint,
            String(nowMs),
            String(inProgressTtlMs),
            String(nowMs + retentionMs),
            String(Math.max(1, retentionMs + PHYSICAL_TTL_SLACK_MS)),
          ]),
        );
      },
      { fullIsStoreFull: true },
    );
  }

  /** Count `key` against its owner's quota until `expiresAtMs`; QuotaExceededError when full. */
  private async reserve(key: IdempotencyKey, nowMs: number, expiresAtMs: number, quota: number): Promise<void> {
    const reply = await this.connection.evalScript(IDEMPOTENCY_OWNER_RESERVE, [this.connection.keys.idempotencyOwner(idempotencyOwner(key))], [
      idempotencyStorageKey(key),
      String(nowMs),
      String(quota),
      String(expiresAtMs),
      String(Math.max(1, expiresAtMs - nowMs + PHYSICAL_TTL_SLACK_MS)),
    ]);
    if (!Array.isArray(reply)) throw new Error('unexpected reserve reply');
    if (reply[0] === 1) return;
    const earliest = Number(reply[1]);
    throw new QuotaExceededError('idempotency', Number.isFinite(earliest) ? earliest : undefined);
  }

  complete(key: IdempotencyKey, fingerprint: string, response: StoredResponse | undefined, nowMs: number, ttlMs: number): Promise<void> {
    const redisKey = this.connection.keys.idempotency(idempotencyStorageKey(key));
    return this.connection.run('idempotency', async () => {
      // A completed record is kept ttlMs from now: its owner counts it that long (never beyond
      // the quota, so a completion whose claim was lost is still recorded).
      if (this.quota !== undefined && ttlMs > 0) await this.reserve(key, nowMs, nowMs + ttlMs, Number.MAX_SAFE_INTEGER);
      await this.connection.evalScript(IDEMPOTENCY_COMPLETE, [redisKey], [
        fingerprint,
        String(nowMs),
        String(nowMs + ttlMs),
        String(Math.max(1, ttlMs + PHYSICAL_TTL_SLACK_MS)),
        response === undefined ? '0' : '1',
        response === undefined ? '' : serializeResponse(response),
      ]);
    });
  }

  release(key: IdempotencyKey, fingerprint: string): Promise<void> {
    const storageKey = idempotencyStorageKey(key);
    const redisKey = this.connection.keys.idempotency(storageKey);
    return this.connection.run('idempotency', async (client) => {
      const released = await this.connection.evalScript(IDEMPOTENCY_RELEASE, [redisKey], [fingerprint]);
      // The key is free again: it no longer counts against its owner.
      if (released === 1 && this.quota !== undefined) await client.zrem(this.connection.keys.idempotencyOwner(idempotencyOwner(key)), storageKey);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.connection.release();
  }
}
