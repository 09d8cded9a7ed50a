// SQLite idempotency store: claims and completed responses survive a restart of the node. Each
// claim/complete is one IMMEDIATE transaction (read the record, decide with the shared rule,
// write), so concurrent requests, in this process or another sharing the file, see exactly one
// winner. A full disk (SQLITE_FULL) on a claim is StoreFullError, i.e. 503 STORE_FULL before the
// mutation runs.
import { claimRetentionMs, decideClaim, idempotencyStorageKey, parseResponse, serializeResponse, type IdempotencyRecord } from '../shared.js';
import type { ClaimResult, IdempotencyKey, IdempotencyStore, StoredResponse } from '../types.js';
import { SWEEP_BATCH, type SqliteHandle } from './handle.js';

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
  private readonly claimTransaction;
  private readonly completeTransaction;
  private readonly releaseStatement;
  private closed = false;

  constructor(private readonly handle: SqliteHandle) {
    const database = handle.database;
    const select = database.prepare<[string], Row>(
      'SELECT fingerprint, done, claimed_at, expires_at, response FROM idempotency WHERE key = ?',
    );
    const upsert = database.prepare<[string, string, number, number, number, string | null]>(`
      INSERT INTO idempotency (key, fingerprint, done, claimed_at, expires_at, response) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (key) DO UPDATE SET fingerprint = excluded.fingerprint, done = excluded.done,
        claimed_at = excluded.claimed_at, expires_at = excluded.expires_at, response = excluded.response`);
    const remove = database.prepare<[string]>('DELETE FROM idempotency WHERE key = ?');

    this.claimTransaction = database.transaction(
      (key: string, fingerprint: string, nowMs: number, inProgressTtlMs: number, ttlMs: number): ClaimResult => {
        const decision = decideClaim(toRecord(select.get(key)), fingerprint, nowMs, inProgressTtlMs);
        if (decision !== 'take') return decision;
        upsert.run(key, fingerprint, 0, nowMs, nowMs + claimRetentionMs(inProgressTtlMs, ttlMs), null);
        return { state: 'claimed' };
      },
    );
    this.completeTransaction = database.transaction(
      (key: string, fingerprint: string, response: string | null, nowMs: number, ttlMs: number): void => {
        const current = select.get(key);
        // A live record under another fingerprint belongs to someone else: leave it.
        if (current !== undefined && current.expires_at > nowMs && current.fingerprint !== fingerprint) return;
        if (ttlMs <= 0) remove.run(key);
        else upsert.run(key, fingerprint, 1, nowMs, nowMs + ttlMs, response);
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

  claim(key: IdempotencyKey, fingerprint: string, nowMs: number, inProgressTtlMs: number, ttlMs: number): Promise<ClaimResult> {
    return this.handle.run(
      'idempotency',
      () => this.claimTransaction.immediate(idempotencyStorageKey(key), fingerprint, nowMs, inProgressTtlMs, ttlMs),
      { write: nowMs, fullIsStoreFull: true },
    );
  }

  complete(key: IdempotencyKey, fingerprint: string, response: StoredResponse | undefined, nowMs: number, ttlMs: number): Promise<void> {
    const serialized = response === undefined ? null : serializeResponse(response);
    return this.handle.run(
      'idempotency',
      () => this.completeTransaction.immediate(idempotencyStorageKey(key), fingerprint, serialized, nowMs, ttlMs),
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
