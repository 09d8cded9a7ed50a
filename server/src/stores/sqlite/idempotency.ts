// SQLite idempotency store: claims and completed responses survive a restart of the node. Each
// claim/complete is one IMMEDIATE transaction (read the record, decide with the shared rule,
// write), so concurrent requests, in this process or another sharing the file, see exactly one
// winner. A full disk (SQLITE_FULL) on a claim is StoreFullError, i.e. 503 STORE_FULL before the
// mutation runs.
import { claimRetentionMs, decideClaim, idempotencyStorageKey, parseResponse, serializeResponse, type IdempotencyRecord } from '../shared.js';
import type { ClaimResult, IdempotencyKey, IdempotencyStore, StoredResponse } from '../types.js';
import { immediateTransaction, SWEEP_BATCH, type SqliteHandle } from './handle.js';

interface Row {
  readonly fingerprint: string;
  readonly done: number;
  readonly claimed_at: number;
  readonly expires_at: number;
  readonly response: string | null;
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
  private readonly claimTransaction: (key: string, fingerprint: string, nowMs: number, inProgressTtlMs: number, ttlMs: number) => ClaimResult;
  private readonly completeTransaction: (key: string, fingerprint: string, response: string | null, nowMs: number, ttlMs: number) => void;
  private readonly releaseStatement;
  private closed = false;

  constructor(private readonly handle: SqliteHandle) {
    const database = handle.database;
    const selectStatement = database.prepare('SELECT fingerprint, done, claimed_at, expires_at, response FROM idempotency WHERE key = ?');
    const select = (key: string): Row | undefined => selectStatement.get(key) as Row | undefined;
    const upsert = database.prepare(`
      INSERT INTO idempotency (key, fingerprint, done, claimed_at, expires_at, response) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (key) DO UPDATE SET fingerprint = excluded.fingerprint, done = excluded.done,
        claimed_at = excluded.claimed_at, expires_at = excluded.expires_at, response = excluded.response`);
    const remove = database.prepare('DELETE FROM idempotency WHERE key = ?');

    this.claimTransaction = (key, fingerprint, nowMs, inProgressTtlMs, ttlMs) =>
      immediateTransaction(database, (): ClaimResult => {
        const decision = decideClaim(toRecord(select(key)), fingerprint, nowMs, inProgressTtlMs);
        if (decision !== 'take') return decision;
        upsert.run(key, fingerprint, 0, nowMs, nowMs + claimRetentionMs(inProgressTtlMs, ttlMs), null);
        return { state: 'claimed' };
      });
    this.completeTransaction = (key, fingerprint, response, nowMs, ttlMs) =>
      immediateTransaction(database, () => {
        const current = select(key);
        // A live record under another fingerprint belongs to someone else: leave it.
        if (current !== undefined && current.expires_at > nowMs && current.fingerprint !== fingerprint) return;
        if (ttlMs <= 0) remove.run(key);
        else upsert.run(key, fingerprint, 1, nowMs, nowMs + ttlMs, response);
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
      () => this.claimTransaction(idempotencyStorageKey(key), fingerprint, nowMs, inProgressTtlMs, ttlMs),
      { write: nowMs, fullIsStoreFull: true },
    );
  }

  complete(key: IdempotencyKey, fingerprint: string, response: StoredResponse | undefined, nowMs: number, ttlMs: number): Promise<void> {
    const serialized = response === undefined ? null : serializeResponse(response);
    return this.handle.run(
      'idempotency',
      () => this.completeTransaction(idempotencyStorageKey(key), fingerprint, serialized, nowMs, ttlMs),
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
