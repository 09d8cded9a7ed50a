// Crash durability of the SQLite stores (threats.md 15): a child process writes revocations,
// idempotent completions and replay counters through the real stores, printing an acknowledgement
// after each write resolves; the test SIGKILLs it mid-stream at a random point, reopens the file
// and requires every acknowledged record, ten times over on the same file. (SIGKILL tests the
// process crash; power loss is covered by synchronous=FULL, checked in sqlite.test.ts, not here.)
// The server-level crash test (50 cycles through HTTP) is the e2e suite's.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStores } from './sqlite/index.js';

const CYCLES = 10;
const SESSION = 'a1'.repeat(16);
const storesModule = fileURLToPath(new URL('./sqlite/index.ts', import.meta.url));
const directory = mkdtempSync(join(tmpdir(), 'veil-sqlite-crash-'));
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

// The writer: every acknowledgement goes out with a synchronous write after the store call
// resolved, so the parent never sees an ack for a write that had not returned.
const WRITER = `
import { writeSync } from 'node:fs';
const { openSqliteStores } = await import(process.env.VEIL_STORES_MODULE);
const stores = openSqliteStores(process.env.VEIL_DB);
const now = Number(process.env.VEIL_NOW);
for (let index = Number(process.env.VEIL_FIRST); ; index += 1) {
  await stores.revocation.add('tenant-a', ['digest-' + index], now);
  await stores.idempotency.claim({ tenant: 'tenant-a', identity: 'writer', key: 'key-' + index }, 'fp', now, 60000, 86400000);
  await stores.idempotency.complete({ tenant: 'tenant-a', identity: 'writer', key: 'key-' + index }, 'fp', { status: 200, headers: {}, body: 'body-' + index }, now, 86400000);
  await stores.replay.advance('${SESSION}', index, now + 3600000, now);
  writeSync(1, index + '\\n');
}
`;

/** Run the writer until it has acknowledged `acks` rounds, SIGKILL it, return the acked indexes. */
function writeThenKill(path: string, first: number, acks: number, nowMs: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', WRITER], {
      env: { ...process.env, VEIL_STORES_MODULE: storesModule, VEIL_DB: path, VEIL_FIRST: String(first), VEIL_NOW: String(nowMs) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const acked: number[] = [];
    let pending = '';
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString('utf8')));
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) acked.push(Number(line));
      if (acked.length >= acks) child.kill('SIGKILL');
    });
    child.once('error', reject);
    child.once('exit', (_code, signal) => {
      if (signal === 'SIGKILL') resolve(acked);
      else reject(new Error(`writer exited without being killed: ${errors}`));
    });
  });
}

describe('SQLite stores survive SIGKILL', () => {
  it(`keeps every acknowledged write across ${CYCLES} kill-and-reopen cycles`, { timeout: 60_000 }, async () => {
    const path = join(directory, 'crash.sqlite');
    const nowMs = Date.now();
    const everAcked: number[] = [];
    for (let cycle = 0; cycle < CYCLES; cycle += 1) {
      // Kill at a different point each cycle (5 to 80 acknowledged rounds).
      const acks = 5 + Math.floor(Math.random() * 76);
      const acked = await writeThenKill(path, cycle * 100_000, acks, nowMs);
      expect(acked.length).toBeGreaterThanOrEqual(acks);
      everAcked.push(...acked);

      const stores = openSqliteStores(path);
      try {
        const digests = everAcked.map((index) => `digest-${index}`);
        expect((await stores.revocation.revoked(['tenant-a'], digests)).size).toBe(digests.length);
        expect(await stores.revocation.count('tenant-a')).toBeGreaterThanOrEqual(everAcked.length);
        for (const index of acked) {
          expect(await stores.idempotency.claim({ tenant: 'tenant-a', identity: 'writer', key: `key-${index}` }, 'fp', nowMs + 1, 60_000, 86_400_000)).toEqual({
            state: 'completed',
            response: { status: 200, headers: {}, body: `body-${index}` },
          });
        }
        const highest = Math.max(...acked);
        expect(await stores.replay.advance(SESSION, highest, nowMs + 3_600_000, nowMs + 1)).toBe(false);
      } finally {
        await stores.close();
      }
    }
  });
});
