// The hot path's shortcuts against the real `veil serve` process (issue 20, session 12): a
// rehydrate computes no revocation digests while the memory store holds no revocation for the
// caller (usecases/rehydrate.ts revokedIn), so every restore path must still erase a value
// revoked after its session was first restored: the small body restored on the event loop, a
// large one restored on workers, the SSE stream, in two tenants, one of which revokes.
// Session 13: the long inline transform answer, built as one Buffer in two pieces
// (routes/answer-json.ts transformAnswerBytes), is the route schema serializer's bytes.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { textWithEntities } from '../server/src/bench/attacks.js';
import { TransformResponseSchema } from '../server/src/routes/schemas.js';
import { postJson, settledLogs, startVeil, type ServerProcess } from './support/server.js';

const KEYS = { a: 'e2e-hot-tenant-a-0123456789ab', b: 'e2e-hot-tenant-b-0123456789ab' } as const;
const ERASED = 'erase.hot-e2e@example.org';
const KEPT = 'kept.hot-e2e@example.org';
/** Long enough that transform and rehydrate leave the event loop (64 KiB offload threshold). */
const FILLER = ' and then nothing of note happened in this paragraph.'.repeat(1500);

function configFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'veil-hot-e2e-'));
  const file = join(dir, 'veil.yaml');
  const scopes = ['transform', 'rehydrate', 'revoke'];
  writeFileSync(
    file,
    stringify({
      auth: {
        mode: 'api_key',
        api_keys: [
          { key: KEYS.a, identity: 'hot-a', tenant_id: 'hot-a', scopes },
          { key: KEYS.b, identity: 'hot-b', tenant_id: 'hot-b', scopes },
        ],
      },
    }),
  );
  return file;
}

let server: ServerProcess;

beforeAll(async () => {
  server = await startVeil({ env: { VEIL_SESSION_SECRET: '7a'.repeat(32), VEIL_ALLOW_EPHEMERAL_AUDIT: '1', VEIL_CONFIG: configFile() } });
});

afterAll(async () => {
  await server.stop();
});

type Key = keyof typeof KEYS;

async function tokenize(key: Key, input: string): Promise<{ safe: string; state: string }> {
  const done = await postJson(`${server.url}/v1/transform`, { input }, { 'x-api-key': KEYS[key] });
  expect(done.status, done.text).toBe(200);
  return { safe: done.body.safe_text as string, state: done.body.session_state as string };
}

async function restored(key: Key, session: { safe: string; state: string }): Promise<string> {
  const done = await postJson(`${server.url}/v1/rehydrate`, { output: session.safe, session_state: session.state }, { 'x-api-key': KEYS[key] });
  expect(done.status, done.text).toBe(200);
  return done.body.restored_text as string;
}

async function streamed(key: Key, session: { safe: string; state: string }): Promise<string> {
  const response = await fetch(`${server.url}/v1/rehydrate/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEYS[key] },
    body: JSON.stringify({ output: session.safe, session_state: session.state }),
  });
  expect(response.status).toBe(200);
  const frames = (await response.text())
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => JSON.parse(block.slice(6)) as { restored_text?: string });
  return frames.map((frame) => frame.restored_text ?? '').join('');
}

describe('restores after a revoke, when the earlier restores computed no digest', () => {
  it('erases on every restore path of the revoking tenant and leaves the other tenant alone', async () => {
    const small = `mail ${ERASED} or ${KEPT}`;
    const large = `mail ${ERASED} or ${KEPT}${FILLER}`;
    const sessions = {
      a: { small: await tokenize('a', small), large: await tokenize('a', large) },
      b: { small: await tokenize('b', small), large: await tokenize('b', large) },
    };
    // Before any revocation: everything restores (no digest is computed on these).
    for (const key of ['a', 'b'] as const) {
      expect(await restored(key, sessions[key].small)).toBe(small);
      expect(await restored(key, sessions[key].large)).toBe(large);
      expect(await streamed(key, sessions[key].small)).toBe(small);
    }
    const revoke = await postJson(`${server.url}/v1/revoke`, { entity_type: 'email', value: ERASED }, { 'x-api-key': KEYS.a });
    expect(revoke.status, revoke.text).toBe(200);
    // Tenant a: the same blobs now restore the value as [DELETED], on every path.
    const erasedSmall = small.replace(ERASED, '[DELETED]');
    expect(await restored('a', sessions.a.small)).toBe(erasedSmall);
    expect(await restored('a', sessions.a.large)).toBe(large.replace(ERASED, '[DELETED]'));
    expect(await streamed('a', sessions.a.small)).toBe(erasedSmall);
    // Tenant b's revocations are its own: still restored.
    expect(await restored('b', sessions.b.small)).toBe(small);
    expect(await restored('b', sessions.b.large)).toBe(large);
    expect(await streamed('b', sessions.b.small)).toBe(small);
  });

  it('logged neither value', async () => {
    const logs = await settledLogs(server);
    expect(logs).not.toContain(ERASED);
    expect(logs).not.toContain(KEPT);
  });
});

describe('the answer of a transform past 64 K units, answered inline (session 13)', () => {
  // The route's own serializer: Fastify's compiler with the /v1/transform answer schema.
  const serialize = SerializerSelector()({}, {})({ schema: TransformResponseSchema, method: 'POST', url: '/v1/transform', httpStatus: '200' }) as (value: unknown) => string;
  const odd = 'quote " backslash \\ tab \t controls \u0001\u001f lone \ud800 pair 😀 é ';
  // The ratio benchmark's 100 KB body, and a long text with escapes and non-ASCII at both ends
  // (both inline by their cost).
  const inputs = [textWithEntities(100 * 1024, 180), `${odd}${textWithEntities(80 * 1024, 400)}${odd}`];

  it('is the schema serializer\'s output, its content-length its byte length, and its session restores every token', async () => {
    for (const input of inputs) {
      const response = await fetch(`${server.url}/v1/transform`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': KEYS.a },
        body: JSON.stringify({ input }),
      });
      expect(response.status).toBe(200);
      const raw = Buffer.from(await response.arrayBuffer());
      expect(Number(response.headers.get('content-length'))).toBe(raw.length);
      const text = raw.toString('utf8');
      const answer = JSON.parse(text) as { safe_text: string; session_state: string };
      expect(answer.safe_text.length).toBeGreaterThan(64 * 1024);
      // A boolean, not toBe on the strings: a difference would print two 190 KB bodies.
      expect(text === serialize(answer)).toBe(true);
      // Its session opens and restores every token (the default policy restores URLs masked).
      const back = await restored('a', { safe: answer.safe_text, state: answer.session_state });
      expect(back.length).toBeGreaterThan(64 * 1024);
      expect(/\{\{[a-z_]+:/.test(back)).toBe(false);
    }
  });
});
