// SQLite revocation store: digests per partition, durable on return (the transaction is committed
// and the WAL fsynced before add resolves). A lookup is one statement whatever the number of
// digests and partitions: both lists go in as JSON arrays (json_each) and SQLite probes the
// (partition, digest) primary key for each pair, in a single read snapshot (one statement per
// probe would pay the WAL snapshot cost ~40 times per rehydrate).
// With a per-partition quota an add that would take the partition past it is rolled back whole
// (QuotaExceededError): the check reads the partition's maintained count in the same transaction.
// Revocations here never expire, so a partition at its quota stays there until the quota is
// raised (no Retry-After).
import { immediateTransaction, type SqliteHandle } from './handle.js';
import { QuotaExceededError, type RevocationStore } from '../types.js';

export interface SqliteRevocationOptions {
  /** Digests of one partition (tenant); default: no quota. */
  readonly maxPerOwner?: number;
}

export class SqliteRevocationStore implements RevocationStore {
  private readonly addTransaction: (partition: string, digests: readonly string[], nowMs: number) => number;
  private readonly lookupStatement;
  private readonly countStatement;
  private readonly keyCheckTransaction: (check: string) => unknown;
  private closed = false;

  constructor(
    private readonly handle: SqliteHandle,
    options: SqliteRevocationOptions = {},
  ) {
    const database = handle.database;
    const quota = options.maxPerOwner;
    const insert = database.prepare(
      'INSERT INTO revocation (partition, digest, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
    );
    const bump = database.prepare(
      'INSERT INTO revocation_count (partition, count) VALUES (?, ?) ON CONFLICT (partition) DO UPDATE SET count = count + excluded.count',
    );
    this.countStatement = database.prepare('SELECT count FROM revocation_count WHERE partition = ?');
    // All digests of one call in one transaction: a bulk revoke is applied whole or not at all.
    this.addTransaction = (partition, digests, nowMs) =>
      immediateTransaction(database, () => {
        let added = 0;
        for (const digest of digests) added += Number(insert.run(partition, digest, nowMs).changes);
        if (added === 0) return 0;
        // Thrown inside the transaction: the inserts above roll back with it.
        if (quota !== undefined && this.countOf(partition) + added > quota) throw new QuotaExceededError('revocation');
        bump.run(partition, added);
        return added;
      });
    this.lookupStatement = database.prepare(
      `SELECT DISTINCT digest FROM revocation
       WHERE partition IN (SELECT value FROM json_each(?)) AND digest IN (SELECT value FROM json_each(?))`,
    );
    const recordCheck = database.prepare("INSERT INTO meta (name, value) VALUES ('revocation_key_check', ?) ON CONFLICT DO NOTHING");
    const readCheck = database.prepare("SELECT value FROM meta WHERE name = 'revocation_key_check'");
    this.keyCheckTransaction = (check: string): unknown =>
      immediateTransaction(database, () => {
        recordCheck.run(check);
        return readCheck.get()?.value;
      });
    handle.acquire();
  }

  add(partition: string, digests: readonly string[], nowMs: number): Promise<number> {
    if (digests.length === 0) return Promise.resolve(0);
    return this.handle.run('revocation', () => this.addTransaction(partition, digests, nowMs));
  }

  revoked(partitions: readonly string[], digests: readonly string[]): Promise<Set<string>> {
    if (partitions.length === 0 || digests.length === 0) return Promise.resolve(new Set());
    return this.handle.run(
      'revocation',
      () => new Set(this.lookupStatement.all(JSON.stringify(partitions), JSON.stringify(digests)).map((row) => String(row.digest))),
    );
  }

  count(partition: string): Promise<number> {
    return this.handle.run('revocation', () => this.countOf(partition));
  }

  private countOf(partition: string): number {
    const value = this.countStatement.get(partition)?.count;
    return typeof value === 'number' ? value : 0;
  }

  keyCheck(check: string): Promise<string> {
    return this.handle.run('revocation', () => {
      const stored = this.keyCheckTransaction(check);
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
