// The durable audit trail against the real `veil serve` process (threats.md 15, 17, 22): a few
// requests with the file sink, then `veil audit verify` passes on the file and fails on a copy
// with one flipped byte; and a SIGKILL in the middle of concurrent load loses no acknowledged
// request's event, the file verifies (or reports only a torn tail), and a restart continues it.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { postJson, ROOT, startVeil, VEIL_BIN } from './support/server.js';

const SESSION_SECRET = '3c'.repeat(32);
const AUDIT_KEY = 'd1'.repeat(32);
const CANARY_EMAIL = 'e2e.audit.canary.5521@example.org';

function auditEnv(path: string): Record<string, string> {
  return {
    VEIL_SESSION_SECRET: SESSION_SECRET,
    VEIL_AUDIT__BACKEND: 'file',
    VEIL_AUDIT__PATH: path,
    VEIL_AUDIT__STRICT: 'true',
    VEIL_AUDIT__HMAC_KEY: AUDIT_KEY,
  };
}

function verify(path: string, extra: string[] = []): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [VEIL_BIN, 'audit', 'verify', path, ...extra], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', VEIL_AUDIT__HMAC_KEY: AUDIT_KEY },
    encoding: 'utf8',
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function fingerprint(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 16);
}

function auditEvents(path: string): Record<string, unknown>[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{') && line.endsWith('}'))
    .map((line) => (JSON.parse(line) as { event: Record<string, unknown> }).event);
}

describe('audit file sink (real process)', () => {
  it('records requests in a chain that `veil audit verify` accepts, and rejects a flipped byte', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'veil-e2e-audit-'));
    const path = join(directory, 'audit.log');
    const server = await startVeil({ env: auditEnv(path) });
    try {
      const transformed = await postJson(`${server.url}/v1/transform`, { input: `write to ${CANARY_EMAIL}`, trace_id: 'e2e-trace-1' });
      expect(transformed.status).toBe(200);
      const token = transformed.body.entities[0].token as string;
      expect((await postJson(`${server.url}/v1/rehydrate`, { output: `Hi ${token}`, session_state: transformed.body.session_state })).status).toBe(200);
      expect((await postJson(`${server.url}/v1/detect`, { input: CANARY_EMAIL })).status).toBe(200);
      expect((await postJson(`${server.url}/v1/transform`, { input: CANARY_EMAIL, unknown_field: CANARY_EMAIL })).status).toBe(400);
      const ready = await fetch(`${server.url}/readyz`);
      expect(ready.status).toBe(200);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    const events = auditEvents(path);
    expect(events.map((event) => event.event_type)).toEqual(['audit_started', 'transform', 'rehydrate', 'detect', 'transform']);
    expect(events[1]).toMatchObject({ trace_id: fingerprint('e2e-trace-1'), entity_types: ['email'] });
    expect(events[4]).toMatchObject({ failure_code: 'VEIL_VALIDATION_FAILED', status: 400 });
    expect(readFileSync(path, 'utf8')).not.toContain(CANARY_EMAIL);
    expect(server.logs.join('\n')).not.toContain(CANARY_EMAIL);

    const good = verify(path);
    expect(good.status, good.stderr).toBe(0);
    expect(good.stdout).toMatch(/OK, 5 record\(s\), last seq 5, checkpoint at seq 5/);

    const flipped = join(directory, 'flipped.log');
    const bytes = readFileSync(path);
    const lineStarts = [0, ...[...bytes.entries()].filter(([, byte]) => byte === 0x0a).map(([index]) => index + 1)];
    bytes[lineStarts[2]! + 30] = bytes[lineStarts[2]! + 30]! ^ 0x04;
    writeFileSync(flipped, bytes);
    copyFileSync(`${path}.checkpoint`, `${flipped}.checkpoint`);
    const bad = verify(flipped);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/FAILED at line 3 .*\[record\]/);
  });

  it('loses no acknowledged event on SIGKILL under load, and resumes the chain on restart', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'veil-e2e-audit-kill-'));
    const path = join(directory, 'audit.log');
    const server = await startVeil({ env: auditEnv(path) });
    const acknowledged: string[] = [];
    let stop = false;
    let sent = 0;
    const worker = async (id: number): Promise<void> => {
      for (let index = 0; !stop; index += 1) {
        const trace = `kill-${id}-${index}`;
        sent += 1;
        try {
          const response = await postJson(`${server.url}/v1/transform`, { input: `mail ${CANARY_EMAIL}`, trace_id: trace });
          if (response.status === 200) acknowledged.push(trace);
        } catch {
          return; // the server is gone
        }
      }
    };
    const workers = Array.from({ length: 12 }, (_, id) => worker(id));
    // Kill once a good number of requests were answered, with more in flight.
    const deadline = Date.now() + 15_000;
    while (acknowledged.length < 150 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    server.child.kill('SIGKILL');
    const code = await server.stop();
    stop = true;
    await Promise.all(workers);
    expect(code).toBeNull();
    expect(acknowledged.length).toBeGreaterThanOrEqual(150);
    expect(sent).toBeGreaterThan(acknowledged.length);

    const recorded = new Set(auditEvents(path).map((event) => event.trace_id));
    const missing = acknowledged.filter((trace) => !recorded.has(fingerprint(trace)));
    expect(missing).toEqual([]);
    const afterKill = verify(path);
    // Every write is one append of whole lines, so a SIGKILL (unlike a power loss) leaves no torn
    // tail; if one were there it is reported as such, not as tampering.
    if (afterKill.status !== 0) expect(afterKill.stderr).toMatch(/\[torn\]/);

    // Restart on the same file: the chain continues and verifies.
    const restarted = await startVeil({ env: auditEnv(path) });
    try {
      expect((await postJson(`${restarted.url}/v1/transform`, { input: 'after restart', trace_id: 'after-restart' })).status).toBe(200);
    } finally {
      expect(await restarted.stop()).toBe(0);
    }
    const events = auditEvents(path);
    expect(events.filter((event) => event.event_type === 'audit_started').at(-1)).toMatchObject({ resumed: true });
    expect(events.at(-1)).toMatchObject({ trace_id: fingerprint('after-restart') });
    const final = verify(path);
    expect(final.status, final.stderr).toBe(0);
  });

  it('refuses to start on an audit file that lost records from its end', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'veil-e2e-audit-trunc-'));
    const path = join(directory, 'audit.log');
    const server = await startVeil({ env: auditEnv(path) });
    await postJson(`${server.url}/v1/transform`, { input: 'one' });
    await postJson(`${server.url}/v1/transform`, { input: 'two' });
    expect(await server.stop()).toBe(0);
    const lines = readFileSync(path, 'utf8').split('\n');
    writeFileSync(path, `${lines.slice(0, 2).join('\n')}\n`);
    await expect(startVeil({ env: auditEnv(path), timeoutMs: 10_000 })).rejects.toThrow(/checkpoint records seq 3/);
  });
});
