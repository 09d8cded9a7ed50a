// The secrets of a durable SQLite node that runs without configured ones (docs/operations.md
// "Secrets of a durable store"). Revocation digests, sealed blobs kept by idempotent responses,
// and RAG corpus tokens all mean something only under the key they were made with: a secret
// generated per process would silently turn every stored revocation into dead weight at the next
// restart (the value would restore in clear again) and would differ between the workers of one
// `--workers N` server. So when no session secret is configured and a store lives in SQLite, the
// session, digest and corpus secrets are generated once and kept in `<storage.sqlite_path>.keys`
// (mode 0600, beside the database it belongs to), re-read on every start and by every worker.
//
// The file is created atomically (written to a private temporary file, then hard-linked into
// place, which fails if another process won the race; the loser reads the winner's file), so two
// processes starting on one database at once still agree. A file that is not private (group or
// other bits set), unreadable or malformed aborts startup: the keys must never be guessed anew.
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { SECRET_BYTES } from './secrets.js';

export interface StateKeys {
  readonly session: Buffer;
  readonly digest: Buffer;
  readonly corpus: Buffer;
}

const FORMAT = 'veil-state-keys/v1';
const HEX_KEY = /^[0-9a-f]{64}$/;
/** A keys file is a few hundred bytes; anything much larger is not ours. */
const MAX_FILE_BYTES = 4096;

/** Where the keys of the SQLite database at `sqlitePath` live. */
export function stateKeysPath(sqlitePath: string): string {
  return `${sqlitePath}.keys`;
}

function codeOf(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'error';
}

/** Thrown for a keys file that exists but cannot be used; the message names the file, never a key. */
export class StateKeysError extends Error {
  constructor(path: string, problem: string) {
    super(`${path}: ${problem}`);
    this.name = 'StateKeysError';
  }
}

function parse(path: string, text: string): StateKeys {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new StateKeysError(path, 'is not a Veil state-keys file (not JSON)');
  }
  const record = typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
  if (record.format !== FORMAT) throw new StateKeysError(path, `is not a Veil state-keys file (format must be ${FORMAT})`);
  const key = (name: string): Buffer => {
    const value = record[name];
    if (typeof value !== 'string' || !HEX_KEY.test(value)) throw new StateKeysError(path, `${name}: must be ${SECRET_BYTES} bytes as 64 lowercase hex characters`);
    return Buffer.from(value, 'hex');
  };
  return { session: key('session_secret'), digest: key('digest_secret'), corpus: key('corpus_secret') };
}

/** Read the keys file; undefined when it does not exist. Throws StateKeysError when it cannot be used. */
export function readStateKeys(path: string): StateKeys | undefined {
  let mode: number;
  let size: number;
  try {
    const stats = statSync(path);
    mode = stats.mode;
    size = stats.size;
    if (!stats.isFile()) throw new StateKeysError(path, 'is not a regular file');
  } catch (error) {
    if (error instanceof StateKeysError) throw error;
    if (codeOf(error) === 'ENOENT') return undefined;
    throw new StateKeysError(path, `cannot be read (${codeOf(error)})`);
  }
  // Like an SSH private key: a copy others can read is refused rather than trusted.
  if ((mode & 0o077) !== 0) throw new StateKeysError(path, 'must be private to its owner (chmod 600)');
  if (size > MAX_FILE_BYTES) throw new StateKeysError(path, 'is not a Veil state-keys file (too large)');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new StateKeysError(path, `cannot be read (${codeOf(error)})`);
  }
  return parse(path, text);
}

/**
 * The keys at `path`, generated and written first when the file does not exist yet (`created`
 * true). Safe against a concurrent creator: exactly one file wins and both callers return it.
 */
export function ensureStateKeys(path: string): { keys: StateKeys; created: boolean } {
  const existing = readStateKeys(path);
  if (existing !== undefined) return { keys: existing, created: false };
  const text = `${JSON.stringify({
    format: FORMAT,
    session_secret: randomBytes(SECRET_BYTES).toString('hex'),
    digest_secret: randomBytes(SECRET_BYTES).toString('hex'),
    corpus_secret: randomBytes(SECRET_BYTES).toString('hex'),
  })}\n`;
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const fd = openSync(temporary, 'wx', 0o600);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(temporary, path);
    } catch (error) {
      // Another process created it first: use theirs.
      if (codeOf(error) !== 'EEXIST') throw error;
      const theirs = readStateKeys(path);
      if (theirs === undefined) throw new StateKeysError(path, 'disappeared while being created');
      return { keys: theirs, created: false };
    }
    // The new directory entry is durable before anything is written under these keys.
    const directory = openSync(dirname(path), 'r');
    try {
      fsyncSync(directory);
    } finally {
      closeSync(directory);
    }
  } catch (error) {
    if (error instanceof StateKeysError) throw error;
    throw new StateKeysError(path, `cannot be created (${codeOf(error)})`);
  } finally {
    rmSync(temporary, { force: true });
  }
  return { keys: parse(path, text), created: true };
}
