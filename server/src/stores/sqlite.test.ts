// Runs the conformance suites against the SQLite stores (a fresh database file per test; the peer
// is a second connection to the same file, as a second process would have), plus SQLite-only
// behaviour: pragmas and schema version, failure to open, a write lock held elsewhere, a full
// disk, bounded sweeping of expired rows, and createStores sharing one handle.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { idempotencyStoreSuite, replayStoreSuite, revocationStoreSuite, type StoreFactory } from './conformance.suite.js';
import { createStores } from './index.js';
import { idempotencyStorageKey } from './shared.js';
import { pragmaValue } from './sqlite/handle.js';
import { openSqliteStores, SCHEMA_VERSION, SqliteHandle, SqliteIdempotencyStore, SqliteReplayStore, SqliteRevocationStore } from './sqlite/index.js';
import { QuotaExceededError, StoreFullError, StoreUnavailableError, type IdempotencyKey } from './types.js';

/** An idempotency key of one fixed caller. */
const idem = (key: string): IdempotencyKey => ({ tenant: 'tenant-a', identity: 'caller', key });

const directory = mkdtempSync(join(tmpdir(), 'veil-sqlite-test-'));
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

let fileNumber = 0;
function freshPath(): string {
  fileNumber += 1;
  return join(directory, `stores-${fileNumber}.sqlite`);
}

/**
 * A factory per store class. The broken store's connection is closed under it, the state of a
 * handle whose file became unusable: every call must fail closed.
 */
function factory<T extends { close(): Promise<void> }>(build: (handle: SqliteHandle, quota?: number) => T, noQuotaReason?: string): StoreFactory<T> {
  let lastPath = '';
  return {
    open: () => {
      lastPath = freshPath();
      return Promise.resolve(build(SqliteHandle.open(lastPath)));
    },
    ...(noQuotaReason === undefined ? { openWithQuota: (quota: number) => Promise.resolve(build(SqliteHandle.open(freshPath()), quota)) } : { noQuotaReason }),
    openPeer: () => Promise.resolve(build(SqliteHandle.open(lastPath))),
    openBroken: () => {
      const handle = SqliteHandle.open(freshPath());
      const store = build(handle);
      handle.database.close();
      return Promise.resolve(store);
    },
  };
}

replayStoreSuite('sqlite', factory((handle) => new SqliteReplayStore(handle), 'replay records expire with their sessions and live on disk; only the memory store has a replay quota'));
revocationStoreSuite('sqlite', factory((handle, quota) => new SqliteRevocationStore(handle, quota === undefined ? {} : { maxPerOwner: quota })));
idempotencyStoreSuite('sqlite', factory((handle, quota) => new SqliteIdempotencyStore(handle, quota === undefined ? {} : { maxPerOwner: quota })));

const T0 = 1_700_000_000_000;

describe('SQLite stores: file and settings', () => {
  it('opens with WAL, synchronous=FULL, a busy timeout and the current schema version', async () => {
    const path = freshPath();
    const stores = openSqliteStores(path);
    await stores.revocation.add('t', ['d'], T0);
    await stores.close();
    const database = new DatabaseSync(path, { readOnly: true });
    try {
      expect(pragmaValue(database, 'journal_mode')).toBe('wal');
      expect(pragmaValue(database, 'user_version')).toBe(SCHEMA_VERSION);
    } finally {
      database.close();
    }
    const handle = SqliteHandle.open(path);
    try {
      // synchronous and busy_timeout are per connection: check ours.
      expect(pragmaValue(handle.database, 'synchronous')).toBe(2);
      expect(pragmaValue(handle.database, 'busy_timeout')).toBe(2000);
    } finally {
      handle.close();
    }
  });

  it('keeps data across close and reopen', async () => {
    const path = freshPath();
    const first = openSqliteStores(path);
    await first.revocation.add('tenant-a', ['d1', 'd2'], T0);
    await first.replay.advance('s1', 4, T0 + 60_000, T0);
    await first.idempotency.claim(idem('k'), 'fp', T0, 1000, 60_000);
    await first.idempotency.complete(idem('k'), 'fp', { status: 200, headers: { a: 'b' }, body: 'ok' }, T0, 60_000);
    await first.close();
    const second = openSqliteStores(path);
    try {
      expect(await second.revocation.count('tenant-a')).toBe(2);
      expect(await second.replay.advance('s1', 4, T0 + 60_000, T0 + 1)).toBe(false);
      expect(await second.idempotency.claim(idem('k'), 'fp', T0 + 2, 1000, 60_000)).toEqual({
        state: 'completed',
        response: { status: 200, headers: { a: 'b' }, body: 'ok' },
      });
    } finally {
      await second.close();
    }
  });

  it('fails fast with StoreUnavailableError when the file cannot be opened', () => {
    const cases = [
      join(directory, 'missing-directory', 'stores.sqlite'),
      directory, // a directory, not a file
    ];
    const notADatabase = freshPath();
    writeFileSync(notADatabase, 'this is not an SQLite database, just some text that is long enough '.repeat(20));
    cases.push(notADatabase);
    for (const path of cases) {
      expect(() => SqliteHandle.open(path)).toThrow(StoreUnavailableError);
    }
  });

  it('upgrades a version-1 file in place, keeping its revocations', async () => {
    const path = freshPath();
    const old = new DatabaseSync(path);
    // The version-1 schema as earlier releases wrote it (no meta table, idempotency records
    // without an owner), with one revocation and one completed idempotency record.
    old.exec(`CREATE TABLE revocation (partition TEXT NOT NULL, digest TEXT NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (partition, digest)) WITHOUT ROWID;
      CREATE TABLE revocation_count (partition TEXT PRIMARY KEY, count INTEGER NOT NULL) WITHOUT ROWID;
      CREATE TABLE idempotency (key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, done INTEGER NOT NULL, claimed_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, response TEXT) WITHOUT ROWID;
      INSERT INTO revocation VALUES ('*', 'kept', 1); INSERT INTO revocation_count VALUES ('*', 1);`);
    old.prepare('INSERT INTO idempotency VALUES (?, ?, 1, ?, ?, ?)').run(idempotencyStorageKey(idem('k')), 'fp', T0, T0 + 60_000, '{"status":200,"headers":{},"body":"ok"}');
    old.exec('PRAGMA user_version = 1');
    old.close();
    const handle = SqliteHandle.open(path);
    const store = new SqliteRevocationStore(handle);
    const idempotency = new SqliteIdempotencyStore(handle, { maxPerOwner: 1 });
    try {
      expect(pragmaValue(handle.database, 'user_version')).toBe(SCHEMA_VERSION);
      expect(await store.revoked(['*'], ['kept'])).toEqual(new Set(['kept']));
      expect(await store.keyCheck('first')).toBe('first');
      expect(await idempotency.claim(idem('k'), 'fp', T0 + 1, 1000, 60_000)).toEqual({ state: 'completed', response: { status: 200, headers: {}, body: 'ok' } });
      // The old record counts against no tenant: the tenant still has its whole quota.
      expect(await idempotency.claim(idem('k2'), 'fp', T0 + 1, 1000, 60_000)).toEqual({ state: 'claimed' });
    } finally {
      await idempotency.close();
      await store.close();
    }
  });

  it('upgrades a version-2 file in place, keeping its revocations, key check and idempotency records', async () => {
    const path = freshPath();
    const old = new DatabaseSync(path);
    // The version-2 schema as the previous release wrote it (meta table with the key check;
    // idempotency records without an owner).
    old.exec(`CREATE TABLE revocation (partition TEXT NOT NULL, digest TEXT NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (partition, digest)) WITHOUT ROWID;
      CREATE TABLE revocation_count (partition TEXT PRIMARY KEY, count INTEGER NOT NULL) WITHOUT ROWID;
      CREATE TABLE idempotency (key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, done INTEGER NOT NULL, claimed_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, response TEXT) WITHOUT ROWID;
      CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
      INSERT INTO revocation VALUES ('tenant-a', 'kept', 1); INSERT INTO revocation_count VALUES ('tenant-a', 1);
      INSERT INTO meta VALUES ('revocation_key_check', 'stored-check');`);
    old.prepare('INSERT INTO idempotency VALUES (?, ?, 1, ?, ?, ?)').run(idempotencyStorageKey(idem('k')), 'fp', T0, T0 + 60_000, '{"status":200,"headers":{},"body":"ok"}');
    old.exec('PRAGMA user_version = 2');
    old.close();
    const handle = SqliteHandle.open(path);
    const store = new SqliteRevocationStore(handle, { maxPerOwner: 2 });
    const idempotency = new SqliteIdempotencyStore(handle, { maxPerOwner: 1 });
    try {
      expect(pragmaValue(handle.database, 'user_version')).toBe(SCHEMA_VERSION);
      expect(await store.revoked(['tenant-a'], ['kept'])).toEqual(new Set(['kept']));
      // The key check on record wins: a process with another digest key still refuses to start.
      expect(await store.keyCheck('another-check')).toBe('stored-check');
      // The partition's existing digest counts against its quota.
      expect(await store.add('tenant-a', ['new'], T0)).toBe(1);
      await expect(store.add('tenant-a', ['third'], T0)).rejects.toBeInstanceOf(QuotaExceededError);
      expect(await idempotency.claim(idem('k'), 'fp', T0 + 1, 1000, 60_000)).toEqual({ state: 'completed', response: { status: 200, headers: {}, body: 'ok' } });
      expect(await idempotency.claim(idem('k2'), 'fp', T0 + 1, 1000, 60_000)).toEqual({ state: 'claimed' });
      await expect(idempotency.claim(idem('k3'), 'fp', T0 + 1, 1000, 60_000)).rejects.toBeInstanceOf(QuotaExceededError);
    } finally {
      await idempotency.close();
      await store.close();
    }
  });

  it('refuses a file written with a newer schema version', () => {
    const path = freshPath();
    const database = new DatabaseSync(path);
    database.exec('PRAGMA user_version = 99');
    database.close();
    expect(() => SqliteHandle.open(path)).toThrow(StoreUnavailableError);
  });

  it('fails writes with StoreUnavailableError within the busy timeout when another process holds the write lock', async () => {
    const path = freshPath();
    const stores = openSqliteStores(path, { busyTimeoutMs: 100 });
    const locker = new DatabaseSync(path);
    try {
      locker.exec('BEGIN IMMEDIATE');
      await expect(stores.revocation.add('t', ['d'], T0)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(stores.replay.advance('s', 1, T0 + 1000, T0)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(stores.idempotency.claim(idem('k'), 'fp', T0, 1000, 60_000)).rejects.toBeInstanceOf(StoreUnavailableError);
      // WAL readers are not blocked by a writer.
      expect(await stores.revocation.count('t')).toBe(0);
      locker.exec('ROLLBACK');
      expect(await stores.revocation.add('t', ['d'], T0)).toBe(1);
    } finally {
      locker.close();
      await stores.close();
    }
  });

  it('a full disk is STORE_FULL for an idempotency claim and an outage for the other writes', async () => {
    const stores = openSqliteStores(freshPath());
    // Cap the file at its current size: the next page allocation fails with SQLITE_FULL.
    const handle = (stores.replay as unknown as { handle: SqliteHandle }).handle;
    const pages = pragmaValue(handle.database, 'page_count');
    handle.database.exec(`PRAGMA max_page_count = ${String(pages)}`);
    const big = 'x'.repeat(64 * 1024);
    try {
      await expect(stores.idempotency.claim(idem(big), 'fp', T0, 1000, 60_000)).rejects.toBeInstanceOf(StoreFullError);
      const revocation = stores.revocation.add('t', Array.from({ length: 200 }, (_unused, index) => `${big.slice(0, 400)}${index}`), T0);
      await expect(revocation).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(await stores.revocation.count('t')).toBe(0);
    } finally {
      await stores.close();
    }
  });

  it('deletes expired rows in bounded batches as writes go on', async () => {
    const path = freshPath();
    const stores = openSqliteStores(path);
    try {
      for (let index = 0; index < 600; index += 1) await stores.replay.advance(`old-${index}`, 1, T0 + 1000, T0);
      for (let index = 0; index < 600; index += 1) await stores.idempotency.claim(idem(`old-${index}`), 'fp', T0, 100, 1000);
      for (let index = 0; index < 1200; index += 1) await stores.replay.advance(`new-${index}`, 1, T0 + 60_000, T0 + 2000);
      const database = new DatabaseSync(path, { readOnly: true });
      try {
        expect(database.prepare('SELECT count(*) AS n FROM replay_counter WHERE expires_at <= ?').get(T0 + 2000)?.n).toBe(0);
        expect(database.prepare('SELECT count(*) AS n FROM idempotency').get()?.n).toBe(0);
      } finally {
        database.close();
      }
    } finally {
      await stores.close();
    }
  });

  it('closes the shared file only when the last store closes', async () => {
    const stores = openSqliteStores(freshPath());
    await stores.replay.close();
    await stores.replay.close();
    expect(await stores.revocation.add('t', ['d'], T0)).toBe(1);
    await stores.close();
    await expect(stores.revocation.count('t')).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});

describe('createStores with SQLite', () => {
  it('shares one SQLite handle between replay, revocation and idempotency', async () => {
    const path = freshPath();
    const stores = await createStores({ replay: 'sqlite', revocation: 'sqlite', idempotency: 'sqlite', sessions: 'sealed', sqlitePath: path });
    try {
      expect(stores.sessions).toBeUndefined();
      const handles = [stores.replay, stores.revocation, stores.idempotency].map((store) => (store as unknown as { handle: SqliteHandle }).handle);
      expect(new Set(handles).size).toBe(1);
      expect(await stores.revocation.add('t', ['d'], T0)).toBe(1);
    } finally {
      await stores.close();
    }
  });

  it('mixes backends and requires the path for sqlite', async () => {
    const stores = await createStores({ replay: 'memory', revocation: 'sqlite', idempotency: 'memory', sessions: 'memory', sqlitePath: freshPath(), limits: { idempotency: { maxEntries: 1 } } });
    try {
      expect(stores.sessions).toBeDefined();
      await stores.idempotency.claim(idem('a'), 'fp', T0, 1000, 60_000);
      await expect(stores.idempotency.claim(idem('b'), 'fp', T0, 1000, 60_000)).rejects.toBeInstanceOf(StoreFullError);
    } finally {
      await stores.close();
    }
    await expect(createStores({ replay: 'sqlite', revocation: 'memory', idempotency: 'memory', sessions: 'sealed' })).rejects.toThrow(/sqlite_path/);
  });
});
