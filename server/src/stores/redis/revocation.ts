// Redis revocation store: one set per partition. add is a single SADD (atomic, returns the number
// newly added, so duplicates are never double counted); count is SCARD; a lookup is one pipelined
// SMISMEMBER per partition (Redis >= 6.2). Durable on return only as far as the server's AOF
// setting: `appendfsync always` for no loss on a Redis crash (see connection.ts).
// With a per-partition quota, an add first counts the partition (SCARD) and, when the new digests
// could take it past the quota, which of them are really new (SMISMEMBER); past the quota it is
// refused whole (QuotaExceededError). The check and the SADD are separate round trips, so
// replicas adding to one partition at the same instant can overshoot by what they add at once.
import { QuotaExceededError, type RevocationStore } from '../types.js';
import type { RedisConnection } from './connection.js';

/** SADD arguments per command: keeps one bulk revoke from becoming one huge request. */
const ADD_CHUNK = 1000;

export interface RedisRevocationOptions {
  /** Digests of one partition (tenant); default: no quota. */
  readonly maxPerOwner?: number;
}

export class RedisRevocationStore implements RevocationStore {
  private closed = false;
  private readonly quota: number | undefined;

  constructor(
    private readonly connection: RedisConnection,
    options: RedisRevocationOptions = {},
  ) {
    this.quota = options.maxPerOwner;
    connection.acquire();
  }

  add(partition: string, digests: readonly string[], _nowMs: number): Promise<number> {
    if (digests.length === 0) return Promise.resolve(0);
    const key = this.connection.keys.revocations(partition);
    return this.connection.run('revocation', async (client) => {
      if (this.quota !== undefined) {
        const held = await client.scard(key);
        const unique = [...new Set(digests)];
        if (held + unique.length > this.quota) {
          let fresh = 0;
          for (let start = 0; start < unique.length; start += ADD_CHUNK) {
            const members = await client.smismember(key, ...unique.slice(start, start + ADD_CHUNK));
            fresh += members.filter((member) => member === 0).length;
          }
          if (held + fresh > this.quota) throw new QuotaExceededError('revocation');
        }
      }
      if (digests.length <= ADD_CHUNK) return await client.sadd(key, ...digests);
      // Large bulk revokes go in one MULTI so they are applied whole (each SADD stays small).
      const transaction = client.multi();
      for (let start = 0; start < digests.length; start += ADD_CHUNK) {
        transaction.sadd(key, ...digests.slice(start, start + ADD_CHUNK));
      }
      const replies = await transaction.exec();
      if (replies === null) throw new Error('revocation transaction aborted');
      let added = 0;
      for (const [error, reply] of replies) {
        if (error !== null) throw error;
        added += Number(reply);
      }
      return added;
    });
  }

  revoked(partitions: readonly string[], digests: readonly string[]): Promise<Set<string>> {
    if (partitions.length === 0 || digests.length === 0) return Promise.resolve(new Set());
    return this.connection.run('revocation', async (client) => {
      const pipeline = client.pipeline();
      for (const partition of partitions) pipeline.smismember(this.connection.keys.revocations(partition), ...digests);
      const replies = await pipeline.exec();
      if (replies === null) throw new Error('revocation lookup aborted');
      const found = new Set<string>();
      for (const [error, reply] of replies) {
        if (error !== null) throw error;
        if (!Array.isArray(reply)) throw new Error('unexpected SMISMEMBER reply');
        reply.forEach((member: unknown, index) => {
          const digest = digests[index];
          if (member === 1 && digest !== undefined) found.add(digest);
        });
      }
      return found;
    });
  }

  count(partition: string): Promise<number> {
    const key = this.connection.keys.revocations(partition);
    return this.connection.run('revocation', (client) => client.scard(key));
  }

  keyCheck(check: string): Promise<string> {
    const key = this.connection.keys.revocationKeyCheck();
    return this.connection.run('revocation', async (client) => {
      // SET NX GET (Redis >= 7) would be one round trip; SET NX then GET works on 6.2 too and is
      // just as safe: whoever wrote first, every caller reads the same value.
      await client.set(key, check, 'NX');
      const stored = await client.get(key);
      if (stored === null) throw new Error('revocation key check vanished');
      return stored;
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.connection.release();
  }
}
