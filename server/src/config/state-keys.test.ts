// Durable state and its secrets (issue 15 items 1 and 2): a SQLite node without configured
// secrets keeps generated ones in `<sqlite_path>.keys` (0600) and gets the same ones back on every
// load, a cluster worker only reads that file, Redis without a configured session key is refused,
// and a durable revocation store under a rotating key ring needs a digest key of its own.
import { chmodSync, existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './load.js';
import { ensureStateKeys, readStateKeys, StateKeysError } from './state-keys.js';

const directory = mkdtempSync(join(tmpdir(), 'veil-state-keys-'));
let counter = 0;
const SECRET = '3d'.repeat(32);

function sqliteEnv(extra: Record<string, string> = {}): { env: Record<string, string>; path: string } {
  const path = join(directory, `state-${counter++}.db`);
  return { path, env: { VEIL_STORAGE__SQLITE_PATH: path, VEIL_REVOCATION_BACKEND: 'sqlite', VEIL_REPLAY_BACKEND: 'sqlite', ...extra } };
}

function problemsOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.join('\n');
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('state-keys file', () => {
  it('is created once, private, and read back unchanged; a concurrent creator gets the same keys', () => {
    const path = join(directory, `direct-${counter++}.keys`);
    const first = ensureStateKeys(path);
    expect(first.created).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const second = ensureStateKeys(path);
    expect(second.created).toBe(false);
    expect(second.keys).toEqual(first.keys);
    expect(readStateKeys(path)).toEqual(first.keys);
    // Three distinct keys: one compromised role does not give away another.
    expect(new Set([first.keys.session, first.keys.digest, first.keys.corpus].map((key) => key.toString('hex'))).size).toBe(3);
  });

  it('refuses a file others can read, and one that is not a keys file, naming the file and never a key', () => {
    const path = join(directory, `bad-${counter++}.keys`);
    const { keys } = ensureStateKeys(path);
    chmodSync(path, 0o644);
    expect(() => readStateKeys(path)).toThrow(/chmod 600/);
    chmodSync(path, 0o600);
    const text = readFileSync(path, 'utf8');
    writeFileSync(path, text.replace('veil-state-keys/v1', 'other'), { mode: 0o600 });
    expect(() => readStateKeys(path)).toThrow(StateKeysError);
    writeFileSync(path, '{"format":"veil-state-keys/v1","session_secret":"zz"}', { mode: 0o600 });
    try {
      readStateKeys(path);
      throw new Error('expected a StateKeysError');
    } catch (error) {
      expect(String(error)).toContain(path);
      expect(String(error)).not.toContain(keys.session.toString('hex'));
    }
  });
});

describe('secrets of durable stores', () => {
  it('gives a SQLite node without secrets the same session, digest and corpus keys on every start', () => {
    const { env, path } = sqliteEnv();
    const first = loadConfig({ env });
    expect(first.generatedSecret).toBe(false);
    expect(first.stateKeysFile).toBe(`${path}.keys`);
    expect(first.sessionFromStateKeys).toBe(true);
    expect(first.warnings.join('\n')).toMatch(/kept beside the SQLite database in .*\.keys \(created now; fingerprints session [0-9a-f]{16}/);
    const again = loadConfig({ env });
    expect(again.serverSecret).toEqual(first.serverSecret);
    expect(again.digestSecret).toEqual(first.digestSecret);
    expect(again.corpusSecret).toEqual(first.corpusSecret);
    expect(again.keyRing.currentKid).toBe(first.keyRing.currentKid);
    // A worker reads the primary's file and gets the very same keys.
    expect(loadConfig({ env, stateKeys: 'read' }).digestSecret).toEqual(first.digestSecret);
    // No secret value in any warning.
    expect(first.warnings.join('\n')).not.toContain(first.serverSecret.toString('hex'));
  });

  it('lets a cluster worker only read the file, never invent keys of its own', () => {
    const { env, path } = sqliteEnv();
    expect(problemsOf(() => loadConfig({ env, stateKeys: 'read' }))).toMatch(/\.keys: is missing \(the cluster primary creates it/);
    expect(existsSync(`${path}.keys`)).toBe(false);
  });

  it('keeps the digest and corpus keys of an existing file when a session secret is configured later', () => {
    const { env } = sqliteEnv();
    const generated = loadConfig({ env });
    const configured = loadConfig({ env: { ...env, VEIL_SESSION_SECRET: SECRET } });
    expect(configured.sessionFromStateKeys).toBe(false);
    expect(configured.digestSecret).toEqual(generated.digestSecret);
    expect(configured.corpusSecret).toEqual(generated.corpusSecret);
  });

  it('creates no file when the session secret is configured (digests derive from it, as before)', () => {
    const { env, path } = sqliteEnv({ VEIL_SESSION_SECRET: SECRET });
    const loaded = loadConfig({ env });
    expect(existsSync(`${path}.keys`)).toBe(false);
    expect(loaded.stateKeysFile).toBeUndefined();
    expect(loadConfig({ env }).digestSecret).toEqual(loaded.digestSecret);
  });

  it('creates nothing for an invalid configuration', () => {
    const { env, path } = sqliteEnv({ VEIL_SERVER__PORT: 'not-a-port' });
    expect(problemsOf(() => loadConfig({ env }))).toMatch(/server\.port/);
    expect(existsSync(`${path}.keys`)).toBe(false);
  });

  it('refuses Redis without a configured session key, naming the setting', () => {
    const redis = { VEIL_SESSION__REDIS_URL: 'redis://127.0.0.1:6379' };
    expect(problemsOf(() => loadConfig({ env: { ...redis, VEIL_REVOCATION_BACKEND: 'redis' } }))).toMatch(/session\.secret: is required when revocation_backend is redis/);
    expect(problemsOf(() => loadConfig({ env: { ...redis, VEIL_IDEMPOTENCY__BACKEND: 'redis', VEIL_REPLAY_BACKEND: 'redis' } }))).toMatch(
      /session\.secret: is required when replay_backend, idempotency\.backend are redis/,
    );
    expect(loadConfig({ env: { ...redis, VEIL_REVOCATION_BACKEND: 'redis', VEIL_SESSION_SECRET: SECRET } }).generatedSecret).toBe(false);
  });

  it('refuses a durable revocation store under a key ring without storage.digest_secret', () => {
    const ring = { current_kid: 'k1', keys: [{ kid: 'k1', secret: SECRET }] };
    const { env } = sqliteEnv();
    expect(problemsOf(() => loadConfig({ env, overrides: { session: { keyring: ring } } }))).toMatch(/storage\.digest_secret: is required when revocation_backend is durable and the session keys are a key ring/);
    const withDigest = loadConfig({ env: { ...env, VEIL_DIGEST_SECRET: '4e'.repeat(32) }, overrides: { session: { keyring: ring } } });
    expect(withDigest.digestSecret.toString('hex')).toBe('4e'.repeat(32));
    // A ring with per-process (memory) revocations has nothing durable to orphan.
    expect(loadConfig({ env: {}, overrides: { session: { keyring: ring } } }).generatedSecret).toBe(false);
  });
});
