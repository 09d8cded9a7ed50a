// SQLite idempotency store: claims and completed responses survive a restart of the node. Each
// claim/complete is one IMMEDIATE transaction (read the record, decide with the shared rule,
// write), so concurrent requests, in this process or another sharing the file, see exactly one
// winner. A full disk (SQLITE_FULL) on a claim is StoreFullError, i.e. 503 STORE_FULL before the
// mutation runs. With a per-owner quota (the owner is the key's tenant, shared.ts
// idempotencyOwner), a claim that adds a row for its owner reads the owner's row count
// (idempotency_owner_count, kept by triggers); at the quota it first deletes a batch of that
// owner's expired rows, and refuses with QuotaExceededError when live rows still fill it, all
// inside the claim's transaction, so the bound holds between processes too.
import { claimRetentionMs, decideClaim, idempotencyOwner, idempotencyStorageKey, parseResponse, serializeResponse, type IdempotencyRecord } from '../shared.js';
import { QuotaExceededError, type ClaimResult, type IdempotencyKey, type IdempotencyStore, type StoredResponse } from '../types.js';
import { immediateTransaction, SWEEP_BATCH, type SqliteHandle } from './handle.js';

export interface SqliteIdempotencyOptions {
  /** Live records of one owner (tenant); default: no quota. */
  readonly maxPerOwner?: number;
}

interface Row {
  readonly fingerprint: string;
  readonly done: number;
  readonly claimed_at: number;
  readonly expires_at: number;
  readonly response: string | null;
  readonly owner: string;
}

function toRecord(row: Row | undefined): IdempotencyRecord | undefined {
  if (row === undefined) return undefined;
  return {
    fingerprint: row.fingerprint,
    done: row.done !== 0,
    claimedAtMs: row.claimed_at,
    expiresAtMs: row.expires_at,
    response: row.response === null ? undefined : parseResponse(row.response),
  };
}

export class SqliteIdempotencyStore implements IdempotencyStore {
  private readonly claimTransaction: (key: string, owner: string, fingerprint: string, nowMs: number, inProgressTtlMs: number, ttlMs: number) => ClaimResult;
  private readonly completeTransaction: (key: string, owner: string, fingerprint: string, response: string | null, nowMs: number, ttlMs: number) => void;
  private readonly releaseStatement;
  private closed = false;

  constructor(
    private readonly handle: SqliteHandle,
    options: SqliteIdempotencyOptions = {},
  ) {
    const database = handle.database;
    const quota = options.maxPerOwner;
    const selectStatement = database.prepare('SELECT fingerprint, done, claimed_at, expires_at, response, owner FROM idempotency WHERE key = ?');
    const select = (key: string): Row | undefined => selectStatement.get(key) as Row | undefined;
    const upsert = database.prepare(`
      INSERT INTO idempotency (key, fingerprint, done, claimed_at, expires_at, response, owner) VALUES (?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (key) DO UPDATE SET fingerprint = excluded.fingerprint, done = excluded.done,
        claimed_at = excluded.claimed_at, expires_at = excluded.expires_at, response = excluded.response, owner = excluded.owner`);
    const remove = database.prepare('DELETE FROM idempotency WHERE key = ?');
    const ownerCountStatement = database.prepare('SELECT count FROM idempotency_owner_count WHERE owner = ?');
    const ownerCount = (owner: string): number => {
      const value = ownerCountStatement.get(owner)?.count;
      return typeof value === 'number' ? value : 0;
    };
    const purgeOwner = database.prepare(
      'DELETE FROM idempotency WHERE key IN (SELECT key FROM idempotency WHERE owner = ? AND expires_at <= ? LIMIT ?)',
    );
    /** Room for one more row of `owner`, deleting its expired rows when at the quota. */
    const hasRoom = (owner: string, nowMs: number, limit: number): boolean => {
      const held = ownerCount(owner);
      if (held < limit) return true;
      purgeOwner.run(owner, nowMs, Math.min(SWEEP_BATCH, held - limit + 64));
      return ownerCount(owner) < limit;
    };
    const ownerEarliestStatement = database.prepare('SELECT min(expires_at) AS earliest FROM idempotency WHERE owner = ? AND expires_at > ?');
    const ownerEarliest = (owner: string, nowMs: number): number | undefined => {
      const value = ownerEarliestStatement.get(owner, nowMs)?.earliest;
      return typeof value === 'number' ? value : undefined;
    };

    this.claimTransaction = (key, owner, fingerprint, nowMs, inProgressTtlMs, ttlMs) =>
      immediateTransaction(database, (): ClaimResult => {
        const current = select(key);
        const decision = decideClaim(toRecord(current), fingerprint, nowMs, inProgressTtlMs);
        if (decision !== 'take') return decision;
        // Overwriting the owner's own row (a reclaim, or its expired record) adds no row.
        const newRow = current?.owner !== owner;
        // Thrown inside the transaction: nothing of the claim is written.
        if (quota !== undefined && newRow && !hasRoom(owner, nowMs, quota)) throw new QuotaExceededError('idempotency', ownerEarliest(owner, nowMs));
        upsert.run(key, fingerprint, 0, nowMs, nowMs + claimRetentionMs(inProgressTtlMs, ttlMs), null, owner);
        return { state: 'claimed' };
      });
    this.completeTransaction = (key, owner, fingerprint, response, nowMs, ttlMs) =>
      immediateTransaction(database, () => {
        const current = select(key);
        const live = current !== undefined && current.expires_at > nowMs ? current : undefined;
        // A live record under another fingerprint belongs to someone else: leave it.
        if (live !== undefined && live.fingerprint !== fingerprint) return;
        if (ttlMs <= 0) remove.run(key);
        // The record stays with whoever claimed it.
        else upsert.run(key, fingerprint, 1, nowMs, nowMs + ttlMs, response, live?.owner ?? owner);
      });
    // Only an in-progress claim with the same fingerprint is dropped: a late release must not
    // erase a completed response or someone else's claim.
    this.releaseStatement = database.prepare('DELETE FROM idempotency WHERE key = ? AND fingerprint = ? AND done = 0');
    const sweep = database.prepare(
      'DELETE FROM idempotency WHERE key IN (SELECT key FROM idempotency WHERE expires_at <= ? LIMIT ?)',
    );
    handle.addSweeper((nowMs) => sweep.run(nowMs, SWEEP_BATCH));
    handle.acquire();
  }

  claim(key: IdempotencyKey, fingerprint: string, nowMs: number, inProgressTtlMs: number, ttlMs: number): Promise<ClaimResult> {
    return this.handle.run(
      'idempotency',
      () => this.claimTransaction(idempotencyStorageKey(key), idempotencyOwner(key), fingerprint, nowMs, inProgressTtlMs, ttlMs),
      { write: nowMs, fullIsStoreFull: true },
    );
  }

  complete(key: IdempotencyKey, fingerprint: string, response: StoredResponse | undefined, nowMs: number, ttlMs: number): Promise<void> {
    const serialized = response === undefined ? null : serializeResponse(response);
    return this.handle.run(
      'idempotency',
      () => this.completeTransaction(idempotencyStorageKey(key), idempotencyOwner(key), fingerprint, serialized, nowMs, ttlMs),
      { write: nowMs },
    );
  }

  release(key: IdempotencyKey, fingerprint: string): Promise<void> {
    return this.handle.run('idempotency', () => {
      this.releaseStatement.run(idempotencyStorageKey(key), fingerprint);
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
