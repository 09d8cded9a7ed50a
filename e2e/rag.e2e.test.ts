// The RAG flow against the real `veil serve` process over HTTP (interface.md 4.9 to 4.14): the
// happy path with corpus tokens, classification filtering and erasure, one request per rejection
// rule of every route, idempotent retries, and examples/rag/run.mjs run as a child process
// against the same server (SQLite FTS5 store). The process logs never hold a value.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, ROOT, startVeil, settledLogs, type ServerProcess } from './support/server.js';

const EXAMPLE = fileURLToPath(new URL('../examples/rag/run.mjs', import.meta.url));
const EMAIL = 'erin.e2e@example.com';
const PHONE = '+1 646 555 0142';
const OTHER = 'frank.e2e@example.org';
const TOKEN = /\{\{[^{}]+\}\}/g;
const RAW = [EMAIL, PHONE, OTHER, 'ada.lovelace@example.com', '+1 415 555 0134', 'grace.hopper@example.org', 'DE89 3704 0044 0532 0130 00'];

let veil: ServerProcess;
const post = (path: string, body: unknown, headers: Record<string, string> = {}) => postJson(`${veil.url}${path}`, body, headers);

beforeAll(async () => {
  veil = await startVeil({ env: { VEIL_SESSION_SECRET: '4e'.repeat(32), VEIL_CORPUS_SECRET: '7a'.repeat(32), VEIL_MAX_BATCH_SIZE: '4', VEIL_LOG_LEVEL: 'debug' } });
});
afterAll(async () => {
  await veil.stop();
});

function runExample(args: string[], timeoutMs = 30_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [EXAMPLE, ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('RAG flow on the real server', () => {
  it('ingests, queries, builds a filtered context, answers and erases', async () => {
    const text = `Account owner ${EMAIL}.\n\nReach them at ${PHONE}.`;
    const ingest = await post('/v1/rag/ingest', { text, corpus_id: 'e2e-kb', document_metadata: { document_id: 'd1', classification: 'internal' } });
    expect(ingest.status).toBe(200);
    expect(ingest.body.chunks).toHaveLength(2);
    expect(ingest.body.total_entities).toBe(2);
    const secret = await post('/v1/rag/ingest', { text: `Restricted: ${OTHER}`, corpus_id: 'e2e-kb', document_metadata: { classification: 'restricted' } });
    expect(ingest.text).not.toContain(EMAIL);

    const query = await post('/v1/rag/query', { query: `Who owns ${EMAIL}?`, corpus_id: 'e2e-kb' });
    expect(query.status).toBe(200);
    const [token] = query.body.safe_query.match(TOKEN) as string[];
    expect(ingest.body.chunks[0].safe_text).toContain(token);

    const chunks = [...ingest.body.chunks, secret.body.chunks[0]];
    const context = await post('/v1/rag/context', {
      chunks: chunks.map((chunk: { safe_text: string }) => chunk.safe_text),
      document_sessions: chunks.map((chunk: { chunk_session_state: string }) => chunk.chunk_session_state),
      chunk_classifications: ['internal', 'internal', 'public'],
      access_level: 'internal',
      corpus_id: 'e2e-kb',
      session_state: query.body.session_state,
    });
    expect(context.status).toBe(200);
    expect(context.body.safe_chunks).toHaveLength(2);
    expect(context.body.chunks_filtered).toBe(1);

    const modelAnswer = `Owner ${token}; phone ${context.body.safe_chunks[1].match(TOKEN)[0]}.`;
    const answer = await post('/v1/rag/answer', { answer: modelAnswer, session_state: context.body.session_state });
    expect(answer.body).toMatchObject({ restored_answer: `Owner ${EMAIL}; phone ${PHONE}.`, tokens_resolved: 2, tokens_unresolved: [], output_guard: { triggered: false } });

    const headers = { 'idempotency-key': 'e2e-erase-1' };
    const erase = await post('/v1/rag/delete', { session_state: ingest.body.session_state }, headers);
    expect(erase.status).toBe(200);
    expect(erase.body).toMatchObject({ deleted: true, session_invalidated: true, entities_purged: 2, manifest: { entities_revoked: 2, status: 'completed' } });
    const retry = await postJson(`${veil.url}/v1/rag/delete`, { session_state: ingest.body.session_state }, headers);
    expect(retry.body).toEqual(erase.body);

    const after = await post('/v1/rag/answer', { answer: modelAnswer, session_state: context.body.session_state });
    expect(after.body.restored_answer).toBe('Owner [DELETED]; phone [DELETED].');
    const stale = await post('/v1/rag/context', {
      chunks: [ingest.body.chunks[0].safe_text],
      document_sessions: [ingest.body.chunks[0].chunk_session_state],
      session_state: query.body.session_state,
    });
    expect(stale.status).toBe(410);
  });

  it('rejects what each route must reject', async () => {
    const doc = await post('/v1/rag/ingest', { text: `Mail ${EMAIL}`, corpus_id: 'e2e-rejects' });
    const query = await post('/v1/rag/query', { query: 'x', corpus_id: 'e2e-rejects' });
    const other = await post('/v1/rag/query', { query: 'x', corpus_id: 'e2e-other' });
    const context = await post('/v1/rag/context', { chunks: [], session_state: query.body.session_state });
    const cases: [string, unknown, number, string | RegExp][] = [
      ['/v1/rag/ingest', { text: 'x', corpus_id: '' }, 400, 'corpus_id: has an invalid format'],
      ['/v1/rag/ingest', { text: 'x', corpus_id: 'a b' }, 400, 'corpus_id: has an invalid format'],
      ['/v1/rag/ingest', { text: 'x', chunking_strategy: 'fixed', chunk_size: 99 }, 400, 'chunk_size: must be >= 100'],
      ['/v1/rag/ingest', { text: 'x', chunking_strategy: 'sliding_window', chunk_size: 100, chunk_overlap: 100 }, 400, /^chunk_overlap:/],
      ['/v1/rag/ingest', { text: 'x', document_metadata: { classification: 'secret' } }, 400, /^document_metadata\.classification:/],
      ['/v1/rag/ingest', { text: 'x', unknown: 1 }, 400, 'unknown: unknown field'],
      ['/v1/rag/ingest/batch', { items: [{ text: 'a' }, { text: 'b' }, { text: 'c' }, { text: 'd' }, { text: 'e' }] }, 400, 'items: must NOT have more than 4 items'],
      ['/v1/rag/query', { query: 'x', corpus_id: '' }, 400, 'corpus_id: has an invalid format'],
      ['/v1/rag/context', { chunks: ['a'], session_state: query.body.session_state, access_level: 'secret' }, 400, /^access_level:/],
      ['/v1/rag/context', { chunks: ['a', 'b'], session_state: query.body.session_state, document_sessions: [doc.body.chunks[0].chunk_session_state] }, 400, /^document_sessions:/],
      ['/v1/rag/context', { chunks: ['a'], session_state: other.body.session_state, document_sessions: [doc.body.chunks[0].chunk_session_state] }, 400, /corpus does not match/],
      ['/v1/rag/context', { chunks: [], session_state: query.body.session_state, corpus_id: 'e2e-other' }, 400, /^corpus_id:/],
      ['/v1/rag/context', { chunks: ['a'], session_state: query.body.session_state, document_sessions: [doc.body.session_state] }, 410, /^document_sessions\[0\]:/],
      ['/v1/rag/context', { chunks: [], session_state: doc.body.session_state }, 410, /./],
      ['/v1/rag/answer', { answer: 'x', session_state: query.body.session_state }, 410, /./],
      ['/v1/rag/answer', { answer: 'x', session_state: context.body.session_state, output_channel: 'Not Valid' }, 400, /^output_channel:/],
      ['/v1/rag/delete', { session_state: query.body.session_state }, 410, /./],
      ['/v1/rag/delete', {}, 400, 'session_state: is required'],
    ];
    for (const [path, body, status, message] of cases) {
      const response = await post(path, body);
      expect(response.status, `${path} ${JSON.stringify(body).slice(0, 80)}`).toBe(status);
      expect(response.body.error).toMatch(message);
      expect(response.body.request_id).toMatch(/^[0-9a-f-]{36}$/);
    }
    const batch = await post('/v1/rag/ingest/batch', { items: [{ text: `Mail ${OTHER}` }, { text: 'x', corpus_id: '' }] });
    expect(batch.status).toBe(200);
    expect(batch.body.results[0].result.chunks).toHaveLength(1);
    expect(batch.body.results[1]).toMatchObject({ index: 1, code: 'VEIL_VALIDATION_FAILED' });
  });
});

describe('examples/rag/run.mjs against the real server', () => {
  it('stores only safe chunks, restores the answer, and erases a document', async () => {
    const run = await runExample(['--url', veil.url, '--json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout);
    // This server runs without the NER sidecar: every raw value sent is counted, and the two
    // names are the only ones left raw (reported as such, not hidden); the model saw one.
    expect(summary).toMatchObject({ ner_active: false, raw_values_sent: 7, raw_values_in_store: 2, raw_types_in_store: ['person', 'person'], raw_values_in_model_input: 1 });
    expect(summary.chunks_stored).toBe(5);
    expect(summary.retrieved).toEqual(expect.arrayContaining(['crm-ada#0', 'crm-ada#1', 'hr-salary#0']));
    expect(summary.chunks_filtered).toBe(1);
    // The model saw tokens only.
    for (const value of RAW) expect(summary.model_input).not.toContain(value);
    expect(summary.model_answer).toMatch(/^\{\{email:e_[0-9a-f]{24}:[0-9a-f]{32}\}\} asked about the renewal/);
    expect(summary.restored_answer).toBe('ada.lovelace@example.com asked about the renewal of contract 2291. Reach her by phone at +1 415 555 0134.');
    expect(summary.delete_manifest).toMatchObject({ status: 'completed', entities_revoked: 2 });
    expect(summary.chunks_removed).toBe(2);
    expect(summary.restored_after_erase).toBe('[DELETED] asked about the renewal of contract 2291. Reach her by phone at [DELETED].');
    expect(summary.retrieved_after_erase).not.toContain('crm-ada#0');
    expect(summary.chunks_left_in_store).toBe(3);
  });

  it('narrates the steps without --json and fails cleanly without a server', async () => {
    const narrated = await runExample(['--url', veil.url]);
    expect(narrated.code).toBe(0);
    expect(narrated.stdout).toMatch(/raw values in the store: 2 of 7 sent \(2 person\)\n {3}the store: names need the NER sidecar, which this Veil does not run/);
    expect(narrated.stdout).toMatch(/the same answer restored again: \[DELETED\]/);
    const down = await runExample(['--url', 'http://127.0.0.1:1']);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/cannot reach Veil/);
    const usage = await runExample(['--bogus']);
    expect(usage.code).toBe(2);
  });
});

const SIDECAR = existsSync(join(ROOT, 'ner/.venv/bin/python'));

describe.skipIf(!SIDECAR)('examples/rag/run.mjs --start-server --ner (make example-rag)', () => {
  it('keeps every raw value it sent, names included, out of the store and the model input', async () => {
    const run = await runExample(['--start-server', '--ner', '--json'], 150_000);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout);
    expect(summary).toMatchObject({ ner_active: true, raw_values_sent: 7, raw_values_in_store: 0, raw_types_in_store: [], raw_values_in_model_input: 0 });
    for (const name of ['Ada Lovelace', 'Grace Hopper']) expect(summary.model_input).not.toContain(name);
    expect(summary.restored_answer).toBe('ada.lovelace@example.com asked about the renewal of contract 2291. Reach her by phone at +1 415 555 0134.');
  }, 160_000);
});

describe('process logs', () => {
  it('never contain a value', async () => {
    const logs = await settledLogs(veil);
    expect(logs).toMatch(/rag_ingest_completed/);
    for (const value of RAW) expect(logs).not.toContain(value);
  });
});
