// One SQLite database file (storage.sqlite_path) shared by the replay, revocation and idempotency
// stores of a node. Opened once with durability-first settings:
//   - journal_mode=WAL: readers never block the writer, and a commit is one append to the WAL;
//   - synchronous=FULL: the WAL is fsynced at every commit, so a write that returned (was
//     acknowledged) survives SIGKILL of the process and power loss of the machine;
//   - busy_timeout: a second process holding the write lock makes us wait this long, then fail
//     (StoreUnavailableError) instead of hanging a request;
//   - journal_size_limit: the WAL is truncated back after checkpoints so it cannot grow forever.
// node:sqlite (built into Node, no native addon to compile) is synchronous, so each store
// operation is one prepared statement or one short IMMEDIATE transaction (the write lock is taken
// up front; no read-then-upgrade deadlocks between processes). The schema is versioned with
// PRAGMA user_version and created on open.
// Expired rows are deleted a bounded batch at a time every SWEEP_EVERY writes, using the latest
// caller clock seen, so the file does not grow with dead rows.
import { DatabaseSync } from 'node:sqlite';
import { asStoreError } from '../shared.js';
import { StoreFullError } from '../types.js';

export const SCHEMA_VERSION = 3;

const SCHEMA_V1 = `
CREATE TABLE replay_counter (
  session_id TEXT PRIMARY KEY,
  counter INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX replay_counter_expiry ON replay_counter (expires_at);
CREATE TABLE replay_deny (
  session_id TEXT PRIMARY KEY,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX replay_deny_expiry ON replay_deny (expires_at);
CREATE TABLE revocation (
  partition TEXT NOT NULL,
  digest TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (partition, digest)
) WITHOUT ROWID;
-- Maintained in the same transaction as inserts, so count() is O(1) however many digests exist.
CREATE TABLE revocation_count (
  partition TEXT PRIMARY KEY,
  count INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE idempotency (
  key TEXT PRIMARY KEY,
  fingerprint TEXT NOT NULL,
  done INTEGER NOT NULL,
  claimed_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  response TEXT
) WITHOUT ROWID;
CREATE INDEX idempotency_expiry ON idempotency (expires_at);
`;

/** Version 2: named values about the file itself (the revocation digest key check). */
const SCHEMA_V2 = `
CREATE TABLE meta (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
`;

/**
 * Version 3: the owner (tenant partition) of each idempotency record, for the per-tenant quota,
 * and the number of rows each owner holds, kept by triggers in the writing transaction (so the
 * quota check is one lookup however many records there are; expired rows count until deleted).
 * Records written before it have the owner '' (no tenant's, so they count against none) and
 * expire within the idempotency TTL.
 */
const SCHEMA_V3 = `
ALTER TABLE idempotency ADD COLUMN owner TEXT NOT NULL DEFAULT '';
CREATE INDEX idempotency_owner_expiry ON idempotency (owner, expires_at);
CREATE TABLE idempotency_owner_count (
  owner TEXT PRIMARY KEY,
  count INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO idempotency_owner_count (owner, count) SELECT owner, count(*) FROM idempotency GROUP BY owner;
CREATE TRIGGER idempotency_owner_insert AFTER INSERT ON idempotency BEGIN
  INSERT INTO idempotency_owner_count (owner, count) VALUES (NEW.owner, 1)
    ON CONFLICT (owner) DO UPDATE SET count = count + 1;
END;
CREATE TRIGGER idempotency_owner_delete AFTER DELETE ON idempotency BEGIN
  UPDATE idempotency_owner_count SET count = count - 1 WHERE owner = OLD.owner;
  DELETE FROM idempotency_owner_count WHERE owner = OLD.owner AND count <= 0;
END;
CREATE TRIGGER idempotency_owner_move AFTER UPDATE OF owner ON idempotency WHEN OLD.owner <> NEW.owner BEGIN
  UPDATE idempotency_owner_count SET count = count - 1 WHERE owner = OLD.owner;
  DELETE FROM idempotency_owner_count WHERE owner = OLD.owner AND count <= 0;
  INSERT INTO idempotency_owner_count (owner, count) VALUES (NEW.owner, 1)
    ON CONFLICT (owner) DO UPDATE SET count = count + 1;
END;
`;

/** Each step upgrades from the version before it; a fresh file runs them all. */
const MIGRATIONS: readonly string[] = [SCHEMA_V1, SCHEMA_V2, SCHEMA_V3];

const SWEEP_EVERY = 256;
export const SWEEP_BATCH = 512;

export interface SqliteOptions {
  /** How long to wait for another process's write lock before failing; default 2000 ms. */
  readonly busyTimeoutMs?: number;
}

/** SQLite's primary result code for "no room" (the disk or the database's page limit is full). */
const SQLITE_FULL = 13;

function isFull(error: unknown): boolean {
  // node:sqlite puts the (extended) result code in errcode; its low byte is the primary code.
  const code = (error as { errcode?: unknown } | null)?.errcode;
  return typeof code === 'number' && (code & 0xff) === SQLITE_FULL;
}

/** The single value a PRAGMA query returns (its one column of its one row), or undefined. */
export function pragmaValue(database: DatabaseSync, pragma: string): unknown {
  const row = database.prepare(`PRAGMA ${pragma}`).get();
  return row === undefined ? undefined : Object.values(row)[0];
}

/**
 * Run `work` in one BEGIN IMMEDIATE transaction: committed when it returns, rolled back when it
 * throws (the error is rethrown). IMMEDIATE takes the write lock before the first read.
 */
export function immediateTransaction<T>(database: DatabaseSync, work: () => T): T {
  database.exec('BEGIN IMMEDIATE');
  try {
    const result = work();
    database.exec('COMMIT');
    return result;
  } catch (error) {
    // A failed COMMIT (or a statement error) may leave the transaction open: end it so the
    // connection is usable for the next operation.
    if (database.isTransaction) database.exec('ROLLBACK');
    throw error;
  }
}

/** A shared connection with a reference count: the file closes when the last store closes. */
export class SqliteHandle {
  private references = 0;
  private writes = 0;
  private readonly sweepers: ((nowMs: number) => void)[] = [];

  private constructor(readonly database: DatabaseSync) {}

  /** Open (creating if needed) the database at `path`; any failure is a StoreUnavailableError. */
  static open(path: string, options: SqliteOptions = {}): SqliteHandle {
    let database: DatabaseSync | undefined;
    try {
      database = new DatabaseSync(path, { timeout: options.busyTimeoutMs ?? 2000 });
      const journalMode = pragmaValue(database, 'journal_mode = WAL');
      if (journalMode !== 'wal') throw new Error(`SQLite at ${path} refused WAL mode (got ${String(journalMode)})`);
      database.exec('PRAGMA synchronous = FULL');
      database.exec('PRAGMA journal_size_limit = 67108864');
      migrate(database);
      return new SqliteHandle(database);
    } catch (error) {
      if (database?.isOpen === true) database.close();
      throw asStoreError('sqlite', error);
    }
  }

  acquire(): void {
    this.references += 1;
  }

  release(): void {
    this.references -= 1;
    if (this.references <= 0) this.close();
  }

  /** Close the file now, whatever the references (later calls fail with StoreUnavailableError). */
  close(): void {
    if (this.database.isOpen) this.database.close();
  }

  /** True while the file is open and answers a trivial query. */
  ping(): boolean {
    try {
      return this.database.isOpen && this.database.prepare('SELECT 1 AS one').get()?.one === 1;
    } catch {
      return false;
    }
  }

  /** Register a function that deletes up to SWEEP_BATCH expired rows of one table. */
  addSweeper(sweep: (nowMs: number) => void): void {
    this.sweepers.push(sweep);
  }

  /**
   * Run one store operation. Any SQLite error (locked, I/O, closed handle, corrupt file) becomes
   * StoreUnavailableError; SQLITE_FULL becomes StoreFullError where the caller has a code for it
   * (an idempotency claim), else StoreUnavailableError.
   */
  run<T>(store: string, operation: () => T, options: { readonly write?: number; readonly fullIsStoreFull?: boolean } = {}): Promise<T> {
    try {
      const result = operation();
      if (options.write !== undefined) this.afterWrite(options.write);
      return Promise.resolve(result);
    } catch (error) {
      if (options.fullIsStoreFull === true && isFull(error)) return Promise.reject(new StoreFullError(store));
      return Promise.reject(asStoreError(store, error));
    }
  }

  private afterWrite(nowMs: number): void {
    this.writes += 1;
    if (this.writes < SWEEP_EVERY) return;
    this.writes = 0;
    for (const sweep of this.sweepers) {
      try {
        sweep(nowMs);
      } catch {
        // Garbage collection only: the write already succeeded, and a real fault shows up on the
        // next operation as StoreUnavailableError.
      }
    }
  }
}

function migrate(database: DatabaseSync): void {
  const version = pragmaValue(database, 'user_version');
  if (version === SCHEMA_VERSION) return;
  if (typeof version !== 'number' || version < 0 || version > SCHEMA_VERSION) {
    throw new Error(`SQLite schema version ${String(version)} is not ${SCHEMA_VERSION}; written by another Veil version`);
  }
  // IMMEDIATE so two processes opening the file at once do not both migrate it.
  immediateTransaction(database, () => {
    const current = pragmaValue(database, 'user_version');
    if (typeof current !== 'number') throw new Error('SQLite user_version is not a number');
    for (const step of MIGRATIONS.slice(current)) database.exec(step);
    database.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
  });
}
