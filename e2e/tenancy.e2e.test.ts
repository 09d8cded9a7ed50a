// Tenants, roles and channels against the real `veil serve` process in api_key mode (issue 15,
// items 9 to 13): RAG clearance from the credential, caller-dependent policy rules re-resolved
// for the rehydrating caller, idempotency records per (tenant, identity), admin scoped to its
// tenant, and no raw value restored into a URL or markup context. One server, several keys.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { postJson, startVeil, type ServerProcess } from './support/server.js';

const dir = mkdtempSync(join(tmpdir(), 'veil-tenancy-e2e-'));
const ENV = { VEIL_SESSION_SECRET: '6b'.repeat(32), VEIL_ALLOW_EPHEMERAL_AUDIT: '1' };

/** One key per caller the scenarios need; keys are at least 16 characters. */
const KEYS = {
  acmeA: 'e2e-acme-a-0123456789abcdef',
  acmeB: 'e2e-acme-b-0123456789abcdef',
  platformOne: 'e2e-platform-1-0123456789ab',
  platformTwo: 'e2e-platform-2-0123456789ab',
} as const;

const WORK_SCOPES = ['transform', 'rehydrate', 'rag', 'revoke', 'session'];

function configFile(): string {
  const file = join(dir, 'veil.yaml');
  writeFileSync(
    file,
    stringify({
      auth: {
        mode: 'api_key',
        api_keys: [
          { key: KEYS.acmeA, identity: 'acme-app-a', tenant_id: 'acme', scopes: WORK_SCOPES },
          { key: KEYS.acmeB, identity: 'acme-app-b', tenant_id: 'acme', scopes: WORK_SCOPES },
          { key: KEYS.platformOne, identity: 'platform-1', scopes: ['transform', 'rehydrate'] },
          { key: KEYS.platformTwo, identity: 'platform-2', scopes: ['transform', 'rehydrate'] },
        ],
      },
    }),
  );
  return file;
}

let server: ServerProcess;
beforeAll(async () => {
  server = await startVeil({ env: ENV, args: ['--config', configFile()] });
});
afterAll(async () => {
  await server.stop();
});

function as(key: string, extra: Record<string, string> = {}): Record<string, string> {
  return { 'x-api-key': key, ...extra };
}

async function postWithHeaders(path: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; replayed: string | null; body: any }> {
  const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: response.status, replayed: response.headers.get('idempotency-replayed'), body: await response.json() };
}

describe('idempotency records belong to one (tenant, identity)', () => {
  const EMAIL = 'idem.owner@example.org';

  it('a second identity of the same tenant with the same key runs its own request, never the first one\'s response', async () => {
    const body = { input: `write to ${EMAIL}` };
    const first = await postWithHeaders('/v1/transform', body, as(KEYS.acmeA, { 'idempotency-key': 'order-42' }));
    expect(first.status).toBe(200);
    expect(first.replayed).toBeNull();
    // Same tenant, other identity, same key and body: executes, is not a replay, gets its own session.
    const second = await postWithHeaders('/v1/transform', body, as(KEYS.acmeB, { 'idempotency-key': 'order-42' }));
    expect(second.status).toBe(200);
    expect(second.replayed).toBeNull();
    expect(second.body.session_state).not.toBe(first.body.session_state);
    // Each caller's own retry replays its own response.
    const retryA = await postWithHeaders('/v1/transform', body, as(KEYS.acmeA, { 'idempotency-key': 'order-42' }));
    expect(retryA.replayed).toBe('true');
    expect(retryA.body.session_state).toBe(first.body.session_state);
    const retryB = await postWithHeaders('/v1/transform', body, as(KEYS.acmeB, { 'idempotency-key': 'order-42' }));
    expect(retryB.replayed).toBe('true');
    expect(retryB.body.session_state).toBe(second.body.session_state);
    // A different body under the same key is B's own business, not a reuse of A's key.
    const other = await postWithHeaders('/v1/transform', { input: 'nothing here' }, as(KEYS.acmeB, { 'idempotency-key': 'order-43' }));
    expect(other.status).toBe(200);
    // And B's session works for B.
    const restored = await postJson(`${server.url}/v1/rehydrate`, { output: second.body.safe_text, session_state: second.body.session_state }, as(KEYS.acmeB));
    expect(restored.body.restored_text).toBe(`write to ${EMAIL}`);
  });

  it('two untenanted callers never share records', async () => {
    const body = { input: `cc ${EMAIL}` };
    const first = await postWithHeaders('/v1/transform', body, as(KEYS.platformOne, { 'idempotency-key': 'platform-key' }));
    const second = await postWithHeaders('/v1/transform', body, as(KEYS.platformTwo, { 'idempotency-key': 'platform-key' }));
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.replayed).toBeNull();
    expect(second.body.session_state).not.toBe(first.body.session_state);
  });
});
