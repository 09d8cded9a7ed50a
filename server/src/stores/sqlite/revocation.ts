// SQLite revocation store: digests per partition, durable on return (the transaction is committed
// and the WAL fsynced before add resolves). A lookup is one statement whatever the number of
// digests and partitions: both lists go in as JSON arrays (json_each) and SQLite probes the
// (partition, digest) primary key for each pair, in a single read snapshot (one statement per
// probe would pay the WAL snapshot cost ~40 times per rehydrate).
// With a per-partition quota an add that would take the partition past it is rolled back whole
// (QuotaExceededError): the check reads the partition's maintained count in the same transaction.
// Revocations here never expire, so a partition at its quota stays there until the quota is
// raised (no Retry-After).
import type { SqliteHandle } from './handle.js';
import { QuotaExceededError, type RevocationStore } from '../types.js';

export interface SqliteRevocationOptions {
  /** Digests of one partition (tenant); default: no quota. */
  readonly maxPerOwner?: number;
}

export class SqliteRevocationStore implements RevocationStore {
  private readonly addTransaction;
  private readonly lookupStatement;
  private readonly countStatement;
  private readonly keyCheckTransaction;
  private closed = false;

  constructor(
    private readonly handle: SqliteHandle,
    options: SqliteRevocationOptions = {},
  ) {
    const database = handle.database;
    const quota = options.maxPerOwner;
    const insert = database.prepare<[string, string, number]>(
      'INSERT INTO revocation (partition, digest, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
    );
    const bump = database.prepare<[string, number]>(
      'INSERT INTO revocation_count (partition, count) VALUES (?, ?) ON CONFLICT (partition) DO UPDATE SET count = count + excluded.count',
    );
    // All digests of one call in one transaction: a bulk revoke is applied whole or not at all.
    const countOf = database.prepare<[string], number>('SELECT count FROM revocation_count WHERE partition = ?').pluck();
    this.addTransaction = database.transaction((partition: string, digests: readonly string[], nowMs: number): number => {
      let added = 0;
      for (const digest of digests) added += insert.run(partition, digest, nowMs).changes;
      if (added === 0) return 0;
      // Thrown inside the transaction: the inserts above roll back with it.
      if (quota !== undefined && (countOf.get(partition) ?? 0) + added > quota) throw new QuotaExceededError('revocation');
      bump.run(partition, added);
      return added;
    });
    this.lookupStatement = database
      .prepare<[string, string], string>(
        `SELECT DISTINCT digest FROM revocation
         WHERE partition IN (SELECT value FROM json_each(?)) AND digest IN (SELECT value FROM json_each(?))`,
      )
      .pluck();
    this.countStatement = countOf;
    const recordCheck = database.prepare<[string]>("INSERT INTO meta (name, value) VALUES ('revocation_key_check', ?) ON CONFLICT DO NOTHING");
    const readCheck = database.prepare<[]>("SELECT value FROM meta WHERE name = 'revocation_key_check'").pluck();
    this.keyCheckTransaction = database.transaction((check: string): unknown => {
      recordCheck.run(check);
      return readCheck.get();
    });
    handle.acquire();
  }

  add(partition: string, digests: readonly string[], nowMs: number): Promise<number> {
    if (digests.length === 0) return Promise.resolve(0);
    return this.handle.run('revocation', () => this.addTransaction.immediate(partition, digests, nowMs));
  }

  revoked(partitions: readonly string[], digests: readonly string[]): Promise<Set<string>> {
    if (partitions.length === 0 || digests.length === 0) return Promise.resolve(new Set());
    return this.handle.run('revocation', () => new Set(this.lookupStatement.all(JSON.stringify(partitions), JSON.stringify(digests))));
  }

  count(partition: string): Promise<number> {
    return this.handle.run('revocation', () => {
      const value = this.countStatement.get(partition);
      return typeof value === 'number' ? value : 0;
    });
  }

  keyCheck(check: string): Promise<string> {
    return this.handle.run('revocation', () => {
      const stored = this.keyCheckTransaction.immediate(check);
      if (typeof stored !== 'string') throw new Error('revocation key check not recorded');
      return stored;
    });
  }

  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.handle.release();
    }
    return Promise.resolve();
  }
}
