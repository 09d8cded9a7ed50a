// The NER detector modes through HTTP, against a stub sidecar on loopback: merged detection,
// fallback with a warning in `both`, failure in `advanced`, timeouts, the policy's
// required_for failing closed, readiness, and the regex/NER overlap rule.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import { buildTestApp, post } from '../../test/support/harness.js';
import { TransformResponseSchema } from './schemas.js';

/** The /v1/transform answer schema's own serializer (Fastify's compiler). */
const serializeAnswer = SerializerSelector()({}, {})({ schema: TransformResponseSchema, method: 'POST', url: '/v1/transform', httpStatus: '200' }) as (value: unknown) => string;

const NAME = 'Jonathan Canary';
const TEXT = `Please call ${NAME} at jane.doe@example.com about card 4111 1111 1111 1111.`;

interface Stub {
  url: string;
  calls: number;
  /** Every text the stub was sent. */
  texts: string[];
  mode: 'ok' | 'error' | 'slow' | 'not_ready';
  close(): Promise<void>;
}

function wellFormed(text: string): boolean {
  try {
    encodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

/** Every NAME (in code points) and, to test overlaps, the card number claimed as an organization. */
function stubEntities(text: string): { type: string; start: number; end: number; confidence: number; label: string }[] {
  const entities = [];
  for (let at = text.indexOf(NAME); at >= 0; at = text.indexOf(NAME, at + 1)) {
    const start = [...text.slice(0, at)].length;
    entities.push({ type: 'person', start, end: start + [...NAME].length, confidence: 0.85, label: 'PERSON' });
  }
  const card = text.indexOf('4111');
  if (card >= 0) {
    const cardStart = [...text.slice(0, card)].length;
    entities.push({ type: 'organization', start: cardStart, end: cardStart + 9, confidence: 0.85, label: 'ORG' });
  }
  return entities.sort((a, b) => a.start - b.start);
}

async function startStub(): Promise<Stub> {
  const stub: Stub = { url: '', calls: 0, texts: [], mode: 'ok', close: () => Promise.resolve() };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (request.url === '/readyz') {
        response.writeHead(stub.mode === 'not_ready' ? 503 : 200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ status: stub.mode === 'not_ready' ? 'not_ready' : 'ready', backend: 'stub' }));
        return;
      }
      stub.calls += 1;
      if (request.headers['x-detector-api-key'] !== 'k'.repeat(32)) {
        response.writeHead(401).end('{}');
        return;
      }
      if (stub.mode === 'error') {
        response.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"boom"}');
        return;
      }
      const parsed = JSON.parse(body) as { text?: string; items?: { text: string }[] };
      const texts = parsed.items !== undefined ? parsed.items.map((item) => item.text) : [parsed.text ?? ''];
      stub.texts.push(...texts);
      // As the real sidecar: text that is not well-formed Unicode is refused.
      if (texts.some((text) => !wellFormed(text))) {
        response.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"text: must be valid Unicode"}');
        return;
      }
      const results = texts.map((text) => ({ entities: stubEntities(text), degraded: false }));
      const answer = parsed.items !== undefined ? { results } : results[0];
      const reply = () => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      if (stub.mode === 'slow') setTimeout(reply, 1500);
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stub.close = () => new Promise((resolve) => server.close(() => resolve()));
  return stub;
}

/** A loopback port nothing listens on (connections are refused). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let stub: Stub;
beforeAll(async () => {
  stub = await startStub();
});
afterAll(async () => {
  await stub.close();
});

function nerApp(mode: 'both' | 'advanced', extra: Record<string, unknown> = {}, url = stub.url) {
  return buildTestApp({ overrides: { detector: { mode, advanced_url: url, api_key: 'k'.repeat(32), timeout_secs: 1 }, ...extra } });
}

describe('detector modes', () => {
  it('merges NER names with regex matches; checksum-validated matches win overlaps', async () => {
    stub.mode = 'ok';
    const app = await nerApp('both');
    try {
      const transformed = await post(app.app, '/v1/transform', { input: TEXT });
      expect(transformed.status, JSON.stringify(transformed.body)).toBe(200);
      expect(transformed.body.detector_mode).toBe('builtin_and_ner');
      expect(transformed.body.warnings).toBeUndefined();
      expect(transformed.body.entities.map((entity: any) => [entity.type, entity.detector])).toEqual([
        ['person', 'python_ner'],
        ['email', 'builtin_regex'],
        ['credit_card', 'builtin_regex'],
      ]);
      expect(transformed.body.safe_text).not.toContain('Canary');
      const restored = await post(app.app, '/v1/rehydrate', { output: transformed.body.safe_text, session_state: transformed.body.session_state });
      expect(restored.body.restored_text).toBe(TEXT);
      const detected = await post(app.app, '/v1/detect', { input: TEXT });
      expect(detected.body.stats.detector_mode).toBe('builtin_and_ner');
      expect(detected.body.stats.detectors_used).toEqual(['builtin_regex', 'python_ner']);
      const nerOnly = await post(app.app, '/v1/detect', { input: TEXT, detectors: ['python_ner'] });
      expect(nerOnly.body.entities.map((entity: any) => entity.type)).toEqual(['person', 'organization']);
      expect(nerOnly.body.stats.detector_mode).toBe('python_ner');
      const health = (await app.app.inject({ method: 'GET', url: '/v1/health' })).json();
      expect(health.components.detector).toEqual({ status: 'healthy', message: 'builtin_and_ner' });
      expect((await app.app.inject({ method: 'GET', url: '/v1/capabilities' })).json().ner_active).toBe(true);
      expect(app.logs.text()).not.toContain('Canary');
    } finally {
      await app.close();
    }
  });

  it('falls back to regex with a warning in both mode, and fails in advanced mode', async () => {
    stub.mode = 'error';
    const both = await nerApp('both');
    const advanced = await nerApp('advanced');
    try {
      const fallback = await post(both.app, '/v1/transform', { input: TEXT });
      expect(fallback.status).toBe(200);
      expect(fallback.body.detector_mode).toBe('builtin_regex');
      // The warning and the log name the cause; capabilities and health say NER is not answering.
      expect(fallback.body.warnings[0]).toMatch(/the NER sidecar answered with an error \(HTTP 500\)/);
      expect(both.logs.text()).toMatch(/"event":"ner_unavailable","reason":"error_status"/);
      expect((await both.app.inject({ method: 'GET', url: '/v1/capabilities' })).json().ner_active).toBe(false);
      const health = (await both.app.inject({ method: 'GET', url: '/v1/health' })).json();
      expect(health.components.detector).toEqual({
        status: 'healthy',
        message: 'builtin_and_ner; the NER sidecar is not answering: the NER sidecar answered with an error (HTTP 500)',
      });
      const failed = await post(advanced.app, '/v1/transform', { input: TEXT });
      expect(failed.status).toBe(502);
      expect(failed.body.code).toBe('VEIL_DETECTION_FAILED');
      expect(JSON.stringify(failed.body)).not.toContain('Canary');
      stub.mode = 'slow';
      const slow = await post(advanced.app, '/v1/transform', { input: TEXT });
      expect(slow.status).toBe(504);
      expect(slow.body.code).toBe('VEIL_DETECTION_FAILED');
      expect((await post(both.app, '/v1/transform', { input: TEXT, detectors: ['python_ner'] })).status).toBe(504);
      const timedOut = await post(both.app, '/v1/transform', { input: TEXT });
      expect(timedOut.body.warnings[0]).toMatch(/the NER sidecar did not answer within 1 s \(timeout\)/);
      expect((await advanced.app.inject({ method: 'GET', url: '/v1/health' })).json().components.detector.status).toBe('unhealthy');
      stub.mode = 'ok';
      // Answering again: the next detect call says so.
      expect((await post(both.app, '/v1/transform', { input: TEXT })).body.detector_mode).toBe('builtin_and_ner');
      expect((await both.app.inject({ method: 'GET', url: '/v1/capabilities' })).json().ner_active).toBe(true);
    } finally {
      stub.mode = 'ok';
      await Promise.all([both.close(), advanced.close()]);
    }
  });

  it('reports readiness from the sidecar and stays healthy without it', async () => {
    const down = await nerApp('both', {}, `http://127.0.0.1:${await closedPort()}`);
    try {
      expect((await down.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
      const health = (await down.app.inject({ method: 'GET', url: '/v1/health' })).json();
      expect(health.status).toBe('healthy');
      expect(health.components.detector.message).toBe('builtin_and_ner; the NER sidecar is not answering: the NER sidecar could not be reached (ECONNREFUSED)');
      expect((await down.app.inject({ method: 'GET', url: '/v1/capabilities' })).json().ner_active).toBe(false);
      const transformed = await post(down.app, '/v1/transform', { input: TEXT });
      expect(transformed.status).toBe(200);
      expect(transformed.body.warnings[0]).toMatch(/the NER sidecar could not be reached \(ECONNREFUSED\)/);
    } finally {
      await down.close();
    }
    stub.mode = 'not_ready';
    const app = await nerApp('both');
    try {
      expect((await app.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
      stub.mode = 'ok';
      expect((await app.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('fails closed when the policy requires NER for a type and NER does not run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'veil-ner-pol-'));
    writeFileSync(
      join(dir, 'names.yaml'),
      ['name: names', 'version: "1"', 'rules:', '  - name: all', '    match: {}', '    action: tokenize', 'detection: {ner_labels: [person], required_for: [person]}'].join('\n'),
    );
    const builtin = await buildTestApp({ overrides: { policy: { directory: dir } } });
    stub.mode = 'error';
    const both = await nerApp('both', { policy: { directory: dir } });
    try {
      const refused = await post(builtin.app, '/v1/transform', { input: TEXT });
      expect(refused.status).toBe(502);
      expect(refused.body.code).toBe('VEIL_DETECTION_FAILED');
      const noFallback = await post(both.app, '/v1/transform', { input: TEXT });
      expect(noFallback.status).toBe(502);
      stub.mode = 'ok';
      const labelled = await post(both.app, '/v1/transform', { input: TEXT });
      expect(labelled.status).toBe(200);
      // ner_labels [person]: the stub's organization span is dropped.
      expect(labelled.body.entities.map((entity: any) => entity.type)).toEqual(['person', 'email', 'credit_card']);
    } finally {
      stub.mode = 'ok';
      await Promise.all([builtin.close(), both.close()]);
    }
  });

  it('exposes entity metadata only as the policy allows', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'veil-meta-pol-'));
    const policy = (expose: string) =>
      ['name: meta', 'version: "1"', 'rules:', '  - name: all', '    match: {}', '    action: tokenize', `metadata_policy: {${expose}roles: [patient]}`].join('\n');
    writeFileSync(join(dir, 'meta.yaml'), policy('expose_gender: true, expose_formality: true, expose_role: true, expose_belongs_to: true, expose_language: true, '));
    const hidden = mkdtempSync(join(tmpdir(), 'veil-meta-off-'));
    writeFileSync(join(hidden, 'meta.yaml'), policy(''));
    stub.mode = 'ok';
    const open = await nerApp('both', { policy: { directory: dir } });
    const closed = await nerApp('both', { policy: { directory: hidden } });
    const input = `Dear Mrs ${NAME}, our patient, reach her at jane.doe@example.com please.`;
    try {
      const shown = await post(open.app, '/v1/transform', { input, language: 'en' });
      expect(shown.status, JSON.stringify(shown.body)).toBe(200);
      const [person, email] = shown.body.entities;
      expect(person).toMatchObject({ type: 'person', gender: 'female', formality: 'formal', role: 'patient', language: 'en' });
      expect(email).toMatchObject({ type: 'email', belongs_to: person.token });
      expect(shown.body.entity_context.find((item: any) => item.type === 'person')).toMatchObject({ gender: 'female' });
      expect(JSON.stringify(shown.body.entities)).not.toContain('Canary');
      // The answer with metadata is written as the schema serializer writes it (routes/answer-json.ts).
      const raw = await open.app.inject({ method: 'POST', url: '/v1/transform', payload: { input, language: 'en' } });
      expect(raw.body).toBe(serializeAnswer(JSON.parse(raw.body)));
      const plain = await post(closed.app, '/v1/transform', { input, language: 'en' });
      for (const entity of plain.body.entities) {
        for (const field of ['gender', 'formality', 'role', 'belongs_to', 'language']) expect(entity[field]).toBeUndefined();
      }
    } finally {
      await Promise.all([open.close(), closed.close()]);
    }
  });

  it('sends only well-formed text: lone surrogates anywhere keep names detected with exact spans', async () => {
    stub.mode = 'ok';
    stub.texts = [];
    const app = await nerApp('advanced');
    try {
      for (const input of [
        `\ud800${NAME} wrote.`,
        `${NAME}\udc00 wrote.`,
        `Hi \ud83d ${NAME}, mail jane.doe@example.com \udfff`,
        `😀\ud800😀 ${NAME}\ud800`,
      ]) {
        const transformed = await post(app.app, '/v1/transform', { input });
        expect(transformed.status, JSON.stringify(transformed.body)).toBe(200);
        const person = transformed.body.entities.find((entity: any) => entity.type === 'person');
        const start = [...input.slice(0, input.indexOf(NAME))].length;
        expect(person.span).toEqual({ start, end: start + [...NAME].length });
        expect(transformed.body.safe_text).not.toContain('Canary');
        const restored = await post(app.app, '/v1/rehydrate', { output: transformed.body.safe_text, session_state: transformed.body.session_state });
        expect(restored.body.restored_text).toBe(input);
      }
      expect(stub.texts.every(wellFormed)).toBe(true);
    } finally {
      await app.close();
    }
  });

  it('applies NER to every string slot of JSON and chat input, in one batched call', async () => {
    stub.mode = 'ok';
    const app = await nerApp('advanced');
    try {
      const document = { customer: { name: NAME, note: `call ${NAME} today` }, [NAME]: true, id: 42 };
      stub.calls = 0;
      const json = await post(app.app, '/v1/transform', { input_json: document });
      expect(json.status, JSON.stringify(json.body)).toBe(200);
      expect(stub.calls).toBe(1);
      expect(json.body.detector_mode).toBe('builtin_and_ner');
      expect(JSON.stringify(json.body.safe_json)).not.toContain('Canary');
      expect(json.body.entities.filter((entity: any) => entity.type === 'person').map((entity: any) => entity.path).sort()).toEqual([
        '/customer/name',
        '/customer/note',
        expect.stringMatching(/^\/\{\{person:/),
      ].sort());
      const messages = [
        { role: 'system', content: 'You help.' },
        { role: 'user', content: `My name is ${NAME}.` },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: JSON.stringify({ who: NAME }) } }] },
        { role: 'tool', tool_call_id: 'c1', content: `Found ${NAME} in the directory.` },
        { role: 'assistant', content: [{ type: 'text', text: `Hello ${NAME}` }] },
      ];
      const chat = await post(app.app, '/v1/transform', { input_messages: messages });
      expect(chat.status, JSON.stringify(chat.body)).toBe(200);
      expect(JSON.stringify(chat.body.safe_messages)).not.toContain('Canary');
      const tokens = new Set(chat.body.entities.filter((entity: any) => entity.type === 'person').map((entity: any) => entity.token));
      expect(tokens.size).toBe(1); // one allocator: the same name, the same token everywhere
      const restored = await post(app.app, '/v1/rehydrate', { output: JSON.stringify(chat.body.safe_messages), session_state: chat.body.session_state });
      expect(JSON.parse(restored.body.restored_text)).toEqual(messages);
      expect(app.logs.text()).not.toContain('Canary');
    } finally {
      await app.close();
    }
  });

  it('fails closed for JSON and chat when NER is required and unavailable, and falls back with the cause otherwise', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'veil-ner-req-'));
    writeFileSync(
      join(dir, 'names.yaml'),
      ['name: names', 'version: "1"', 'rules:', '  - name: all', '    match: {}', '    action: tokenize', 'detection: {required_for: [person]}'].join('\n'),
    );
    const required = await nerApp('both', { policy: { directory: dir } });
    const optional = await nerApp('both');
    stub.mode = 'ok';
    const first = await post(required.app, '/v1/transform', { input: `I am ${NAME}` });
    expect(first.status).toBe(200);
    stub.mode = 'slow';
    try {
      // A continuation names no policy: the plan falls back, then the session's policy refuses
      // with the sidecar's own status (504 for a timeout).
      const continued = await post(required.app, '/v1/transform', { input: `Still ${NAME}`, session_state: first.body.session_state });
      expect(continued.status).toBe(504);
      expect(continued.body.code).toBe('VEIL_DETECTION_FAILED');
      stub.mode = 'error';
      const refused = await post(required.app, '/v1/transform', { input_messages: [{ role: 'user', content: `I am ${NAME}` }] });
      expect(refused.status).toBe(502);
      expect(refused.body.code).toBe('VEIL_DETECTION_FAILED');
      const batch = await post(required.app, '/v1/batch/transform', { items: [{ input_json: { who: NAME } }, { text: `I am ${NAME}` }] });
      expect(batch.body.results.map((result: any) => result.code)).toEqual(['VEIL_DETECTION_FAILED', 'VEIL_DETECTION_FAILED']);
      const fallback = await post(optional.app, '/v1/transform', { input_json: { who: 'a@example.com' } });
      expect(fallback.status).toBe(200);
      expect(fallback.body.warnings[0]).toMatch(/HTTP 500/);
    } finally {
      stub.mode = 'ok';
      await Promise.all([required.close(), optional.close()]);
    }
  });

  it('batch, stream and RAG ingest carry no name raw', async () => {
    stub.mode = 'ok';
    const app = await nerApp('advanced');
    try {
      const batch = await post(app.app, '/v1/batch/transform', {
        items: [{ text: `Hi ${NAME}` }, { input_json: { who: NAME } }, { input_messages: [{ role: 'user', content: NAME }] }],
      });
      expect(batch.status).toBe(200);
      expect(batch.body.results.every((result: any) => result.error === undefined && result.entities_detected === 1)).toBe(true);
      expect(JSON.stringify(batch.body)).not.toContain('Canary');
      const detected = await post(app.app, '/v1/batch/detect', { items: [{ text: `Hi ${NAME}` }], include_values: false });
      expect(detected.body.results[0].entities.map((entity: any) => entity.type)).toEqual(['person']);
      const stream = await app.app.inject({ method: 'POST', url: '/v1/transform/stream', payload: { input_messages: [{ role: 'user', content: `I am ${NAME}` }] } });
      expect(stream.statusCode).toBe(200);
      expect(stream.body).toContain('{{person:');
      expect(stream.body).not.toContain('Canary');
      const ingest = await post(app.app, '/v1/rag/ingest', { text: `Minutes.\n\n${NAME} joined the call.` });
      expect(ingest.status, JSON.stringify(ingest.body)).toBe(200);
      expect(JSON.stringify(ingest.body.chunks)).not.toContain('Canary');
    } finally {
      await app.close();
    }
  });

  it('refuses python_ner without a configured sidecar', async () => {
    const app = await buildTestApp();
    try {
      const response = await post(app.app, '/v1/transform', { input: 'x', detectors: ['python_ner'] });
      expect(response.status).toBe(400);
    } finally {
      await app.close();
    }
  });
});
