// The SQLite stores (backend `sqlite`): one database file for replay, revocation and idempotency,
// so a single node survives a restart, SIGKILL or power loss with nothing acknowledged lost.
// Several processes on one host may share the file; several hosts must use Redis.
import { SqliteHandle, type SqliteOptions } from './handle.js';
import { SqliteIdempotencyStore } from './idempotency.js';
import { SqliteReplayStore } from './replay.js';
import { SqliteRevocationStore } from './revocation.js';

export { SqliteHandle, SCHEMA_VERSION, type SqliteOptions } from './handle.js';
export { SqliteIdempotencyStore, type SqliteIdempotencyOptions } from './idempotency.js';
export { SqliteReplayStore } from './replay.js';
export { SqliteRevocationStore, type SqliteRevocationOptions } from './revocation.js';

export interface SqliteStores {
  readonly replay: SqliteReplayStore;
  readonly revocation: SqliteRevocationStore;
  readonly idempotency: SqliteIdempotencyStore;
  /** Close all three (the file closes with the last). */
  close(): Promise<void>;
}

/** Open (creating if needed) the database at `path`; throws StoreUnavailableError when it cannot. */
export function openSqliteStores(path: string, options: SqliteOptions = {}): SqliteStores {
  const handle = SqliteHandle.open(path, options);
  const replay = new SqliteReplayStore(handle);
  const revocation = new SqliteRevocationStore(handle);
  const idempotency = new SqliteIdempotencyStore(handle);
  return {
    replay,
    revocation,
    idempotency,
    close: async () => {
      await Promise.all([replay.close(), revocation.close(), idempotency.close()]);
    },
  };
}
