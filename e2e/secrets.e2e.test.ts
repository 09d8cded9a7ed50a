// Secrets across processes and restarts, against the real `veil serve` (issue 15 items 1 and 2):
// with no secret configured, several workers on SQLite share one session, digest and corpus key
// (the primary creates `<sqlite_path>.keys` before forking; every worker reads it), a SQLite
// revocation still applies after a restart, a store written under another digest key refuses to
// start, and Redis without a configured session key is refused at startup, naming the setting.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fresh, startVeil, settledLogs, type ServerProcess } from './support/server.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'veil-secrets-e2e-'));
  cleanups.push(() => Promise.resolve(rmSync(dir, { recursive: true, force: true })));
  return dir;
}

async function start(options: Parameters<typeof startVeil>[0]): Promise<ServerProcess> {
  const server = await startVeil(options);
  cleanups.push(() => server.stop('SIGKILL'));
  return server;
}

/** Every state role on one SQLite file, and no secret of any kind. */
function sqliteOnly(dir: string): Record<string, string> {
  return {
    VEIL_STORAGE__SQLITE_PATH: join(dir, 'veil.db'),
    VEIL_REVOCATION_BACKEND: 'sqlite',
    VEIL_REPLAY_BACKEND: 'sqlite',
    VEIL_IDEMPOTENCY__BACKEND: 'sqlite',
  };
}

describe('several workers without a configured secret', () => {
  it('share one set of keys: every cross-worker rehydrate works, and a revocation on one worker holds on all', async () => {
    const dir = tempDir();
    const server = await start({ args: ['--workers', '2'], env: sqliteOnly(dir) });
    // Both workers up, and fresh connections meet both of them. The server answers once one
    // worker is ready; on a loaded machine the second can take seconds more, so the probe waits
    // between rounds (bounded by the hook timeout, not by a timed assertion).
    const pids = new Set<number>();
    for (let attempt = 0; attempt < 300 && pids.size < 2; attempt += 1) {
      const diagnostics = await fresh(server.url, 'GET', '/v1/diagnostics');
      if (diagnostics.status === 200) pids.add(diagnostics.json.worker.pid as number);
      if (pids.size < 2 && attempt % 10 === 9) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(pids.size).toBe(2);

    const pairs = 40;
    const failures: string[] = [];
    const sessions: { safe_text: string; session_state: string }[] = [];
    for (let index = 0; index < pairs; index += 1) {
      const value = `worker.pair.${index}@example.org`;
      const made = await fresh(server.url, 'POST', '/v1/transform', { input: `mail ${value}` });
      if (made.status !== 200) {
        failures.push(`transform ${index}: ${made.status}`);
        continue;
      }
      // A new connection: round-robin hands it to the other worker half of the time.
      const restored = await fresh(server.url, 'POST', '/v1/rehydrate', { output: made.json.safe_text, session_state: made.json.session_state });
      if (restored.status !== 200 || restored.json.restored_text !== `mail ${value}`) failures.push(`rehydrate ${index}: ${restored.status}`);
      sessions.push(made.json);
    }
    expect(failures).toEqual([]);

    // Revoke on whichever worker takes this connection; every later connection sees it.
    const revoked = await fresh(server.url, 'POST', '/v1/revoke', { entity_type: 'email', value: 'worker.pair.0@example.org' });
    expect(revoked.status).toBe(200);
    const erased = new Set<string>();
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const restored = await fresh(server.url, 'POST', '/v1/rehydrate', { output: sessions[0]!.safe_text, session_state: sessions[0]!.session_state });
      erased.add(`${restored.status} ${String(restored.json?.restored_text)}`);
    }
    expect([...erased]).toEqual(['200 mail [DELETED]']);

    // The primary kept the keys beside the database, private; the logs carry fingerprints only.
    const keysFile = join(dir, 'veil.db.keys');
    expect(statSync(keysFile).mode & 0o777).toBe(0o600);
    const keys = JSON.parse(readFileSync(keysFile, 'utf8')) as Record<string, string>;
    const logs = await settledLogs(server);
    for (const name of ['session_secret', 'digest_secret', 'corpus_secret']) expect(logs).not.toContain(keys[name]);
    expect(logs).toMatch(/kept beside the SQLite database/);
  }, 120_000);
});

describe('a SQLite node without a configured secret', () => {
  it('still applies a revocation after a restart, and its old blobs still open', async () => {
    const dir = tempDir();
    const env = sqliteOnly(dir);
    const value = 'restart.erased@example.org';
    const first = await start({ env });
    const made = await fresh(first.url, 'POST', '/v1/transform', { input: `mail ${value}` });
    expect(made.status).toBe(200);
    expect((await fresh(first.url, 'POST', '/v1/revoke', { entity_type: 'email', value })).status).toBe(200);
    expect(await first.stop('SIGTERM')).toBe(0);

    const second = await start({ env });
    expect((await fresh(second.url, 'GET', '/v1/revocations/count')).json.count).toBe(1);
    const restored = await fresh(second.url, 'POST', '/v1/rehydrate', { output: made.json.safe_text, session_state: made.json.session_state });
    expect(restored.status).toBe(200);
    expect(restored.json.restored_text).toBe('mail [DELETED]');
    await second.stop('SIGTERM');

    // Started under another digest key, the store would silently stop applying: refused instead.
    await expect(startVeil({ env: { ...env, VEIL_DIGEST_SECRET: '2b'.repeat(32) }, timeoutMs: 15_000 })).rejects.toThrow(
      /storage\.digest_secret: the revocation store was written under another digest key/,
    );
  }, 60_000);
});

describe('Redis without a configured session key', () => {
  it('refuses to start, naming the setting', async () => {
    // Refused by the configuration check, before any connection: no Redis needs to run.
    await expect(
      startVeil({ env: { VEIL_SESSION__REDIS_URL: 'redis://127.0.0.1:1', VEIL_REVOCATION_BACKEND: 'redis', VEIL_REPLAY_BACKEND: 'redis' }, timeoutMs: 15_000 }),
    ).rejects.toThrow(/session\.secret: is required when revocation_backend, replay_backend are redis/);
  });
});
