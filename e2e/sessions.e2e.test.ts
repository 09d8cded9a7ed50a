// DELETE /v1/sessions against the real `veil serve` (issue 15 item 3): the deny lasts for the
// lifetime of every blob the session issued. A continuation issued after the presented blob
// expires later and must not come back once the presented blob's expiry has passed; an older
// blob issued under a longer TTL (before it was lowered) must not come back either.
// Short TTLs and waits on the wall clock are unavoidable against a real process; the assertions
// are on statuses, never on durations.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fresh, startVeil, type ServerProcess } from './support/server.js';

const SECRET = { VEIL_SESSION_SECRET: '1c'.repeat(32), VEIL_DIGEST_SECRET: '2d'.repeat(32) };
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(env: Record<string, string>): Promise<ServerProcess> {
  const server = await startVeil({ env: { ...SECRET, ...env } });
  cleanups.push(() => server.stop('SIGKILL'));
  return server;
}

/** Sleep until the wall clock reaches `unixSeconds` (plus a little, so the second has begun). */
async function untilUnix(unixSeconds: number): Promise<void> {
  const wait = unixSeconds * 1000 + 150 - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

async function expiresAt(server: ServerProcess, sessionState: string): Promise<number> {
  const status = await fresh(server.url, 'POST', '/v1/sessions/status', { session_state: sessionState });
  expect(status.status).toBe(200);
  return status.json.expires_at_unix as number;
}

describe('DELETE /v1/sessions', () => {
  it('keeps a later-expiring continuation denied after the presented blob expired, and uncontinuable', async () => {
    const server = await start({ VEIL_SESSION__TTL_SECONDS: '6' });
    const first = (await fresh(server.url, 'POST', '/v1/transform', { input: 'mail deny.first@example.org' })).json;
    const firstExpiry = await expiresAt(server, first.session_state);
    // Three seconds later, so the continuation's own expiry is three seconds after the first one's.
    await untilUnix(firstExpiry - 3);
    const later = (await fresh(server.url, 'POST', '/v1/transform', { input: 'and more', session_state: first.session_state })).json;
    const laterExpiry = await expiresAt(server, later.session_state);
    expect(laterExpiry).toBeGreaterThan(firstExpiry);

    const deleted = await fresh(server.url, 'DELETE', '/v1/sessions', { session_state: first.session_state });
    expect(deleted.json).toEqual({ invalidated: true });
    await untilUnix(firstExpiry);
    // The precondition of what follows: the continuation itself has not expired yet.
    expect(Date.now()).toBeLessThan(laterExpiry * 1000);
    const restored = await fresh(server.url, 'POST', '/v1/rehydrate', { output: first.safe_text, session_state: later.session_state });
    expect(restored.status).toBe(410);
    expect(restored.json.code).toBe('VEIL_SESSION_EXPIRED');
    const continued = await fresh(server.url, 'POST', '/v1/transform', { input: 'once more', session_state: later.session_state });
    expect(continued.status).toBe(410);
  }, 60_000);

  it('keeps an older, longer-lived blob dead once a shorter TTL applies', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'veil-sessions-e2e-'));
    cleanups.push(() => Promise.resolve(rmSync(dir, { recursive: true, force: true })));
    // Two processes on one SQLite file (one host may share it): the same deny list, the same
    // keys, and TTLs of an hour and of two seconds, as before and after lowering the TTL.
    const durable = { VEIL_STORAGE__SQLITE_PATH: join(dir, 'veil.db'), VEIL_REPLAY_BACKEND: 'sqlite' };
    const long = await start({ ...durable, VEIL_SESSION__TTL_SECONDS: '3600' });
    const short = await start({ ...durable, VEIL_SESSION__TTL_SECONDS: '2' });
    const older = (await fresh(long.url, 'POST', '/v1/transform', { input: 'mail older.blob@example.org' })).json;
    const newer = await fresh(short.url, 'POST', '/v1/transform', { input: 'next turn', session_state: older.session_state });
    expect(newer.status).toBe(200);
    const newerExpiry = await expiresAt(short, newer.json.session_state);
    const deleted = await fresh(short.url, 'DELETE', '/v1/sessions', { session_state: newer.json.session_state });
    expect(deleted.json).toEqual({ invalidated: true });
    // Past the presented blob's own expiry; the older blob's (an hour away) is far from reached.
    await untilUnix(newerExpiry);
    const restored = await fresh(short.url, 'POST', '/v1/rehydrate', { output: older.safe_text, session_state: older.session_state });
    expect(restored.status).toBe(410);
    expect(restored.text).not.toContain('older.blob@example.org');
  }, 60_000);
});
