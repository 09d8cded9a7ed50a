// HTTP tests of the RAG flow through inject (interface.md 4.9 to 4.14, decisions.md sections 3
// to 5, threats.md 3 and 10): every rule and every rejection of ingest, ingest/batch, query,
// context, answer and delete; corpus-token determinism across documents, queries, corpora and
// tenants; chunk sessions holding only their chunk's tokens under their sealed classification;
// the merge rules failing closed; erasure winning over a client's old blobs; and no value in any
// log line or error body.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSessionId, openSession, sealSession, type SessionPayload } from '../domain/seal/index.js';
import { apiKeyOverrides } from '../../test/support/auth.js';
import { buildTestApp, post, type TestApp } from '../../test/support/harness.js';

const EMAIL_A = 'ada.rag@example.com';
const EMAIL_B = 'bob.rag@example.org';
const PHONE = '+1 415 555 0134';
const CARD = '4111 1111 1111 1111';
const DOC = `Ada writes from ${EMAIL_A} about the renewal.\n\nCall her at ${PHONE} or write to ${EMAIL_B}.`;
const CANARIES = [EMAIL_A, EMAIL_B, PHONE, '555 0134', CARD, 'carol.rag@example.net', '123-45-6789'];
const TOKEN = /\{\{[^{}]+\}\}/g;

const tokensOf = (text: string): string[] => text.match(TOKEN) ?? [];
const idOf = (token: string): string => token.slice(2, -2).split(':').at(-2)!;

let policyDir: string;
let t: TestApp;

function writePolicies(): string {
  const dir = mkdtempSync(join(tmpdir(), 'veil-rag-policies-'));
  writeFileSync(join(dir, 'open.yaml'), 'name: open\nversion: "1.0.0"\nrules:\n  - {name: all, match: {}, action: tokenize, restore_mode: full}\n');
  writeFileSync(
    join(dir, 'strict.yaml'),
    [
      'name: strict',
      'version: "2.0.0"',
      'rules:',
      '  - {name: ssn-out, match: {entity_type: us_ssn, destination: external_llm}, action: deny}',
      '  - {name: email-masked, match: {entity_type: email}, action: tokenize, restore_mode: masked}',
      '  - {name: rest, match: {}, action: tokenize, restore_mode: full}',
      'custom_patterns:',
      '  - {entity_type: ticket_id, pattern: "TCK-[0-9]{6}", confidence: 0.95}',
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(dir, 'gated.yaml'),
    [
      'name: gated',
      'version: "1.0.0"',
      'rules:',
      '  - {name: email-masked, match: {entity_type: email}, action: tokenize, restore_mode: masked}',
      '  - {name: rest, match: {}, action: tokenize, restore_mode: full}',
      'override_restore_mode:',
      '  - {caller_role: supervisor, entity_types: [email], restore_mode: full}',
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'no-ssn-in-store.yaml'), 'name: no-ssn-in-store\nversion: "1"\nrules:\n  - {name: ssn-store, match: {entity_type: us_ssn, destination: vector_store}, action: deny}\n  - {name: all, match: {}, action: tokenize}\n');
  return dir;
}

beforeAll(async () => {
  policyDir = writePolicies();
  t = await buildTestApp({ overrides: { policy: { directory: policyDir, default: 'open' }, limits: { max_batch_size: 3 } } });
});

afterAll(async () => {
  await t.close();
  rmSync(policyDir, { recursive: true, force: true });
});

async function ingest(body: Record<string, unknown>, app: TestApp = t, headers: Record<string, string> = {}) {
  return post(app.app, '/v1/rag/ingest', { text: DOC, ...body }, headers);
}

async function query(body: Record<string, unknown>, app: TestApp = t, headers: Record<string, string> = {}) {
  return post(app.app, '/v1/rag/query', body, headers);
}

function expectNoValues(...texts: string[]): void {
  for (const text of texts) for (const canary of CANARIES) expect(text).not.toContain(canary);
}

function openChunk(blob: string, classification: string | undefined, tenant: string | null = null): SessionPayload {
  return openSession(t.deps.reload.keyRingFor(null), blob, { kinds: ['chunk'], tenant, classification }, Math.floor(t.deps.now() / 1000));
}

// ---------------------------------------------------------------------------------------------

describe('POST /v1/rag/ingest (4.9)', () => {
  it('chunks by paragraph by default, with safe text, counts, code-point offsets and sealed states', async () => {
    const text = `😀 ${DOC}`;
    const response = await ingest({ text, document_metadata: { document_id: 'doc-1', classification: 'internal', owner: 'ops', tags: ['crm'] } });
    expect(response.status).toBe(200);
    const body = response.body;
    expect(Object.keys(body)).toEqual(expect.arrayContaining(['chunks', 'session_state', 'total_entities', 'document_metadata']));
    expect(body.document_metadata).toEqual({ document_id: 'doc-1', classification: 'internal', owner: 'ops', tags: ['crm'] });
    expect(body.chunks).toHaveLength(2);
    expect(body.total_entities).toBe(3);
    const [first, second] = body.chunks;
    expect(first.chunk_index).toBe(0);
    expect(second.chunk_index).toBe(1);
    expect(first.entity_count).toBe(1);
    expect(second.entity_count).toBe(2);
    // Offsets count code points of the original document (the emoji is one).
    const points = [...text];
    expect(points.slice(first.start_offset, first.end_offset).join('')).toBe(`😀 Ada writes from ${EMAIL_A} about the renewal.`);
    expect(points.slice(second.start_offset, second.end_offset).join('')).toBe(`Call her at ${PHONE} or write to ${EMAIL_B}.`);
    expect(first.safe_text).toMatch(/^😀 Ada writes from \{\{email:e_001:[0-9a-f]{12}\}\} about the renewal\.$/);
    expect(second.safe_text).toMatch(/^Call her at \{\{phone:ph_001:[0-9a-f]{12}\}\} or write to \{\{email:e_002:[0-9a-f]{12}\}\}\.$/);
    // Values no detector matches stay raw ("Ada": person names need the NER detector).
    expect(body.warnings.join(' ')).toMatch(/degraded detection coverage/);
    expectNoValues(JSON.stringify(body.chunks.map((chunk: { safe_text: string }) => chunk.safe_text)));
  });

  it('seals each chunk with only its own tokens and the document classification', async () => {
    const body = (await ingest({ document_metadata: { classification: 'confidential' } })).body;
    for (const chunk of body.chunks) {
      const session = openChunk(chunk.chunk_session_state, 'confidential');
      expect(session.kind).toBe('chunk');
      expect(session.entries.map((entry) => entry.id).sort()).toEqual(tokensOf(chunk.safe_text).map(idOf).sort());
      // Bound to its classification: it opens under no other label and as no other kind.
      expect(() => openChunk(chunk.chunk_session_state, 'public')).toThrow();
      expect(() => openChunk(chunk.chunk_session_state, undefined)).toThrow();
      expect(() => openSession(t.deps.reload.keyRingFor(null), chunk.chunk_session_state, { kinds: ['aggregate', 'query', 'context', 'transform'], tenant: null }, Math.floor(Date.now() / 1000))).toThrow();
    }
    // The aggregate holds every token of the document.
    const aggregate = openSession(t.deps.reload.keyRingFor(null), body.session_state, { kinds: ['aggregate'], tenant: null }, Math.floor(Date.now() / 1000));
    expect(aggregate.entries).toHaveLength(3);
    expect(new Set(body.chunks.map((chunk: { chunk_session_state: string }) => openChunk(chunk.chunk_session_state, 'confidential').sid))).toEqual(new Set([aggregate.sid]));
  });

  it('supports sentence, fixed and sliding_window chunking without cutting a value', async () => {
    const sentences = await ingest({ text: `One sentence with ${EMAIL_A}. Dr. Who called ${PHONE}. Done.`, chunking_strategy: 'sentence' });
    expect(sentences.body.chunks.map((chunk: { safe_text: string }) => chunk.safe_text.replace(TOKEN, 'T'))).toEqual(['One sentence with T.', 'Dr. Who called T.', 'Done.']);

    const long = `${'word '.repeat(18)}${EMAIL_A} ${'more '.repeat(30)}${PHONE} tail`;
    for (const strategy of ['fixed', 'sliding_window']) {
      const response = await ingest({ text: long, chunking_strategy: strategy, chunk_size: 100, ...(strategy === 'sliding_window' ? { chunk_overlap: 30 } : {}) });
      expect(response.status).toBe(200);
      const chunks = response.body.chunks as { safe_text: string; start_offset: number; end_offset: number }[];
      expect(chunks.length).toBeGreaterThan(1);
      // Every value sits whole in a chunk: no chunk starts or ends inside one.
      for (const value of [EMAIL_A, PHONE]) {
        const start = long.indexOf(value);
        const end = start + value.length;
        for (const chunk of chunks) {
          expect(chunk.start_offset > start && chunk.start_offset < end).toBe(false);
          expect(chunk.end_offset > start && chunk.end_offset < end).toBe(false);
        }
        expect(chunks.some((chunk) => chunk.start_offset <= start && end <= chunk.end_offset)).toBe(true);
      }
      expect(response.body.total_entities).toBe(2);
    }
    const sliding = await ingest({ text: 'x'.repeat(300), chunking_strategy: 'sliding_window', chunk_size: 100, chunk_overlap: 50 });
    expect(sliding.body.chunks.map((chunk: { start_offset: number }) => chunk.start_offset)).toEqual([0, 50, 100, 150, 200]);
  });

  it.each([
    [{ chunk_size: 99, chunking_strategy: 'fixed' }, 'chunk_size: must be >= 100'],
    [{ chunk_size: 100, chunk_overlap: 100, chunking_strategy: 'sliding_window' }, 'chunk_overlap: must be an integer from 0 to chunk_size - 1'],
    [{ chunk_size: 500 }, 'chunk_size: applies only to the fixed and sliding_window strategies'],
    [{ chunk_size: 500, chunk_overlap: 10, chunking_strategy: 'fixed' }, 'chunk_overlap: applies only to the sliding_window strategy'],
    [{ chunking_strategy: 'semantic' }, 'chunking_strategy: is invalid'],
    [{ corpus_id: '' }, 'corpus_id: has an invalid format'],
    [{ corpus_id: 'has space' }, 'corpus_id: has an invalid format'],
    [{ corpus_id: '../etc' }, 'corpus_id: has an invalid format'],
    [{ corpus_id: 'k'.repeat(129) }, 'corpus_id: has an invalid format'],
    [{ corpus_id: 7 }, 'corpus_id: must be string'],
    [{ text: '' }, 'text: must NOT have fewer than 1 characters'],
    [{ document_metadata: { classification: 'secret' } }, 'document_metadata.classification: must be one of rag.classification_levels'],
    [{ document_metadata: { colour: 'red' } }, 'document_metadata.colour: unknown field'],
    [{ extra: true }, 'extra: unknown field'],
  ])('rejects %j', async (patch, message) => {
    const response = await ingest(patch);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'VEIL_VALIDATION_FAILED', error: message });
    expect(response.body.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expectNoValues(JSON.stringify(response.body));
  });

  it('rejects a missing text', async () => {
    const response = await post(t.app, '/v1/rag/ingest', { chunking_strategy: 'paragraph' });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('text: is required');
  });

  it('applies the policy: custom patterns tokenize domain references, deny refuses with no value', async () => {
    const plain = await ingest({ text: 'Ticket TCK-123456 is open.' });
    expect(plain.body.chunks[0].safe_text).toBe('Ticket TCK-123456 is open.');
    const custom = await ingest({ text: 'Ticket TCK-123456 is open.', policy: 'strict' });
    expect(custom.body.chunks[0].safe_text).toMatch(/^Ticket \{\{custom:ticket_id:c_001:[0-9a-f]{12}\}\} is open\.$/);

    const denied = await ingest({ text: 'SSN 123-45-6789 on file.', policy: 'no-ssn-in-store' });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('VEIL_POLICY_DENIED');
    expectNoValues(JSON.stringify(denied.body));
    // The deny rule names the vector store: ingest is checked against destination vector_store,
    // while the strict policy's external_llm deny does not stop indexing.
    const indexed = await ingest({ text: 'SSN 123-45-6789 on file.', policy: 'strict' });
    expect(indexed.status).toBe(200);
    const unknownPolicy = await ingest({ policy: 'nope' });
    expect(unknownPolicy.status).toBe(400);
  });

  it('is idempotent with an Idempotency-Key', async () => {
    const headers = { 'idempotency-key': 'ingest-once-1' };
    const first = await ingest({ corpus_id: 'idem' }, t, headers);
    const again = await ingest({ corpus_id: 'idem' }, t, headers);
    expect(again.status).toBe(200);
    expect(again.headers['idempotency-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    const reused = await ingest({ corpus_id: 'idem2' }, t, headers);
    expect(reused.status).toBe(409);
    expect(reused.body.code).toBe('VEIL_IDEMPOTENCY_KEY_REUSE');
  });
});

describe('corpus tokens (2.1 rule 3, decisions.md section 3)', () => {
  it('gives a value the same token across documents and queries of a corpus, and unrelated ones elsewhere', async () => {
    const first = await ingest({ text: `Owner: ${EMAIL_A}`, corpus_id: 'kb-main' });
    const second = await ingest({ text: `Contact ${EMAIL_A} or ${EMAIL_B}`, corpus_id: 'kb-main' });
    const [token] = tokensOf(first.body.chunks[0].safe_text);
    expect(token).toMatch(/^\{\{email:e_[0-9a-f]{24}:[0-9a-f]{32}\}\}$/);
    expect(tokensOf(second.body.chunks[0].safe_text)[0]).toBe(token);
    const asked = await query({ query: `Who is ${EMAIL_A}?`, corpus_id: 'kb-main' });
    expect(asked.status).toBe(200);
    expect(asked.body.safe_query).toBe(`Who is ${token}?`);
    expect(asked.body.entities_detected).toBe(1);
    // Normalized: the same address in another case is the same token.
    expect((await query({ query: EMAIL_A.toUpperCase(), corpus_id: 'kb-main' })).body.safe_query).toBe(token);

    const otherCorpus = await query({ query: EMAIL_A, corpus_id: 'kb-other' });
    expect(tokensOf(otherCorpus.body.safe_query)[0]).not.toBe(token);
    expect(idOf(tokensOf(otherCorpus.body.safe_query)[0]!)).not.toBe(idOf(token!));
    const random = await query({ query: EMAIL_A });
    expect(random.body.safe_query).toMatch(/^\{\{email:e_001:[0-9a-f]{12}\}\}$/);
  });

  it('derives tokens per tenant', async () => {
    const tenants = await buildTestApp({
      overrides: apiKeyOverrides([
        { key: 'tenant-a-key-0123456789', identity: 'a', tenant_id: 'acme', scopes: ['rag'] },
        { key: 'tenant-b-key-0123456789', identity: 'b', tenant_id: 'globex', scopes: ['rag'] },
      ]),
    });
    try {
      const a = await query({ query: EMAIL_A, corpus_id: 'shared-name' }, tenants, { 'x-api-key': 'tenant-a-key-0123456789' });
      const b = await query({ query: EMAIL_A, corpus_id: 'shared-name' }, tenants, { 'x-api-key': 'tenant-b-key-0123456789' });
      expect(a.status).toBe(200);
      expect(idOf(tokensOf(a.body.safe_query)[0]!)).not.toBe(idOf(tokensOf(b.body.safe_query)[0]!));
      // Tenant B cannot use tenant A's query session (threats.md 3).
      const crossed = await post(tenants.app, '/v1/rag/context', { chunks: [], session_state: a.body.session_state }, { 'x-api-key': 'tenant-b-key-0123456789' });
      expect(crossed.status).toBe(410);
      expect(crossed.body.code).toBe('VEIL_SESSION_EXPIRED');
    } finally {
      await tenants.close();
    }
  });

  it('keeps corpus tokens across session-key rotation when rag.corpus_secret is set', async () => {
    const corpusSecret = '3c'.repeat(32);
    const one = await buildTestApp({ env: { VEIL_SESSION_SECRET: '11'.repeat(32), VEIL_CORPUS_SECRET: corpusSecret } });
    const two = await buildTestApp({ env: { VEIL_SESSION_SECRET: '22'.repeat(32), VEIL_CORPUS_SECRET: corpusSecret } });
    const three = await buildTestApp({ env: { VEIL_SESSION_SECRET: '22'.repeat(32) } });
    try {
      const before = (await query({ query: EMAIL_A, corpus_id: 'kb' }, one)).body.safe_query;
      expect((await query({ query: EMAIL_A, corpus_id: 'kb' }, two)).body.safe_query).toBe(before);
      expect((await query({ query: EMAIL_A, corpus_id: 'kb' }, three)).body.safe_query).not.toBe(before);
    } finally {
      await Promise.all([one.close(), two.close(), three.close()]);
    }
  });
});

describe('POST /v1/rag/ingest/batch (4.10)', () => {
  it('processes each document on its own; one failure never fails the batch', async () => {
    const response = await post(t.app, '/v1/rag/ingest/batch', {
      items: [{ text: `Mail ${EMAIL_A}` }, { text: 'x', chunk_size: 50, chunking_strategy: 'fixed' }, { text: `Mail ${EMAIL_B}`, document_metadata: { classification: 'public' } }],
    });
    expect(response.status).toBe(200);
    const [first, failed, third] = response.body.results;
    expect(first.index).toBe(0);
    expect(Object.keys(first).sort()).toEqual(['index', 'result']);
    expect(failed).toMatchObject({ index: 1, error: 'chunk_size: must be >= 100', code: 'VEIL_VALIDATION_FAILED' });
    expect(failed.result).toBeUndefined();
    expect(third.index).toBe(2);
    // No shared token map: each document counts from e_001 with its own session.
    expect(first.result.chunks[0].safe_text).toMatch(/\{\{email:e_001:/);
    expect(third.result.chunks[0].safe_text).toMatch(/\{\{email:e_001:/);
    expect(tokensOf(first.result.chunks[0].safe_text)[0]).not.toBe(tokensOf(third.result.chunks[0].safe_text)[0]);
    expect(first.result.session_state).not.toBe(third.result.session_state);
    expect(openChunk(third.result.chunks[0].chunk_session_state, 'public').entries).toHaveLength(1);
  });

  it('reports per-item policy, corpus and shape errors', async () => {
    const response = await post(t.app, '/v1/rag/ingest/batch', {
      items: [{ text: 'SSN 123-45-6789', policy: 'no-ssn-in-store' }, { text: 'ok', corpus_id: '' }, { texts: 'typo' }],
    });
    expect(response.status).toBe(200);
    expect(response.body.results.map((result: { code?: string }) => result.code)).toEqual(['VEIL_POLICY_DENIED', 'VEIL_VALIDATION_FAILED', 'VEIL_VALIDATION_FAILED']);
    expect(response.body.results[1].error).toBe('corpus_id: has an invalid format');
    expect(response.body.results[2].error).toBe('text: is required');
    expectNoValues(JSON.stringify(response.body), t.logs.text());
  });

  it('enforces max_batch_size and a non-empty items list', async () => {
    const tooMany = await post(t.app, '/v1/rag/ingest/batch', { items: [{ text: 'a' }, { text: 'b' }, { text: 'c' }, { text: 'd' }] });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toBe('items: must NOT have more than 3 items');
    expect((await post(t.app, '/v1/rag/ingest/batch', { items: [] })).status).toBe(400);
    expect((await post(t.app, '/v1/rag/ingest/batch', { items: ['text'] })).status).toBe(400);
  });
});

describe('POST /v1/rag/query (4.11)', () => {
  it('returns safe_query, session_state and entities_detected', async () => {
    const response = await query({ query: `Call ${PHONE} or mail ${EMAIL_B}`, language: 'en' });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['entities_detected', 'prompt_security', 'safe_query', 'session_state']);
    expect(response.body.prompt_security).toEqual({ triggered: false, action: 'strip', findings: [] });
    expect(response.body.entities_detected).toBe(2);
    expect(tokensOf(response.body.safe_query)).toHaveLength(2);
    expectNoValues(response.body.safe_query);
  });

  it.each([
    [{ query: 'x', corpus_id: '' }, 'corpus_id: has an invalid format'],
    [{ query: 'x', corpus_id: 'a/b' }, 'corpus_id: has an invalid format'],
    [{}, 'query: is required'],
    [{ query: 'x', session_state: 'v1.x.y' }, 'session_state: unknown field'],
  ])('rejects %j', async (body, message) => {
    const response = await query(body);
    expect(response.status).toBe(400);
    expect(response.body.error).toBe(message);
  });
});

// ---------------------------------------------------------------------------------------------

/** Ingest one document (with a corpus) and return its chunks and blobs. */
async function document(text: string, options: Record<string, unknown> = {}) {
  const response = await ingest({ text, ...options });
  expect(response.status).toBe(200);
  return response.body as { chunks: { safe_text: string; chunk_session_state: string }[]; session_state: string; total_entities: number };
}

async function contextOf(body: Record<string, unknown>, app: TestApp = t, headers: Record<string, string> = {}) {
  return post(app.app, '/v1/rag/context', body, headers);
}

async function answer(body: Record<string, unknown>, app: TestApp = t, headers: Record<string, string> = {}) {
  return post(app.app, '/v1/rag/answer', body, headers);
}

describe('POST /v1/rag/context (4.12)', () => {
  it('merges document sessions so answer restores the chunks, and tokenizes raw chunk text', async () => {
    const doc = await document(DOC, { corpus_id: 'ctx' });
    const asked = await query({ query: `Anything for ${EMAIL_A}?`, corpus_id: 'ctx' });
    const raw = `Raw note: reach carol.rag@example.net.`;
    const built = await contextOf({
      chunks: [...doc.chunks.map((chunk) => chunk.safe_text), raw],
      session_state: asked.body.session_state,
      document_sessions: [...doc.chunks.map((chunk) => chunk.chunk_session_state), doc.chunks[0]!.chunk_session_state],
      corpus_id: 'ctx',
    });
    expect(built.status).toBe(200);
    expect(Object.keys(built.body).sort()).toEqual(['entities_detected', 'prompt_security', 'safe_chunks', 'session_state']);
    // The chunks' own tokens (backed by their document sessions) are not screened away.
    expect(built.body.prompt_security.triggered).toBe(false);
    expect(built.body.safe_chunks.slice(0, 2)).toEqual(doc.chunks.map((chunk) => chunk.safe_text));
    expect(built.body.safe_chunks[2]).toMatch(/^Raw note: reach \{\{email:e_[0-9a-f]{24}:[0-9a-f]{32}\}\}\.$/);
    expect(built.body.entities_detected).toBe(1);
    const reply = `Per ${built.body.safe_chunks.join(' / ')} and ${tokensOf(asked.body.safe_query)[0]}`;
    const restored = await answer({ answer: reply, session_state: built.body.session_state });
    expect(restored.status).toBe(200);
    expect(restored.body).toEqual({
      restored_answer: `Per ${DOC.split('\n\n').join(' / ')} / Raw note: reach carol.rag@example.net. and ${EMAIL_A}`,
      tokens_resolved: 5,
      tokens_unresolved: [],
      output_guard: { triggered: false, action: 'mask', findings: [] },
    });
    expectNoValues(JSON.stringify(built.body), t.logs.text());
  });

  it('without document_sessions the chunk tokens are foreign: prompt security strips them', async () => {
    const doc = await document(DOC, { corpus_id: 'ctx-bare' });
    const asked = await query({ query: 'renewal?', corpus_id: 'ctx-bare' });
    const built = await contextOf({ chunks: [doc.chunks[1]!.safe_text], session_state: asked.body.session_state });
    expect(built.status).toBe(200);
    expect(tokensOf(built.body.safe_chunks[0])).toEqual([]);
    expect(built.body.prompt_security).toMatchObject({ triggered: true, action: 'strip', findings: [{ kind: 'token', count: 2 }] });
    expect(built.body.warnings.join(' ')).toMatch(/prompt security/i);

    // With prompt security off they pass through and stay unresolved at answer.
    const app = await buildTestApp({ overrides: { prompt_security: { enabled: false } } });
    try {
      const local = (await ingest({ corpus_id: 'ctx-bare' }, app)).body;
      const localQuery = await query({ query: 'renewal?', corpus_id: 'ctx-bare' }, app);
      const open = await contextOf({ chunks: [local.chunks[1].safe_text], session_state: localQuery.body.session_state }, app);
      expect(open.body.prompt_security).toBeUndefined();
      const restored = await answer({ answer: open.body.safe_chunks[0], session_state: open.body.session_state }, app);
      expect(restored.body.tokens_resolved).toBe(0);
      expect(restored.body.tokens_unresolved).toEqual(tokensOf(local.chunks[1].safe_text).map((token: string) => ({ token, reason: 'unknown' })));
    } finally {
      await app.close();
    }
  });

  it('filters by access_level over chunk_classifications and reports chunks_filtered', async () => {
    const asked = await query({ query: 'status?' });
    const chunks = ['public text', 'internal text', 'confidential text', 'restricted text', 'mystery label', 'no label'];
    const labels = ['public', 'internal', 'confidential', 'restricted', 'top-secret'];
    const at = async (access_level: string) => contextOf({ chunks, chunk_classifications: labels, access_level, session_state: asked.body.session_state });
    const internal = await at('internal');
    expect(internal.body.safe_chunks).toEqual(['public text', 'internal text']);
    expect(internal.body.chunks_filtered).toBe(4);
    // Unknown and missing labels rank as the most restrictive level.
    const restricted = await at('restricted');
    expect(restricted.body.safe_chunks).toEqual(chunks);
    expect(restricted.body.chunks_filtered).toBeUndefined();
    const withNull = await contextOf({ chunks: ['a', 'b'], chunk_classifications: [null, 'public'], access_level: 'confidential', session_state: asked.body.session_state });
    expect(withNull.body.safe_chunks).toEqual(['b']);
    // Without access_level nothing is filtered.
    const open = await contextOf({ chunks, chunk_classifications: labels, session_state: asked.body.session_state });
    expect(open.body.safe_chunks).toEqual(chunks);
    const unlabelled = await contextOf({ chunks: ['a'], access_level: 'confidential', session_state: asked.body.session_state });
    expect(unlabelled.body).toMatchObject({ safe_chunks: [], chunks_filtered: 1 });
  });

  it('filters a restricted chunk labelled permissively on its sealed classification', async () => {
    const secret = await document(`Restricted: ${EMAIL_B}`, { corpus_id: 'lattice', document_metadata: { classification: 'restricted' } });
    const open = await document(`Public: ${EMAIL_A}`, { corpus_id: 'lattice', document_metadata: { classification: 'public' } });
    const asked = await query({ query: 'who?', corpus_id: 'lattice' });
    const built = await contextOf({
      chunks: [secret.chunks[0]!.safe_text, open.chunks[0]!.safe_text],
      chunk_classifications: ['public', 'public'],
      document_sessions: [secret.chunks[0]!.chunk_session_state, open.chunks[0]!.chunk_session_state],
      access_level: 'internal',
      session_state: asked.body.session_state,
    });
    expect(built.status).toBe(200);
    expect(built.body.safe_chunks).toEqual([open.chunks[0]!.safe_text]);
    expect(built.body.chunks_filtered).toBe(1);
    // The filtered document's values are not restorable from this context.
    const leak = await answer({ answer: secret.chunks[0]!.safe_text, session_state: built.body.session_state });
    expect(leak.body.restored_answer).not.toContain(EMAIL_B);
    expect(leak.body.tokens_resolved).toBe(0);
    // The sealed label alone (no chunk_classifications) also filters.
    const sealedOnly = await contextOf({
      chunks: [secret.chunks[0]!.safe_text],
      document_sessions: [secret.chunks[0]!.chunk_session_state],
      access_level: 'confidential',
      session_state: asked.body.session_state,
    });
    expect(sealedOnly.body).toMatchObject({ safe_chunks: [], chunks_filtered: 1 });
  });

  it('rejects an unknown access_level and malformed parallel arrays', async () => {
    const asked = await query({ query: 'x' });
    const unknown = await contextOf({ chunks: ['a'], access_level: 'secret', session_state: asked.body.session_state });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toBe('access_level: must be one of rag.classification_levels');
    const mismatch = await contextOf({ chunks: ['a', 'b'], document_sessions: ['v1.x.y'], session_state: asked.body.session_state });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error).toBe('document_sessions: must have exactly one entry per chunk');
    const labels = await contextOf({ chunks: ['a'], chunk_classifications: ['public', 'public'], session_state: asked.body.session_state });
    expect(labels.body.error).toBe('chunk_classifications: has more entries than chunks');
    const overCap = await contextOf({ chunks: Array.from({ length: 257 }, () => 'a'), session_state: asked.body.session_state });
    expect(overCap.status).toBe(400);
    expect(overCap.body.error).toBe('chunks: must NOT have more than 256 items');
    const missing = await contextOf({ chunks: ['a'] });
    expect(missing.body.error).toBe('session_state: is required');
    expect((await contextOf({ session_state: asked.body.session_state })).body.error).toBe('chunks: is required');
  });

  it('rejects a context built from anything but a query session', async () => {
    const doc = await document(DOC);
    const transformed = await post(t.app, '/v1/transform', { input: EMAIL_A });
    for (const blob of [doc.session_state, doc.chunks[0]!.chunk_session_state, transformed.body.session_state, 'v1.zz.garbage']) {
      const response = await contextOf({ chunks: [], session_state: blob });
      expect(response.status).toBe(410);
      expect(response.body.code).toBe('VEIL_SESSION_EXPIRED');
    }
  });

  it('rejects an aggregate or query session placed in a document slot', async () => {
    const doc = await document(DOC, { corpus_id: 'slots' });
    const asked = await query({ query: 'x', corpus_id: 'slots' });
    for (const blob of [doc.session_state, asked.body.session_state]) {
      const response = await contextOf({ chunks: ['a'], document_sessions: [blob], session_state: asked.body.session_state });
      expect(response.status).toBe(410);
      expect(response.body.error).toMatch(/^document_sessions\[0\]: is not a chunk_session_state/);
    }
  });

  it('rejects a corpus mismatch between the request, the query and the documents', async () => {
    const doc = await document(DOC, { corpus_id: 'corpus-a' });
    const asked = await query({ query: 'x', corpus_id: 'corpus-b' });
    const named = await contextOf({ chunks: [], session_state: asked.body.session_state, corpus_id: 'corpus-a' });
    expect(named.status).toBe(400);
    expect(named.body.error).toBe("corpus_id: does not match the query session's corpus");
    const slot = await contextOf({ chunks: [doc.chunks[0]!.safe_text], document_sessions: [doc.chunks[0]!.chunk_session_state], session_state: asked.body.session_state });
    expect(slot.status).toBe(400);
    expect(slot.body.error).toBe("document_sessions[0]: corpus does not match the query session's corpus");
    const randomQuery = await query({ query: 'x' });
    const noCorpus = await contextOf({ chunks: ['a'], document_sessions: [doc.chunks[0]!.chunk_session_state], session_state: randomQuery.body.session_state });
    expect(noCorpus.status).toBe(400);
    expect((await contextOf({ chunks: [], session_state: randomQuery.body.session_state, corpus_id: 'corpus-a' })).status).toBe(400);
  });

  it('rejects an id colliding on a different value and a cap disagreement (random scheme)', async () => {
    const alpha = await document(`Mail ${EMAIL_A}`);
    const beta = await document(`Mail ${EMAIL_B}`);
    const alphaAgain = await document(`Mail ${EMAIL_A}`);
    const asked = await query({ query: 'x' });
    const base = { session_state: asked.body.session_state };
    const collide = await contextOf({ ...base, chunks: ['a', 'b'], document_sessions: [alpha.chunks[0]!.chunk_session_state, beta.chunks[0]!.chunk_session_state] });
    expect(collide.status).toBe(400);
    expect(collide.body.error).toBe('document_sessions[1]: token id collides with a different value in document_sessions[0]');
    const caps = await contextOf({ ...base, chunks: ['a', 'b'], document_sessions: [alpha.chunks[0]!.chunk_session_state, alphaAgain.chunks[0]!.chunk_session_state] });
    expect(caps.status).toBe(400);
    expect(caps.body.error).toBe('document_sessions[1]: cap disagrees with document_sessions[0] for the same token');
    // The query's own e_001 collides with a document's e_001 of another value as well.
    const withQuery = await query({ query: `x ${EMAIL_B}` });
    const mixed = await contextOf({ session_state: withQuery.body.session_state, chunks: ['a'], document_sessions: [alpha.chunks[0]!.chunk_session_state] });
    expect(mixed.body.error).toBe('document_sessions[0]: token id collides with a different value in session_state');
    expectNoValues(JSON.stringify([collide.body, caps.body, mixed.body]));
  });

  it('rejects a token the tenant and corpus did not issue (conflicting ownership)', async () => {
    const asked = await query({ query: 'x', corpus_id: 'owned' });
    const now = Math.floor(Date.now() / 1000);
    const forged = sealSession(t.deps.reload.keyRingFor(null), {
      sid: newSessionId(),
      kind: 'chunk',
      tenant: null,
      language: 'en',
      policy: 'open',
      policyVersion: '1.0.0',
      corpusId: 'owned',
      counter: 1,
      iat: now,
      exp: now + 60,
      entries: [{ id: `e_${'0'.repeat(24)}`, type: 'email', cap: 'f'.repeat(32), value: EMAIL_A, mode: 'full' }],
    });
    const response = await contextOf({ chunks: ['a'], document_sessions: [forged], session_state: asked.body.session_state });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(/^document_sessions\[0\]: .*conflicting ownership/);
  });

  it('tightens merged tokens to the active context policy and never widens them', async () => {
    // Ingested under `open` (email full), the context policy `strict` masks e-mail.
    const loose = await document(`Mail ${EMAIL_A}`, { corpus_id: 'tight' });
    const asked = await query({ query: 'x', corpus_id: 'tight' });
    const strictContext = await contextOf({ chunks: [loose.chunks[0]!.safe_text], document_sessions: [loose.chunks[0]!.chunk_session_state], session_state: asked.body.session_state, policy: 'strict' });
    expect(strictContext.status).toBe(200);
    const masked = await answer({ answer: strictContext.body.safe_chunks[0], session_state: strictContext.body.session_state });
    expect(masked.body.tokens_resolved).toBe(1);
    expect(masked.body.restored_answer).not.toContain(EMAIL_A);
    // Ingested under `strict` (email masked), a context under `open` (full) still masks it.
    const tight = await document(`Mail ${EMAIL_B}`, { corpus_id: 'tight', policy: 'strict' });
    const openContext = await contextOf({ chunks: [tight.chunks[0]!.safe_text], document_sessions: [tight.chunks[0]!.chunk_session_state], session_state: asked.body.session_state });
    const still = await answer({ answer: openContext.body.safe_chunks[0], session_state: openContext.body.session_state });
    expect(still.body.tokens_resolved).toBe(1);
    expect(still.body.restored_answer).not.toContain(EMAIL_B);
    // A merged value the active policy denies for the model refuses the context.
    const ssn = await document('SSN 123-45-6789', { corpus_id: 'tight' });
    const denied = await contextOf({ chunks: [ssn.chunks[0]!.safe_text], document_sessions: [ssn.chunks[0]!.chunk_session_state], session_state: asked.body.session_state, policy: 'strict' });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('VEIL_POLICY_DENIED');
    expectNoValues(JSON.stringify(denied.body));
  });
});

describe('POST /v1/rag/answer (4.13)', () => {
  async function contextFor(policy?: string) {
    const doc = await document(`Mail ${EMAIL_A}`, { corpus_id: 'answers', ...(policy !== undefined ? { policy } : {}) });
    const asked = await query({ query: 'x', corpus_id: 'answers', ...(policy !== undefined ? { policy } : {}) });
    const built = await contextOf({ chunks: [doc.chunks[0]!.safe_text], document_sessions: [doc.chunks[0]!.chunk_session_state], session_state: asked.body.session_state });
    return { token: tokensOf(doc.chunks[0]!.safe_text)[0]!, sessionState: built.body.session_state as string };
  }

  it('restores under the channel ceiling (default user_output)', async () => {
    const { token, sessionState } = await contextFor();
    expect((await answer({ answer: `Hi ${token}`, session_state: sessionState })).body.restored_answer).toBe(`Hi ${EMAIL_A}`);
    expect((await answer({ answer: `Hi ${token}`, session_state: sessionState, output_channel: 'log_safe' })).body.restored_answer).toBe('Hi [REDACTED]');
    const exported = await answer({ answer: `Hi ${token}`, session_state: sessionState, output_channel: 'export' });
    expect(exported.body.restored_answer).not.toContain(EMAIL_A);
    expect((await answer({ answer: `Hi ${token}`, session_state: sessionState, output_channel: 'my-custom-sink' })).body.restored_answer).toBe('Hi [REDACTED]');
    const invalid = await answer({ answer: token, session_state: sessionState, output_channel: 'Bad Channel' });
    expect(invalid.status).toBe(400);
  });

  it('re-resolves caller-gated overrides for the answering caller; a restrictive channel still clamps', async () => {
    const { token, sessionState } = await contextFor('gated');
    const plain = await answer({ answer: token, session_state: sessionState });
    expect(plain.body.restored_answer).not.toContain(EMAIL_A);
    const supervisor = await answer({ answer: token, session_state: sessionState, context: { caller_role: 'supervisor' } });
    expect(supervisor.body.restored_answer).toBe(EMAIL_A);
    const clamped = await answer({ answer: token, session_state: sessionState, context: { caller_role: 'supervisor' }, output_channel: 'log_safe' });
    expect(clamped.body.restored_answer).toBe('[REDACTED]');
  });

  it('reports wrong caps, guessed ids and malformed tokens as unresolved, verbatim', async () => {
    const { token, sessionState } = await contextFor();
    const wrongCap = token.replace(/:[0-9a-f]{32}\}\}$/, `:${'0'.repeat(32)}}}`);
    const guessed = `{{email:e_${'a'.repeat(24)}:${'b'.repeat(32)}}}`;
    const response = await answer({ answer: `${wrongCap} ${guessed} {{email:e_1}}`, session_state: sessionState });
    expect(response.body.restored_answer).toBe(`${wrongCap} ${guessed} {{email:e_1}}`);
    expect(response.body.tokens_resolved).toBe(0);
    expect(response.body.tokens_unresolved).toEqual([
      { token: wrongCap, reason: 'unknown' },
      { token: guessed, reason: 'unknown' },
      { token: '{{email:e_1}}', reason: 'malformed' },
    ]);
  });

  it('accepts only a context session', async () => {
    const asked = await query({ query: EMAIL_A, corpus_id: 'answers' });
    const doc = await document(DOC);
    for (const blob of [asked.body.session_state, doc.session_state, doc.chunks[0]!.chunk_session_state]) {
      const response = await answer({ answer: 'x', session_state: blob });
      expect(response.status).toBe(410);
    }
    expect((await answer({ answer: 'x' })).body.error).toBe('session_state: is required');
    expect((await answer({ session_state: asked.body.session_state })).body.error).toBe('answer: is required');
  });

  it('restores a value revoked with /v1/revoke as [DELETED]', async () => {
    const { token, sessionState } = await contextFor();
    const revoked = await post(t.app, '/v1/revoke', { entity_type: 'email', value: EMAIL_A });
    expect(revoked.status).toBe(200);
    const response = await answer({ answer: `To ${token}`, session_state: sessionState });
    expect(response.body).toMatchObject({ restored_answer: 'To [DELETED]', tokens_resolved: 1 });
  });
});

describe('POST /v1/rag/delete (4.14)', () => {
  it('revokes every value of the document, invalidates its sessions and returns a manifest', async () => {
    const carol = 'carol.rag@example.net';
    const doc = await document(`Mail ${carol} or call +1 212 555 0199.`, { corpus_id: 'erase' });
    const asked = await query({ query: `About ${carol}`, corpus_id: 'erase' });
    const built = await contextOf({ chunks: [doc.chunks[0]!.safe_text], document_sessions: [doc.chunks[0]!.chunk_session_state], session_state: asked.body.session_state });
    const before = await answer({ answer: built.body.safe_chunks[0], session_state: built.body.session_state });
    expect(before.body.restored_answer).toBe(`Mail ${carol} or call +1 212 555 0199.`);

    const headers = { 'idempotency-key': 'erase-doc-1' };
    const deleted = await post(t.app, '/v1/rag/delete', { session_state: doc.session_state }, headers);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ deleted: true, session_invalidated: true, entities_purged: 2 });
    expect(deleted.body.message).toMatch(/delete its chunks from your vector store/);
    expect(deleted.body.manifest).toEqual({
      session_fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/),
      entities_revoked: 2,
      timestamp_unix: expect.any(Number),
      status: 'completed',
    });
    expect(Math.abs(deleted.body.manifest.timestamp_unix - Date.now() / 1000)).toBeLessThan(60);

    // A client's old context still holds the values; the server-side revocation wins.
    const after = await answer({ answer: built.body.safe_chunks[0], session_state: built.body.session_state });
    expect(after.body.restored_answer).toBe('Mail [DELETED] or call [DELETED].');
    // The document's blobs stop working everywhere: its chunk states in a new context...
    const stale = await contextOf({ chunks: [doc.chunks[0]!.safe_text], document_sessions: [doc.chunks[0]!.chunk_session_state], session_state: asked.body.session_state });
    expect(stale.status).toBe(410);
    expect(stale.body.error).toMatch(/^document_sessions\[0\]: the document session was invalidated/);
    // ...and the value is erased for the tenant, in any later session.
    const later = await post(t.app, '/v1/transform', { input: `again ${carol}` });
    const rehydrated = await post(t.app, '/v1/rehydrate', { output: later.body.safe_text, session_state: later.body.session_state });
    expect(rehydrated.body.restored_text).toBe('again [DELETED]');

    // An idempotent retry replays the manifest; a plain repeat erases again.
    const retry = await post(t.app, '/v1/rag/delete', { session_state: doc.session_state }, headers);
    expect(retry.headers['idempotency-replayed']).toBe('true');
    expect(retry.body).toEqual(deleted.body);
    const repeat = await post(t.app, '/v1/rag/delete', { session_state: doc.session_state });
    expect(repeat.status).toBe(200);
    expect(repeat.body.manifest.session_fingerprint).toBe(deleted.body.manifest.session_fingerprint);
    expectNoValues(JSON.stringify(deleted.body), t.logs.text());
    expect(t.logs.text()).not.toContain(carol);
  });

  it('accepts only a document (aggregate) session', async () => {
    const asked = await query({ query: 'x' });
    const doc = await document(DOC);
    for (const blob of [asked.body.session_state, doc.chunks[0]!.chunk_session_state, 'v1.abc.def']) {
      const response = await post(t.app, '/v1/rag/delete', { session_state: blob });
      expect(response.status).toBe(410);
      expect(response.body.code).toBe('VEIL_SESSION_EXPIRED');
    }
    expect((await post(t.app, '/v1/rag/delete', {})).body.error).toBe('session_state: is required');
    expect((await post(t.app, '/v1/rag/delete', { session_state: doc.session_state, extra: 1 })).status).toBe(400);
  });

  it('erases within the caller tenant; an untenanted caller needs global_revoke', async () => {
    const app = await buildTestApp({
      overrides: apiKeyOverrides([
        { key: 'tenant-a-key-0123456789', identity: 'a', tenant_id: 'acme', scopes: ['rag', 'revoke', 'transform', 'rehydrate'] },
        { key: 'tenant-b-key-0123456789', identity: 'b', tenant_id: 'globex', scopes: ['rag', 'revoke', 'transform', 'rehydrate'] },
        { key: 'platform-key-0123456789', identity: 'p', scopes: ['rag', 'revoke'] },
        { key: 'rag-only-key-0123456789', identity: 'r', tenant_id: 'acme', scopes: ['rag'] },
      ]),
    });
    const a = { 'x-api-key': 'tenant-a-key-0123456789' };
    const b = { 'x-api-key': 'tenant-b-key-0123456789' };
    try {
      const docA = await ingest({ text: `Mail ${EMAIL_A}` }, app, a);
      const docP = await ingest({ text: `Mail ${EMAIL_A}` }, app, { 'x-api-key': 'platform-key-0123456789' });
      expect(docA.status).toBe(200);
      // rag/delete needs the revoke scope.
      expect((await post(app.app, '/v1/rag/delete', { session_state: docA.body.session_state }, { 'x-api-key': 'rag-only-key-0123456789' })).status).toBe(403);
      // Tenant B cannot erase tenant A's document.
      expect((await post(app.app, '/v1/rag/delete', { session_state: docA.body.session_state }, b)).status).toBe(410);
      const platform = await post(app.app, '/v1/rag/delete', { session_state: docP.body.session_state }, { 'x-api-key': 'platform-key-0123456789' });
      expect(platform.status).toBe(403);
      expect(platform.body.error).toBe('an untenanted caller needs the global_revoke scope to revoke');
      expect((await post(app.app, '/v1/rag/delete', { session_state: docA.body.session_state }, a)).status).toBe(200);
      // Erased in tenant A only.
      const inB = await post(app.app, '/v1/transform', { input: EMAIL_A }, b);
      expect((await post(app.app, '/v1/rehydrate', { output: inB.body.safe_text, session_state: inB.body.session_state }, b)).body.restored_text).toBe(EMAIL_A);
      const inA = await post(app.app, '/v1/transform', { input: EMAIL_A }, a);
      expect((await post(app.app, '/v1/rehydrate', { output: inA.body.safe_text, session_state: inA.body.session_state }, a)).body.restored_text).toBe('[DELETED]');
    } finally {
      await app.close();
    }
  });
});

describe('guards and rate limits', () => {
  it('screens ingested text and queries with prompt security (strip by default, block refuses)', async () => {
    const planted = `Note {{email:e_${'a'.repeat(24)}:${'b'.repeat(32)}}} and ${EMAIL_A}.`;
    const stripped = await ingest({ text: planted, corpus_id: 'guard' });
    expect(stripped.status).toBe(200);
    expect(stripped.body.prompt_security).toMatchObject({ triggered: true, findings: [{ kind: 'token', count: 1 }] });
    expect(tokensOf(stripped.body.chunks[0].safe_text)).toHaveLength(1); // only the real e-mail's token
    const asked = await query({ query: planted, corpus_id: 'guard' });
    expect(asked.body.prompt_security.triggered).toBe(true);
    expect(tokensOf(asked.body.safe_query)).toHaveLength(1);

    const app = await buildTestApp({ overrides: { prompt_security: { action: 'block' } } });
    try {
      const blocked = await ingest({ text: planted }, app);
      expect(blocked.status).toBe(422);
      expect(blocked.body.code).toBe('VEIL_PROMPT_REJECTED');
      const batch = await post(app.app, '/v1/rag/ingest/batch', { items: [{ text: planted }, { text: `Mail ${EMAIL_B}` }] });
      expect(batch.body.results.map((result: { code?: string }) => result.code)).toEqual(['VEIL_PROMPT_REJECTED', undefined]);
      expect((await query({ query: planted }, app)).status).toBe(422);
      expectNoValues(JSON.stringify(blocked.body), app.logs.text());
    } finally {
      await app.close();
    }
  });

  it('guards the answer for raw values the model wrote itself', async () => {
    const asked = await query({ query: 'x' });
    const built = await contextOf({ chunks: ['nothing here'], session_state: asked.body.session_state });
    const response = await answer({ answer: `Write to ${EMAIL_B} now.`, session_state: built.body.session_state });
    expect(response.status).toBe(200);
    expect(response.body.output_guard).toMatchObject({ triggered: true, findings: [{ type: 'email', count: 1 }] });
    expect(response.body.restored_answer).not.toContain(EMAIL_B);
  });

  it('charges an ingest batch one rate-limit unit per document', async () => {
    const app = await buildTestApp({ overrides: { rate_limit: { enabled: true, requests_per_second: 0.001, burst_size: 3 } } });
    try {
      const batch = await post(app.app, '/v1/rag/ingest/batch', { items: [{ text: 'a' }, { text: 'b' }, { text: 'c' }] });
      expect(batch.status).toBe(200);
      const next = await query({ query: 'x' }, app);
      expect(next.status).toBe(429);
      expect(next.body.code).toBe('VEIL_RATE_LIMITED');
    } finally {
      await app.close();
    }
  });
});

describe('server-side session backend', () => {
  it('carries session_id for ingest, query and context, and accepts it on context, answer and delete', async () => {
    const app = await buildTestApp({ overrides: { session: { backend: 'memory' } } });
    try {
      const doc = await ingest({ text: `Mail ${EMAIL_A}`, corpus_id: 'held' }, app);
      expect(doc.body.session_id).toMatch(/^[0-9a-f]{32}$/);
      expect(doc.body.session_state).toBeUndefined();
      expect(doc.body.chunks[0].chunk_session_state).toMatch(/^v1\./);
      const asked = await query({ query: EMAIL_A, corpus_id: 'held' }, app);
      expect(asked.body.session_id).toMatch(/^[0-9a-f]{32}$/);
      const built = await contextOf({ chunks: [doc.body.chunks[0].safe_text], document_sessions: [doc.body.chunks[0].chunk_session_state], session_id: asked.body.session_id }, app);
      expect(built.status).toBe(200);
      const restored = await answer({ answer: built.body.safe_chunks[0], session_id: built.body.session_id }, app);
      expect(restored.body.restored_answer).toBe(`Mail ${EMAIL_A}`);
      const deleted = await post(app.app, '/v1/rag/delete', { session_id: doc.body.session_id });
      expect(deleted.body.manifest.status).toBe('completed');
      expect((await post(app.app, '/v1/rag/delete', { session_id: doc.body.session_id })).status).toBe(410);
      expect((await answer({ answer: built.body.safe_chunks[0], session_id: built.body.session_id }, app)).body.restored_answer).toBe('Mail [DELETED]');
    } finally {
      await app.close();
    }
  });
});

describe('expiry', () => {
  it('uses rag.document_ttl_seconds for document sessions and session.ttl_seconds for queries', async () => {
    const app = await buildTestApp({ overrides: { rag: { document_ttl_seconds: 7200 }, session: { ttl_seconds: 60 } } });
    try {
      const doc = await ingest({ text: `Mail ${EMAIL_A}`, corpus_id: 'ttl' }, app);
      app.advance(120);
      const asked = await query({ query: 'x', corpus_id: 'ttl' }, app);
      const built = await contextOf({ chunks: [doc.body.chunks[0].safe_text], document_sessions: [doc.body.chunks[0].chunk_session_state], session_state: asked.body.session_state }, app);
      expect(built.status).toBe(200);
      app.advance(120);
      expect((await answer({ answer: 'x', session_state: built.body.session_state }, app)).status).toBe(410);
      app.advance(7200);
      const late = await contextOf({ chunks: ['a'], document_sessions: [doc.body.chunks[0].chunk_session_state], session_state: (await query({ query: 'x', corpus_id: 'ttl' }, app)).body.session_state }, app);
      expect(late.status).toBe(410);
    } finally {
      await app.close();
    }
  });
});

describe('no values in logs', () => {
  it('never logs a detected value on any RAG route', () => {
    expect(t.logs.lines.length).toBeGreaterThan(10);
    expectNoValues(t.logs.text());
  });
});
