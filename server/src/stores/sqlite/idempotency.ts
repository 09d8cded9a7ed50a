// SQLite idempotency store: claims and completed responses survive a restart of the node. Each
// claim/complete is one IMMEDIATE transaction (read the record, decide with the shared rule,
// write), so concurrent requests, in this process or another sharing the file, see exactly one
// winner. A full disk (SQLITE_FULL) on a claim is StoreFullError, i.e. 503 STORE_FULL before the
// mutation runs. With a per-owner quota, a claim that adds a row for its owner reads the owner's
// row count (idempotency_owner_count, kept by triggers); at the quota it first deletes a batch of
// that owner's expired rows, and refuses with QuotaExceededError when live rows still fill it,
// all inside the claim's transaction, so the bound holds between processes too.
import { claimRetentionMs, decideClaim, parseResponse, serializeResponse, type IdempotencyRecord } from '../shared.js';
import { NO_OWNER, QuotaExceededError, type ClaimResult, type IdempotencyStore, type StoredResponse } from '../types.js';
import { SWEEP_BATCH, type SqliteHandle } from './handle.js';

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
  private readonly claimTransaction;
  private readonly completeTransaction;
  private readonly releaseStatement;
  private closed = false;

  constructor(
    private readonly handle: SqliteHandle,
    options: SqliteIdempotencyOptions = {},
  ) {
    const database = handle.database;
    const quota = options.maxPerOwner;
    const select = database.prepare<[string], Row>(
      'SELECT fingerprint, done, claimed_at, expires_at, response, owner FROM idempotency WHERE key = ?',
    );
    const upsert = database.prepare<[string, string, number, number, number, string | null, string]>(`
      INSERT INTO idempotency (key, fingerprint, done, claimed_at, expires_at, response, owner) VALUES (?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (key) DO UPDATE SET fingerprint = excluded.fingerprint, done = excluded.done,
        claimed_at = excluded.claimed_at, expires_at = excluded.expires_at, response = excluded.response, owner = excluded.owner`);
    const remove = database.prepare<[string]>('DELETE FROM idempotency WHERE key = ?');
    const ownerCount = database.prepare<[string], number>('SELECT count FROM idempotency_owner_count WHERE owner = ?').pluck();
    const purgeOwner = database.prepare<[string, number, number]>(
      'DELETE FROM idempotency WHERE key IN (SELECT key FROM idempotency WHERE owner = ? AND expires_at <= ? LIMIT ?)',
    );
    /** Room for one more row of `owner`, deleting its expired rows when at the quota. */
    const hasRoom = (owner: string, nowMs: number, limit: number): boolean => {
      const held = ownerCount.get(owner) ?? 0;
      if (held < limit) return true;
      purgeOwner.run(owner, nowMs, Math.min(SWEEP_BATCH, held - limit + 64));
      return (ownerCount.get(owner) ?? 0) < limit;
    };
    const ownerEarliest = database.prepare<[string, number], number | null>('SELECT min(expires_at) FROM idempotency WHERE owner = ? AND expires_at > ?').pluck();

    this.claimTransaction = database.transaction(
      (key: string, fingerprint: string, nowMs: number, inProgressTtlMs: number, ttlMs: number, owner: string): ClaimResult => {
        const current = select.get(key);
        const decision = decideClaim(toRecord(current), fingerprint, nowMs, inProgressTtlMs);
        if (decision !== 'take') return decision;
        // Overwriting the owner's own row (a reclaim, or its expired record) adds no row.
        const newRow = current?.owner !== owner;
        if (quota !== undefined && newRow && !hasRoom(owner, nowMs, quota)) {
          throw new QuotaExceededError('idempotency', ownerEarliest.get(owner, nowMs) ?? undefined);
        }
        upsert.run(key, fingerprint, 0, nowMs, nowMs + claimRetentionMs(inProgressTtlMs, ttlMs), null, owner);
        return { state: 'claimed' };
      },
    );
    this.completeTransaction = database.transaction(
      (key: string, fingerprint: string, response: string | null, nowMs: number, ttlMs: number, owner: string): void => {
        const current = select.get(key);
        const live = current !== undefined && current.expires_at > nowMs ? current : undefined;
        // A live record under another fingerprint belongs to someone else: leave it.
        if (live !== undefined && live.fingerprint !== fingerprint) return;
        // The record stays with whoever claimed it.
        if (ttlMs <= 0) remove.run(key);
        else upsert.run(key, fingerprint, 1, nowMs, nowMs + ttlMs, response, live?.owner ?? owner);
      },
    );
    // Only an in-progress claim with the same fingerprint is dropped: a late release must not
    // erase a completed response or someone else's claim.
    this.releaseStatement = database.prepare<[string, string]>('DELETE FROM idempotency WHERE key = ? AND fingerprint = ? AND done = 0');
    const sweep = database.prepare<[number, number]>(
      'DELETE FROM idempotency WHERE key IN (SELECT key FROM idempotency WHERE expires_at <= ? LIMIT ?)',
    );
    handle.addSweeper((nowMs) => sweep.run(nowMs, SWEEP_BATCH));
    handle.acquire();
  }

  claim(key: string, fingerprint: string, nowMs: number, inProgressTtlMs: number, ttlMs: number, owner: string = NO_OWNER): Promise<ClaimResult> {
    return this.handle.run(
      'idempotency',
      () => this.claimTransaction.immediate(key, fingerprint, nowMs, inProgressTtlMs, ttlMs, owner),
      { write: nowMs, fullIsStoreFull: true },
    );
  }

  complete(key: string, fingerprint: string, response: StoredResponse | undefined, nowMs: number, ttlMs: number, owner: string = NO_OWNER): Promise<void> {
    const serialized = response === undefined ? null : serializeResponse(response);
    return this.handle.run(
      'idempotency',
      () => this.completeTransaction.immediate(key, fingerprint, serialized, nowMs, ttlMs, owner),
      { write: nowMs },
    );
  }

  release(key: string, fingerprint: string, _owner?: string): Promise<void> {
    return this.handle.run('idempotency', () => {
      this.releaseStatement.run(key, fingerprint);
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
