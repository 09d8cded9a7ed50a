// Redis idempotency store: one hash per key, every transition a Lua script (claim with fingerprint
// check and reclaim after the in-progress TTL, complete, release), so 100 replicas racing on one
// key still see exactly one 'claimed'. An OOM reply on a claim (maxmemory reached; noeviction) is
// StoreFullError: 503 STORE_FULL before the mutation runs.
import { claimRetentionMs, idempotencyStorageKey, parseResponse, serializeResponse } from '../shared.js';
import type { ClaimResult, IdempotencyKey, IdempotencyStore, StoredResponse } from '../types.js';
import type { RedisConnection } from './connection.js';
import { PHYSICAL_TTL_SLACK_MS } from './keys.js';
import { IDEMPOTENCY_CLAIM, IDEMPOTENCY_COMPLETE, IDEMPOTENCY_RELEASE } from './scripts.js';

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

  constructor(private readonly connection: RedisConnection) {
    connection.acquire();
  }

  claim(key: IdempotencyKey, fingerprint: string, nowMs: number, inProgressTtlMs: number, ttlMs: number): Promise<ClaimResult> {
    const retentionMs = claimRetentionMs(inProgressTtlMs, ttlMs);
    const redisKey = this.connection.keys.idempotency(idempotencyStorageKey(key));
    return this.connection.run(
      'idempotency',
      async () =>
        toClaimResult(
          await this.connection.evalScript(IDEMPOTENCY_CLAIM, [redisKey], [
            fingerprint,
            String(nowMs),
            String(inProgressTtlMs),
            String(nowMs + retentionMs),
            String(Math.max(1, retentionMs + PHYSICAL_TTL_SLACK_MS)),
          ]),
        ),
      { fullIsStoreFull: true },
    );
  }

  complete(key: IdempotencyKey, fingerprint: string, response: StoredResponse | undefined, nowMs: number, ttlMs: number): Promise<void> {
    const redisKey = this.connection.keys.idempotency(idempotencyStorageKey(key));
    return this.connection.run('idempotency', async () => {
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
    const redisKey = this.connection.keys.idempotency(idempotencyStorageKey(key));
    return this.connection.run('idempotency', async () => {
      await this.connection.evalScript(IDEMPOTENCY_RELEASE, [redisKey], [fingerprint]);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.connection.release();
  }
}
