// Proof of no leakage (issue 7, threats.md 22): unique fake values go through EVERY route of the
// real `veil serve` process (api_key auth, strict durable file audit, OTLP trace export to a
// receiver in this test), in good requests and in failing ones (bad fields, unknown policy
// names, hostile headers, wrong credentials, broken files). Afterwards the server's log, the
// audit file, the /metrics text, every exported span and every error body are searched for
// each value: zero hits. The route list is checked against the app's own route table, so a new
// route without a canary request fails this suite.
import { randomInt } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { routeScopes } from '../server/src/plugins/auth.js';
import { startFakeOpenAi, type FakeOpenAi } from '../server/src/bench/fake-openai.js';
import { buildTestApp } from '../server/test/support/harness.js';
import { startVeil, type ServerProcess } from './support/server.js';

// ---------------------------------------------------------------------------------------------
// Canary values: random per run, valid for their detectors (Luhn, IBAN mod 97, SSN ranges).

function digits(count: number): string {
  let out = '';
  for (let index = 0; index < count; index += 1) out += String(randomInt(10));
  return out;
}

function luhnCard(): string {
  const body = `4${digits(14)}`;
  let sum = 0;
  for (let index = 0; index < body.length; index += 1) {
    let digit = Number(body[body.length - 1 - index]);
    if (index % 2 === 0) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return `${body}${String((10 - (sum % 10)) % 10)}`;
}

function germanIban(): string {
  const bban = digits(18);
  const numeric = `${bban}131400`; // "DE" -> 13 14, check digits 00
  let remainder = 0;
  for (const char of numeric) remainder = (remainder * 10 + Number(char)) % 97;
  return `DE${String(98 - remainder).padStart(2, '0')}${bban}`;
}

const RUN = digits(6);
const EMAIL = `canary.${RUN}@leak-check.example`;
const CARD = luhnCard();
const IBAN = germanIban();
const SSN = `${String(randomInt(100, 665))}-${String(randomInt(10, 99))}-${String(randomInt(1000, 9999))}`;
const CANARIES = [EMAIL, CARD, IBAN, SSN] as const;
const TEXT = `Customer ${EMAIL} paid with ${CARD}, IBAN ${IBAN}, SSN ${SSN}.`;

// ---------------------------------------------------------------------------------------------
// The server: api_key mode, strict file audit, traces to a local receiver.

const TENANT_KEY = 'canary-tenant-admin-key-0123456789';
const PLATFORM_KEY = 'canary-platform-admin-key-012345678';
const AUDIT_KEY = 'c3'.repeat(32);
const dir = mkdtempSync(join(tmpdir(), 'veil-canary-'));
const auditPath = join(dir, 'audit.log');
const policyDir = join(dir, 'policies');

interface Exchange {
  readonly label: string;
  readonly status: number;
  readonly text: string;
}

const exchanges: Exchange[] = [];
const covered = new Set<string>();
const spans: Buffer[] = [];
let receiver: Server;
let server: ServerProcess;
/** The proxy's upstream: it must never see a canary either. */
let upstream: FakeOpenAi;
let logText = '';

async function call(label: string, method: string, path: string, init: { body?: unknown; form?: FormData; headers?: Record<string, string>; key?: string | null } = {}): Promise<Exchange> {
  covered.add(`${method} ${path}`);
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  const key = init.key === undefined ? TENANT_KEY : init.key;
  if (key !== null) headers['x-api-key'] = key;
  let body: string | FormData | undefined;
  if (init.form !== undefined) body = init.form;
  else if (init.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
  }
  const response = await fetch(`${server.url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await response.text();
  const exchange = { label, status: response.status, text };
  exchanges.push(exchange);
  return exchange;
}

function fileForm(field: string, content: string | Buffer, name: string, extra: Record<string, string> = {}): FormData {
  const form = new FormData();
  for (const [key, value] of Object.entries(extra)) form.append(key, value);
  form.append(field, new Blob([content]), name);
  return form;
}

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      spans.push(Buffer.concat(chunks));
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const otlp = `http://127.0.0.1:${String((receiver.address() as AddressInfo).port)}/v1/traces`;

  upstream = await startFakeOpenAi();
  const { mkdirSync } = await import('node:fs');
  mkdirSync(policyDir);
  writeFileSync(join(policyDir, 'default.yaml'), readFileSync(new URL('../policies/default.yaml', import.meta.url)));
  const config = join(dir, 'veil.yaml');
  writeFileSync(
    config,
    stringify({
      auth: {
        mode: 'api_key',
        api_keys: [
          { key: TENANT_KEY, identity: 'canary-tenant', tenant_id: 'canary-tenant', scopes: ['admin'] },
          { key: PLATFORM_KEY, identity: 'canary-platform', scopes: ['admin'] },
        ],
      },
      audit: { backend: 'file', path: auditPath, strict: true },
      policy: { directory: policyDir },
      proxy: { upstream_url: upstream.url },
    }),
  );
  server = await startVeil({
    env: { VEIL_SESSION_SECRET: '4e'.repeat(32), VEIL_AUDIT__HMAC_KEY: AUDIT_KEY, VEIL_OTEL_TRACES_ENDPOINT: otlp, VEIL_OTEL_SERVICE_NAME: 'veil-canary' },
    args: ['--config', config],
  });
}, 60_000);

afterAll(async () => {
  if (server !== undefined) await server.stop();
  await upstream.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

describe('canary values never leak (real process)', () => {
  it('sends every canary through every route, in good and failing requests', async () => {
    // Probes and system routes.
    await call('livez', 'GET', '/livez', { key: null });
    await call('readyz', 'GET', '/readyz', { key: null });
    await call('health', 'GET', '/v1/health');
    await call('capabilities', 'GET', '/v1/capabilities');
    await call('capabilities with a hostile credential', 'GET', '/v1/capabilities', { key: EMAIL });
    await call('openapi document', 'GET', '/openapi.json');
    await call('openapi reference page', 'GET', '/openapi.html');

    // Transform in every input mode, then rehydrate the result.
    const transformed = await call('transform', 'POST', '/v1/transform', { body: { input: TEXT, trace_id: EMAIL }, headers: { 'idempotency-key': `idem-${CARD}` } });
    expect(transformed.status).toBe(200);
    const session = JSON.parse(transformed.text) as { safe_text: string; session_state: string };
    for (const value of CANARIES) expect(session.safe_text).not.toContain(value);
    await call('transform json', 'POST', '/v1/transform', { body: { input_json: { note: TEXT, iban: IBAN } } });
    await call('transform chat', 'POST', '/v1/transform', { body: { input_messages: [{ role: 'user', content: TEXT }] } });
    await call('transform unknown policy', 'POST', '/v1/transform', { body: { input: TEXT, policy: EMAIL } });
    await call('transform unknown field', 'POST', '/v1/transform', { body: { input: TEXT, [EMAIL]: CARD } });
    await call('transform wrong type', 'POST', '/v1/transform', { body: { input: { value: TEXT } } });
    await call('transform broken json', 'POST', '/v1/transform', { body: `{"input": "${TEXT}"` });
    await call('transform bad idempotency key', 'POST', '/v1/transform', { body: { input: TEXT }, headers: { 'idempotency-key': `${SSN} `.repeat(30) } });
    await call('transform wrong credential', 'POST', '/v1/transform', { body: { input: TEXT }, key: `${CARD}-${EMAIL}` });
    await call('transform stream', 'POST', '/v1/transform/stream', { body: { input: TEXT } });
    await call('transform stream bad', 'POST', '/v1/transform/stream', { body: { input: TEXT, restore_mode: SSN } });

    const restored = await call('rehydrate', 'POST', '/v1/rehydrate', { body: { output: session.safe_text, session_state: session.session_state, trace_id: CARD } });
    expect(restored.status).toBe(200);
    await call('rehydrate raw PII in output', 'POST', '/v1/rehydrate', { body: { output: `${session.safe_text} and also ${EMAIL} ${CARD}`, session_state: session.session_state } });
    await call('rehydrate tampered state', 'POST', '/v1/rehydrate', { body: { output: TEXT, session_state: `${session.session_state.slice(0, -4)}AAAA` } });
    await call('rehydrate bad channel', 'POST', '/v1/rehydrate', { body: { output: TEXT, session_state: session.session_state, output_channel: IBAN } });
    await call('rehydrate stream', 'POST', '/v1/rehydrate/stream', { body: { output: session.safe_text, session_state: session.session_state } });
    await call('rehydrate stream bad state', 'POST', '/v1/rehydrate/stream', { body: { output: TEXT, session_state: EMAIL } });

    // Detection, policy evaluation, validation helpers.
    await call('detect', 'POST', '/v1/detect', { body: { text: TEXT } });
    await call('detect with values', 'POST', '/v1/detect', { body: { text: TEXT, include_values: true } });
    await call('detect bad threshold', 'POST', '/v1/detect', { body: { text: TEXT, threshold: 7 } });
    await call('evaluate policy', 'POST', '/v1/evaluate-policy', { body: { entity_types: ['email', 'credit_card'] } });
    await call('evaluate policy bad', 'POST', '/v1/evaluate-policy', { body: { entity_types: [EMAIL] } });
    await call('entity type', 'POST', '/v1/entity-types', { body: { name: EMAIL } });
    await call('pattern', 'POST', '/v1/patterns', { body: { name: 'ticket', pattern: 'T-[0-9]+', sample: TEXT } });
    await call('pattern bad', 'POST', '/v1/patterns', { body: { name: 'ticket', pattern: `(${SSN}`, sample: TEXT } });

    // Batches.
    await call('batch transform', 'POST', '/v1/batch/transform', { body: { items: [{ input: TEXT }, { input: EMAIL, policy: CARD }] } });
    await call('batch transform bad', 'POST', '/v1/batch/transform', { body: { items: TEXT } });
    await call('batch detect', 'POST', '/v1/batch/detect', { body: { items: [{ text: TEXT }, { text: IBAN, language: SSN }] } });
    await call('batch detect bad', 'POST', '/v1/batch/detect', { body: { items: [{ text: TEXT, extra: EMAIL }] } });

    // Sessions and revocation.
    await call('session status', 'POST', '/v1/sessions/status', { body: { session_state: session.session_state } });
    await call('session status bad', 'POST', '/v1/sessions/status', { body: { session_state: CARD } });
    await call('revoke', 'POST', '/v1/revoke', { body: { entity_type: 'email', value: EMAIL } });
    await call('revoke bad type', 'POST', '/v1/revoke', { body: { entity_type: IBAN, value: SSN } });
    await call('revoke bulk', 'POST', '/v1/revoke/bulk', { body: { entities: [{ entity_type: 'credit_card', value: CARD }, { entity_type: 'iban', value: IBAN }] } });
    await call('revoke global', 'POST', '/v1/revoke', { body: { entity_type: 'us_ssn', value: SSN }, key: PLATFORM_KEY });
    await call('revocation count', 'GET', '/v1/revocations/count');
    await call('delete session', 'DELETE', '/v1/sessions', { body: { session_state: session.session_state } });
    await call('delete session bad', 'DELETE', '/v1/sessions', { body: { session_id: EMAIL } });

    // RAG.
    const ingested = await call('rag ingest', 'POST', '/v1/rag/ingest', { body: { text: `${TEXT}\n\nSecond paragraph about ${EMAIL}.`, corpus_id: 'kb-canary' } });
    expect(ingested.status).toBe(200);
    const ingest = JSON.parse(ingested.text) as { session_state: string; chunks: { safe_text: string; chunk_session_state: string }[] };
    await call('rag ingest bad corpus', 'POST', '/v1/rag/ingest', { body: { text: TEXT, corpus_id: EMAIL } });
    await call('rag ingest batch', 'POST', '/v1/rag/ingest/batch', { body: { items: [{ text: TEXT, corpus_id: 'kb-canary' }, { text: TEXT, corpus_id: CARD }] } });
    const query = await call('rag query', 'POST', '/v1/rag/query', { body: { query: `where is ${EMAIL}?`, corpus_id: 'kb-canary' } });
    const querySession = JSON.parse(query.text) as { session_state: string };
    const context = await call('rag context', 'POST', '/v1/rag/context', {
      body: { query_session_state: querySession.session_state, chunks: ingest.chunks.map((chunk) => chunk.safe_text), document_sessions: ingest.chunks.map((chunk) => chunk.chunk_session_state) },
    });
    await call('rag context bad', 'POST', '/v1/rag/context', { body: { chunks: [TEXT], document_sessions: [EMAIL] } });
    const contextSession = JSON.parse(context.text) as { session_state?: string };
    await call('rag answer', 'POST', '/v1/rag/answer', { body: { answer: ingest.chunks[0]!.safe_text, session_state: contextSession.session_state ?? ingest.session_state } });
    await call('rag answer bad', 'POST', '/v1/rag/answer', { body: { answer: TEXT, session_state: IBAN } });
    await call('rag delete', 'POST', '/v1/rag/delete', { body: { session_state: ingest.session_state } });
    await call('rag delete bad', 'POST', '/v1/rag/delete', { body: { session_state: SSN } });

    // Files and images: a text file, a broken PDF and a broken image carrying the values.
    const file = await call('transform file', 'POST', '/v1/transform/file', { form: fileForm('file', TEXT, 'notes.txt') });
    expect(file.status).toBe(200);
    const fileSession = JSON.parse(file.text) as { safe_text: string; session_state: string };
    await call('rehydrate file', 'POST', '/v1/rehydrate/file', { form: fileForm('file', fileSession.safe_text, 'notes.txt', { session_state: fileSession.session_state }) });
    await call('rehydrate file bad state', 'POST', '/v1/rehydrate/file', { form: fileForm('file', TEXT, 'notes.txt', { session_state: EMAIL }) });
    await call('transform file truncated pdf', 'POST', '/v1/transform/file', { form: fileForm('file', `%PDF-1.7\n${TEXT}`, `${EMAIL}.pdf`) });
    await call('transform image broken', 'POST', '/v1/transform/image', { form: fileForm('image', Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.from(TEXT)]), `${CARD}.png`) });
    await call('redact image broken', 'POST', '/v1/redact/image', { form: fileForm('image', Buffer.from(TEXT), `${IBAN}.png`) });

    // The OpenAI-compatible proxy: answers (which restore values), a stream, refusals, and an
    // upstream error that echoes what it received.
    const messages = [{ role: 'user', content: TEXT }];
    expect((await call('proxy chat', 'POST', '/openai/v1/chat/completions', { body: { model: 'm', messages }, headers: { 'x-veil-trace-id': EMAIL } })).status).toBe(200);
    expect((await call('proxy chat stream', 'POST', '/openai/v1/chat/completions', { body: { model: 'm', stream: true, messages } })).status).toBe(200);
    await call('proxy chat with user field', 'POST', '/openai/v1/chat/completions', { body: { model: 'm', user: EMAIL, messages } });
    await call('proxy chat bad header', 'POST', '/openai/v1/chat/completions', { body: { model: 'm', messages }, headers: { 'x-veil-policy': CARD, 'x-veil-session-state': IBAN } });
    upstream.reply = (request) => ({ status: 400, errorBody: { error: { message: `cannot use ${request.text}` } } });
    await call('proxy chat upstream error', 'POST', '/openai/v1/chat/completions', { body: { model: 'm', messages } });
    upstream.reply = () => ({});
    expect((await call('proxy embeddings', 'POST', '/openai/v1/embeddings', { body: { model: 'e', input: [TEXT] } })).status).toBe(200);
    await call('proxy embeddings tokens', 'POST', '/openai/v1/embeddings', { body: { model: 'e', input: [[1, 2]], user: SSN } });
    for (const value of CANARIES) expect(upstream.requests.some((request) => request.text.includes(value))).toBe(false);

    // Operations routes.
    // Platform operations need the untenanted admin; the tenant admin is refused (and must not
    // leak anything either).
    await call('diagnostics', 'GET', '/v1/diagnostics');
    await call('diagnostics platform', 'GET', '/v1/diagnostics', { key: PLATFORM_KEY });
    await call('policy validate', 'POST', '/v1/admin/policy/validate', { body: { directory: '' }, key: PLATFORM_KEY });
    await call('policy validate tenant', 'POST', '/v1/admin/policy/validate', { body: { directory: '' } });
    await call('policy validate inline', 'POST', '/v1/admin/policy/validate', { body: { files: { 'default.yaml': `name: default\nversion: "1"\nrules: [{name: r, match: {}, action: ${EMAIL}}]\n` } } });
    await call('policy validate bad', 'POST', '/v1/admin/policy/validate', { body: { directory: `/nonexistent/${EMAIL}` }, key: PLATFORM_KEY });
    await call('policy reload', 'POST', '/v1/admin/policy/reload', { body: {}, key: PLATFORM_KEY });
    await call('policy reload tenant', 'POST', '/v1/admin/policy/reload', { body: {} });
    expect((await call('metrics tenant', 'GET', '/metrics')).status).toBe(403);
    const metrics = await call('metrics', 'GET', '/metrics', { key: PLATFORM_KEY });
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('veil_transforms_total');

    // The route table of the same build: every non-public route must have been exercised.
    const local = await buildTestApp();
    try {
      const missing = routeScopes(local.app)
        .filter((route) => route.scope !== 'public' && route.method !== 'HEAD')
        .map((route) => `${route.method} ${route.url}`)
        .filter((route) => !covered.has(route));
      expect(missing).toEqual([]);
    } finally {
      await local.close();
    }
    // Enough of these failed to make the error-body scan meaningful.
    expect(exchanges.filter((exchange) => exchange.status >= 400).length).toBeGreaterThan(25);
  }, 120_000);

  it('finds no canary in error bodies, logs, the audit file, metrics or spans', async () => {
    await server.stop('SIGTERM'); // flushes spans and the audit file
    logText = server.logs.join('\n');
    const audit = readFileSync(auditPath, 'utf8');
    expect(audit.split('\n').filter((line) => line !== '').length).toBeGreaterThan(40);
    const metrics = exchanges.find((exchange) => exchange.label === 'metrics')!.text;
    const spanText = Buffer.concat(spans).toString('latin1');
    expect(spans.length).toBeGreaterThan(0);
    const hits: string[] = [];
    for (const value of CANARIES) {
      for (const exchange of exchanges) {
        if (exchange.status >= 400 && exchange.text.includes(value)) hits.push(`error body of '${exchange.label}' (${String(exchange.status)})`);
      }
      if (logText.includes(value)) hits.push(`server log (${value.slice(0, 3)}...)`);
      for (const line of audit.split('\n')) if (line.includes(value)) hits.push(`audit file: ${line.replaceAll(value, '<CANARY>')}`);
      if (metrics.includes(value)) hits.push('metrics');
      if (spanText.includes(value)) {
        const at = spanText.indexOf(value);
        hits.push(`spans: ...${spanText.slice(Math.max(0, at - 160), at).replace(/[^\x20-\x7e]/g, '.')}<CANARY>`);
      }
    }
    expect(hits).toEqual([]);
  }, 60_000);
});
