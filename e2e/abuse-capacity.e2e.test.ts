// Capacity abuse against the real `veil serve` process (issue 16 items 4 and 5), loopback only,
// bounded loops:
//   - one tenant filling the memory revocation store and the idempotency store gets its own 429
//     VEIL_QUOTA_EXCEEDED with Retry-After, while another tenant's revoke and idempotent request
//     succeed; memory revocations expire (the tenant's room comes back after the longest blob
//     lifetime plus the skew allowance);
//   - the rate limiter charges work: batch items, body bytes, entities found, RAG chunks;
//   - failed authentication is throttled per source address (a guessing address gets 429 even
//     with the right key, another address is unaffected);
//   - `make run` (scripts/run.sh) keeps revocations in SQLite under its data directory, runs
//     worker processes under a primary that replaces one killed with SIGKILL or crashed with
//     SIGABRT (the signal V8 ends a fatal out-of-memory with), and a revocation made before
//     either crash, and before a full restart, still restores [DELETED];
//   - the bare memory-store default says once, at startup, that revocations are not durable.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { fresh, ROOT, startVeil, settledLogs, type ServerProcess } from './support/server.js';

const KEY_A = 'e2e-capacity-tenant-a-0123456789';
const KEY_B = 'e2e-capacity-tenant-b-0123456789';
const KEY_C = 'e2e-capacity-tenant-c-0123456789';
const SCOPES = ['transform', 'rehydrate', 'detect', 'batch', 'revoke', 'rag'];
/** session.ttl_seconds + session.clock_skew_seconds of the memory-store server. */
const RETENTION_SECONDS = 5;
const ERASED = 'erased.e2e-capacity@example.org';

interface Answer {
  readonly status: number;
  readonly body: any;
  readonly headers: Record<string, string | string[] | undefined>;
}

/** One request on its own connection, optionally from a chosen loopback source address. */
function call(url: string, method: string, path: string, body: unknown, headers: Record<string, string> = {}, localAddress?: string): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      new URL(path, url),
      {
        method,
        agent: false,
        ...(localAddress !== undefined ? { localAddress } : {}),
        headers: { ...(payload !== undefined ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } : {}), ...headers },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = text;
          }
          resolve({ status: response.statusCode ?? 0, body: parsed, headers: response.headers });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.setTimeout(10_000, () => outgoing.destroy(new Error('request timed out')));
    outgoing.end(payload);
  });
}

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const as = (key: string): Record<string, string> => ({ 'x-api-key': key });

describe('per-tenant capacity, work-charged rate limits, failed-auth throttling (memory stores)', () => {
  let server: ServerProcess;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'veil-capacity-e2e-'));
    const file = join(dir, 'veil.yaml');
    writeFileSync(
      file,
      stringify({
        auth: {
          mode: 'api_key',
          api_keys: [
            { key: KEY_A, identity: 'app-a', tenant_id: 'tenant-a', scopes: SCOPES },
            { key: KEY_B, identity: 'app-b', tenant_id: 'tenant-b', scopes: SCOPES },
            { key: KEY_C, identity: 'app-c', tenant_id: 'tenant-c', scopes: SCOPES },
          ],
          failure_limit: { burst: 5, per_minute: 6 },
        },
        session: { ttl_seconds: 4, clock_skew_seconds: 1 },
        idempotency: { ttl_seconds: 3600 },
        storage: { memory_limits: { revocations: 1000, idempotency_records: 1000 }, tenant_quotas: { revocations: 40, idempotency_records: 5 } },
        rate_limit: { enabled: true, requests_per_second: 1000, burst_size: 100000, bytes_per_unit: 4096, entities_per_unit: 10 },
        tenants: { 'tenant-c': { rate_limit: { requests_per_second: 0.01, burst_size: 40 } } },
      }),
    );
    server = await startVeil({ env: { VEIL_ALLOW_EPHEMERAL_AUDIT: '1', VEIL_SESSION_SECRET: '3c'.repeat(32) }, args: ['--config', file] });
  });
  afterAll(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('says once, at startup, that memory revocations do not survive a restart and how to keep them', () => {
    const lines = server.logs.filter((line) => line.includes('state_not_durable'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/REVOCATIONS ARE NOT DURABLE/);
    expect(lines[0]).toMatch(/sqlite/);
  });

  it('a tenant filling its share of the revocation store gets its own 429; another tenant revokes; the room comes back as revocations expire', async () => {
    const entities = Array.from({ length: 40 }, (_, index) => ({ entity_type: 'email', value: `fill-${index}@tenant-a.example` }));
    expect((await call(server.url, 'POST', '/v1/revoke/bulk', { entities }, as(KEY_A))).status).toBe(200);
    const refused = await call(server.url, 'POST', '/v1/revoke', { entity_type: 'email', value: ERASED }, as(KEY_A));
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('VEIL_QUOTA_EXCEEDED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(RETENTION_SECONDS);
    // Tenant B is not affected by A's full share.
    const other = await call(server.url, 'POST', '/v1/revoke', { entity_type: 'email', value: ERASED }, as(KEY_B));
    expect(other.status).toBe(200);
    // A's revocations expire after the longest blob lifetime plus the skew allowance.
    const later = await until(async () => {
      const answer = await call(server.url, 'POST', '/v1/revoke', { entity_type: 'email', value: ERASED }, as(KEY_A));
      return answer.status === 200 ? answer : undefined;
    }, 20_000);
    expect(later.body).toEqual({ revoked: 1, scope: 'tenant' });
    expect(await settledLogs(server)).not.toContain(ERASED);
  });

  it('a tenant filling its share of the idempotency store gets its own 429; another tenant and its own replays go on', async () => {
    const idempotent = (key: string, idem: string) => call(server.url, 'POST', '/v1/transform', { input: `note ${idem}` }, { ...as(key), 'idempotency-key': idem });
    for (let index = 0; index < 5; index += 1) expect((await idempotent(KEY_A, `a-${index}`)).status).toBe(200);
    const refused = await idempotent(KEY_A, 'a-5');
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('VEIL_QUOTA_EXCEEDED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3500);
    const replay = await idempotent(KEY_A, 'a-0');
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotency-replayed']).toBe('true');
    for (let index = 0; index < 5; index += 1) expect((await idempotent(KEY_B, `b-${index}`)).status).toBe(200);
    const revoke = await call(server.url, 'POST', '/v1/revoke', { entity_type: 'email', value: 'b-idem@example.org' }, { ...as(KEY_B), 'idempotency-key': 'b-revoke' });
    expect(revoke.status).toBe(429);
    expect(revoke.body.code).toBe('VEIL_QUOTA_EXCEEDED');
  });

  it('charges work, not requests: batch items, body bytes, entities found, RAG chunks', async () => {
    // tenant-c: 40 units, refilling one unit per 100 s.
    const items = Array.from({ length: 10 }, (_, index) => ({ text: `item ${index}` }));
    expect((await call(server.url, 'POST', '/v1/batch/detect', { items }, as(KEY_C))).status).toBe(200); // 10 units
    expect((await call(server.url, 'POST', '/v1/detect', { input: 'z'.repeat(40_000) }, as(KEY_C))).status).toBe(200); // 10
    const emails = Array.from({ length: 30 }, (_, index) => `w${index}@work.example`).join(' ');
    expect((await call(server.url, 'POST', '/v1/transform', { input: emails }, as(KEY_C))).status).toBe(200); // 1 + 3 after
    const context = await call(server.url, 'POST', '/v1/rag/context', { chunks: ['1', '2', '3', '4', '5', '6', '7', '8'], session_state: 'v1.x.AAAA' }, as(KEY_C)); // 8
    expect(context.status).not.toBe(429);
    let admitted = 0;
    for (let index = 0; index < 20; index += 1) {
      const answer = await call(server.url, 'POST', '/v1/detect', { input: 'x' }, as(KEY_C));
      if (answer.status !== 200) {
        expect(answer.status).toBe(429);
        expect(Number(answer.headers['retry-after'])).toBeGreaterThan(1);
        break;
      }
      admitted += 1;
    }
    expect(admitted).toBe(40 - 10 - 10 - 4 - 8);
    // Another tenant's bucket is its own.
    expect((await call(server.url, 'POST', '/v1/detect', { input: 'x' }, as(KEY_B))).status).toBe(200);
  });

  it('throttles failed authentication per source address', async () => {
    const guesser = '127.0.0.3';
    for (let index = 0; index < 5; index += 1) {
      expect((await call(server.url, 'POST', '/v1/detect', { input: 'x' }, as(`guess-${index}-0123456789abcdef`), guesser)).status).toBe(401);
    }
    const refused = await call(server.url, 'POST', '/v1/detect', { input: 'x' }, as(KEY_A), guesser);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('VEIL_RATE_LIMITED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(10);
    expect((await call(server.url, 'POST', '/v1/detect', { input: 'x' }, as(KEY_A), '127.0.0.4')).status).toBe(200);
    expect((await call(server.url, 'GET', '/livez', undefined, {}, guesser)).status).toBe(200);
    expect(await settledLogs(server)).not.toContain('guess-0-0123456789abcdef');
  });
});

describe('make run keeps revocations durable; a crashed worker is replaced', () => {
  let dir: string;
  const children: ChildProcess[] = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'veil-makerun-e2e-'));
  });
  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  /** scripts/run.sh (regex detectors only) on a free port, with its data directory in `dir`. */
  async function makeRun(): Promise<{ url: string; child: ChildProcess; logs: string[] }> {
    const child = spawn(join(ROOT, 'scripts/run.sh'), [], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', NER: '0', VEIL_PORT: '0', VEIL_HOST: '127.0.0.1', VEIL_LOG_FORMAT: 'json', DATA_DIR: join(dir, 'data'), VEIL_SERVER__WORKERS: '2' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    const logs: string[] = [];
    const url = await new Promise<string>((resolve, reject) => {
      let buffered = '';
      const timer = setTimeout(() => reject(new Error(`run.sh did not start:\n${logs.join('\n')}`)), 60_000);
      child.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        for (const line of lines) {
          logs.push(line);
          if (line.includes('veil server listening')) {
            clearTimeout(timer);
            resolve((JSON.parse(line) as { url: string }).url);
          }
        }
      });
      child.stderr.on('data', (chunk: Buffer) => logs.push(chunk.toString('utf8')));
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`run.sh exited with ${String(code)}:\n${logs.join('\n')}`));
      });
    });
    return { url, child, logs };
  }

  /** The pids /v1/diagnostics lists, and those of them that are ready (listening). */
  async function workers(url: string): Promise<{ all: number[]; ready: number[] }> {
    const diagnostics = await fresh(url, 'GET', '/v1/diagnostics');
    const listed = (diagnostics.json?.workers ?? []) as { pid: number; state?: string }[];
    return { all: listed.map((worker) => worker.pid), ready: listed.filter((worker) => worker.state === 'ready').map((worker) => worker.pid) };
  }

  /**
   * Kill one worker with `signal` and wait until the primary has replaced it. The replacement is
   * listed (state `starting`) as soon as it is forked; how long it takes to load is the machine's
   * (a CPU-starved CI run measured 40-100 s for a start that takes 1-2 s alone), so the wait for
   * it to be ready is long and separate.
   */
  async function crashOne(url: string, signal: NodeJS.Signals): Promise<void> {
    const before = await until(async () => {
      const { all, ready } = await workers(url);
      return ready.length === 2 ? all : undefined;
    }, 150_000);
    process.kill(before[0]!, signal);
    await until(async () => {
      const { all } = await workers(url);
      return all.length === 2 && !all.includes(before[0]!) ? all : undefined;
    }, 60_000);
    await until(async () => {
      const { ready } = await workers(url);
      return ready.length === 2 && !ready.includes(before[0]!) ? ready : undefined;
    }, 150_000);
  }

  async function restored(url: string, blob: { safe_text: string; session_state: string }): Promise<string> {
    const answer = await fresh(url, 'POST', '/v1/rehydrate', { output: blob.safe_text, session_state: blob.session_state });
    expect(answer.status).toBe(200);
    return answer.json.restored_text as string;
  }

  it('keeps an erasure through a SIGKILLed worker, a crashed (SIGABRT) worker and a full restart', async () => {
    const first = await makeRun();
    expect(first.logs.join('\n')).toMatch(/make run: revocations, replay counters and idempotency records are kept in .*veil\.db/);
    expect(first.logs.some((line) => line.includes('state_not_durable'))).toBe(false);
    const made = await fresh(first.url, 'POST', '/v1/transform', { input: `mail ${ERASED} and kept.e2e-capacity@example.org` });
    expect(made.status).toBe(200);
    const blob = { safe_text: made.json.safe_text as string, session_state: made.json.session_state as string };
    expect((await fresh(first.url, 'POST', '/v1/revoke', { entity_type: 'email', value: ERASED })).status).toBe(200);
    expect(await restored(first.url, blob)).toBe('mail [DELETED] and kept.e2e-capacity@example.org');

    await crashOne(first.url, 'SIGKILL');
    await crashOne(first.url, 'SIGABRT');
    expect(first.logs.filter((line) => line.includes('worker exited unexpectedly; restarting'))).toHaveLength(2);
    // Whichever worker answers (new or old), the erasure holds.
    for (let index = 0; index < 4; index += 1) expect(await restored(first.url, blob)).toBe('mail [DELETED] and kept.e2e-capacity@example.org');

    const exited = new Promise((resolve) => first.child.once('exit', resolve));
    first.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(existsSync(join(dir, 'data', 'veil.db'))).toBe(true);
    // The secrets beside it: private to the user, in a private directory, and never committed
    // from a checkout's default data directory.
    expect(statSync(join(dir, 'data', 'veil.db.keys')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'data')).mode & 0o777).toBe(0o700);
    expect(execFileSync('git', ['check-ignore', '--no-index', '.veil-data/veil.db', '.veil-data/veil.db.keys'], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n')).toHaveLength(2);

    // A full restart: the blob still opens (secrets kept beside the database) and the value stays erased.
    const second = await makeRun();
    expect(await restored(second.url, blob)).toBe('mail [DELETED] and kept.e2e-capacity@example.org');
    const stopped = new Promise((resolve) => second.child.once('exit', resolve));
    second.child.kill('SIGTERM');
    expect(await stopped).toBe(0);
  }, 600_000);
});
