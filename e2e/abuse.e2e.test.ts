// Abuse protection against the real `veil serve` process (API-key auth, two tenants): per-tenant
// rate limits with 429 and Retry-After, batches charged per item, prompt security stripping
// another session's token so it never restores, the output guard masking a raw value the model
// wrote (also after letters outside the BMP), the metrics counters, and no value in the process log.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { postJson, startVeil, settledLogs, type ServerProcess } from './support/server.js';

const KEY_A = 'e2e-abuse-tenant-a-0123456789';
const KEY_B = 'e2e-abuse-tenant-b-0123456789';
const ADMIN = 'e2e-abuse-admin-0123456789ab';
const ALICE = 'alice.e2e-abuse@corp.example';
const MALLORY = 'mallory.e2e-abuse@evil.example';
const WORK = ['transform', 'rehydrate', 'detect', 'batch'];

let server: ServerProcess;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'veil-abuse-e2e-'));
  const file = join(dir, 'veil.yaml');
  writeFileSync(
    file,
    stringify({
      auth: {
        mode: 'api_key',
        api_keys: [
          { key: KEY_A, identity: 'app-a', tenant_id: 'tenant-a', scopes: WORK },
          { key: KEY_B, identity: 'app-b', tenant_id: 'tenant-b', scopes: WORK },
          { key: ADMIN, identity: 'ops', scopes: ['admin'] },
        ],
      },
      rate_limit: { enabled: true, requests_per_second: 0.5, burst_size: 100 },
      tenants: { 'tenant-b': { rate_limit: { burst_size: 4, requests_per_second: 0.01 } } },
    }),
  );
  server = await startVeil({ env: { VEIL_SESSION_SECRET: '6d'.repeat(32), VEIL_ALLOW_EPHEMERAL_AUDIT: '1' }, args: ['--config', file] });
});
afterAll(async () => {
  await server.stop();
});

const as = (key: string): Record<string, string> => ({ 'x-api-key': key });

describe('abuse protection (real process)', () => {
  it("prompt security strips another session's token; the output guard masks what the model made up", async () => {
    const victim = await postJson(`${server.url}/v1/transform`, { input: `Write to ${ALICE}.` }, as(KEY_A));
    expect(victim.status).toBe(200);
    const token = victim.body.entities[0].token as string;
    const attack = await postJson(`${server.url}/v1/transform`, { input: `Forward ${token} please` }, as(KEY_A));
    expect(attack.status).toBe(200);
    expect(attack.body.safe_text).not.toContain(token);
    expect(attack.body.prompt_security).toEqual({ triggered: true, action: 'strip', findings: [{ kind: 'token', count: 1 }] });
    const restored = await postJson(`${server.url}/v1/rehydrate`, { output: `${token} or ${MALLORY}`, session_state: attack.body.session_state }, as(KEY_A));
    expect(restored.status).toBe(200);
    expect(restored.body.restored_text).not.toContain(ALICE);
    expect(restored.body.restored_text).toContain('[REDACTED:email]');
    expect(restored.body.output_guard.triggered).toBe(true);
    const metrics = await fetch(`${server.url}/metrics`, { headers: as(ADMIN) });
    const text = await metrics.text();
    expect(text).toMatch(/veil_prompt_security_triggers_total 1\b/);
    expect(text).toMatch(/veil_output_guard_triggers_total 1\b/);
    const logs = await settledLogs(server);
    expect(logs).not.toContain(ALICE);
    expect(logs).not.toContain(MALLORY);
  });

  it('limits per tenant with 429 and Retry-After; batches pay per item; tenants stay apart', async () => {
    // tenant-b: burst 4, slow refill. A batch of 3 items costs 3, leaving one request.
    const batch = await postJson(`${server.url}/v1/batch/detect`, { items: [{ text: 'a' }, { text: 'b' }, { text: 'c' }] }, as(KEY_B));
    expect(batch.status).toBe(200);
    expect((await postJson(`${server.url}/v1/detect`, { input: 'x' }, as(KEY_B))).status).toBe(200);
    const response = await fetch(`${server.url}/v1/detect`, { method: 'POST', headers: { 'content-type': 'application/json', ...as(KEY_B) }, body: '{"input":"x"}' });
    expect(response.status).toBe(429);
    // 0.01 units per second: about 100 s until the next unit (whole seconds, rounded up).
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(90);
    expect(response.headers.get('retry-after')).toMatch(/^[0-9]+$/);
    expect(((await response.json()) as { code: string }).code).toBe('VEIL_RATE_LIMITED');
    // tenant-a has its own (large) bucket.
    expect((await postJson(`${server.url}/v1/detect`, { input: 'x' }, as(KEY_A))).status).toBe(200);
    const live = await fetch(`${server.url}/livez`);
    expect(live.status).toBe(200);
    const metrics = await (await fetch(`${server.url}/metrics`, { headers: as(ADMIN) })).text();
    expect(metrics).toMatch(/veil_rate_limit_rejections_total 1\b/);
  });

  it("the output guard masks the session's own raw value written after letters outside the BMP (two UTF-16 units each)", async () => {
    // A value only the session knows (a caller's pattern; no built-in detector finds it), so only
    // the guard's known-values search can catch it. Before session 7 its positions shifted by one
    // per such letter and the value went out raw.
    const code = 'ZQX-88213-KL';
    const pattern = [{ entity_type: 'staff_code', pattern: 'ZQX-[0-9]{5}-[A-Z]{2}' }];
    const made = await postJson(`${server.url}/v1/transform`, { input: `Owner code ${code} is on file.`, custom_patterns: pattern }, as(KEY_A));
    expect(made.status).toBe(200);
    expect(made.body.safe_text).not.toContain(code);
    const output = `\u{20000}\u{20001} 注: ${code} again, \u{1D49C}\u{20002} ${code}.`;
    const restored = await postJson(`${server.url}/v1/rehydrate`, { output, session_state: made.body.session_state }, as(KEY_A));
    expect(restored.status).toBe(200);
    expect(restored.body.restored_text).toBe('\u{20000}\u{20001} 注: [REDACTED:custom:staff_code] again, \u{1D49C}\u{20002} [REDACTED:custom:staff_code].');
    expect(await settledLogs(server)).not.toContain(code);
  });
});
