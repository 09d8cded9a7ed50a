// Large requests take the executor's worker path (services/offload.ts) and must answer exactly as
// the event loop would (issue 16 item 1): every route that moved work off the loop is run on an
// app whose offload threshold is tiny (everything goes to a worker) and on one with the default
// (small inputs inline), and the answers are compared after replacing what is random per
// session (token ids and caps, blobs, trace ids, timings). The full loop is closed too: what a
// worker tokenized, a worker restores to the original values.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, post, type TestApp } from '../../test/support/harness.js';

const EMAIL = 'ada.offload@example.com';
const PHONE = '+1 415 555 0134';
const CARD = '4111 1111 1111 1111';
const IBAN = 'DE89370400440532013000';
const TEXT = `Ada (${EMAIL}) asked about card ${CARD}. Call ${PHONE}.\n\nHer IBAN is ${IBAN}; mail ${EMAIL} again.`;

let inline: TestApp;
let offloaded: TestApp;

beforeAll(async () => {
  inline = await buildTestApp();
  offloaded = await buildTestApp({ overrides: { transform: { offload_threshold_bytes: 16 } } });
});
afterAll(async () => {
  await inline.close();
  await offloaded.close();
});

const TOKEN = /\{\{([a-z_:]+):[A-Za-z0-9_]+:[0-9a-f]+\}\}/g;

/** An answer with what is random per session replaced: tokens by their type, blobs, ids, timings. */
function normalized(value: unknown): unknown {
  const text = JSON.stringify(value, (key, item: unknown) => {
    if (['session_state', 'chunk_session_state', 'session_id', 'trace_id'].includes(key)) return '<session>';
    return key.endsWith('_time_ms') ? 0 : item;
  });
  // Tokens hold no JSON-escaped character: replaced in keys and values alike.
  return JSON.parse(text.replace(TOKEN, '{{$1}}')) as unknown;
}

async function both(url: string, body: unknown): Promise<[any, any]> {
  const [a, b] = await Promise.all([post(inline.app, url, body), post(offloaded.app, url, body)]);
  expect(a.status, JSON.stringify(a.body)).toBe(200);
  expect(b.status, JSON.stringify(b.body)).toBe(200);
  return [a.body, b.body];
}

describe('the worker path answers as the event loop does', () => {
  it('/v1/detect and /v1/batch/detect (entities serialized on the worker)', async () => {
    const [a, b] = await both('/v1/detect', { input: TEXT, include_values: false });
    expect(normalized(b)).toEqual(normalized(a));
    expect(a.entities.map((entity: { type: string }) => entity.type)).toEqual(['email', 'credit_card', 'phone', 'iban', 'email']);
    const [batchA, batchB] = await both('/v1/batch/detect', { items: [{ text: TEXT }, { text: 'nothing here' }] });
    expect(normalized(batchB)).toEqual(normalized(batchA));
  });

  it('/v1/batch/transform: text, JSON and chat items, shared session; the worker tokens restore', async () => {
    const items = [{ text: TEXT }, { input_json: { note: TEXT, phone: PHONE } }, { input_messages: [{ role: 'user', content: `mail ${EMAIL}` }] }];
    for (const sessionMode of ['independent', 'shared']) {
      const [a, b] = await both('/v1/batch/transform', { items, session_mode: sessionMode });
      expect(normalized(b)).toEqual(normalized(a));
      expect(b.results.map((item: { index: number }) => item.index)).toEqual([0, 1, 2]);
    }
    const [, b] = await both('/v1/batch/transform', { items });
    const restored = await post(offloaded.app, '/v1/rehydrate', { output: b.results[0].safe_text, session_state: b.results[0].session_state });
    expect(restored.body.restored_text).toBe(TEXT);
  });

  it('/v1/transform input_json and /v1/rehydrate output_json (documents parsed only on the worker)', async () => {
    const document = { customer: { email: EMAIL, notes: [TEXT, 'no value'] }, [EMAIL]: 'key holds a value' };
    const [a, b] = await both('/v1/transform', { input_json: document });
    expect(normalized(b)).toEqual(normalized(a));
    const [restoredA, restoredB] = await Promise.all([
      post(inline.app, '/v1/rehydrate', { output_json: a.safe_json, session_state: a.session_state }),
      post(offloaded.app, '/v1/rehydrate', { output_json: b.safe_json, session_state: b.session_state }),
    ]);
    expect(restoredB.body.restored_json).toEqual(document);
    expect(normalized(restoredB.body)).toEqual(normalized(restoredA.body));
  });

  it('/v1/rehydrate/stream with a JSON body: the worker cuts the segments', async () => {
    const made = await post(offloaded.app, '/v1/transform', { input: TEXT });
    const response = await offloaded.app.inject({
      method: 'POST',
      url: '/v1/rehydrate/stream',
      payload: { output: made.body.safe_text, session_state: made.body.session_state },
      headers: { 'content-type': 'application/json' },
    });
    const frames = response.body
      .split('\n\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as { restored_text?: string; complete?: boolean; tokens_resolved?: number });
    expect(frames.at(-1)).toMatchObject({ complete: true, tokens_resolved: 5 });
    expect(frames.map((frame) => frame.restored_text ?? '').join('')).toBe(TEXT);
  });

  it('RAG ingest, query, context and answer (pure halves on the worker)', async () => {
    const [ingestA, ingestB] = await both('/v1/rag/ingest', { text: TEXT, corpus_id: 'offload' });
    expect(normalized(ingestB)).toEqual(normalized(ingestA));
    const [queryA, queryB] = await both('/v1/rag/query', { query: `Anything for ${EMAIL}?`, corpus_id: 'offload' });
    expect(normalized(queryB)).toEqual(normalized(queryA));
    const raw = `Raw note: reach ${PHONE}.`;
    const contextBody = (ingest: any, query: any) => ({
      chunks: [...ingest.chunks.map((chunk: { safe_text: string }) => chunk.safe_text), raw],
      document_sessions: [...ingest.chunks.map((chunk: { chunk_session_state: string }) => chunk.chunk_session_state), ingest.chunks[0].chunk_session_state],
      session_state: query.session_state,
    });
    const [contextA, contextB] = await Promise.all([post(inline.app, '/v1/rag/context', contextBody(ingestA, queryA)), post(offloaded.app, '/v1/rag/context', contextBody(ingestB, queryB))]);
    expect(contextB.status, JSON.stringify(contextB.body)).toBe(200);
    expect(normalized(contextB.body)).toEqual(normalized(contextA.body));
    const reply = contextB.body.safe_chunks.join(' / ');
    const answered = await post(offloaded.app, '/v1/rag/answer', { answer: reply, session_state: contextB.body.session_state });
    expect(answered.status).toBe(200);
    expect(answered.body.restored_answer).toBe([...TEXT.split('\n\n'), raw].join(' / '));
    const batch = await both('/v1/rag/ingest/batch', { items: [{ text: TEXT }, { text: '' }] });
    expect(normalized(batch[1])).toEqual(normalized(batch[0]));
  });

  it('RAG clearance on the worker: context entries carry their classification, the answer redacts above the caller', async () => {
    const keys = { restricted: 'offload-restricted-key-0123456789', internal: 'offload-internal-key-0123456789' };
    const app = await buildTestApp({
      env: { VEIL_ALLOW_EPHEMERAL_AUDIT: '1' },
      overrides: {
        transform: { offload_threshold_bytes: 16 },
        auth: {
          mode: 'api_key',
          api_keys: [
            { key: keys.restricted, identity: 'restricted', tenant_id: 'acme', scopes: ['rag'], access_level: 'restricted' },
            { key: keys.internal, identity: 'internal', tenant_id: 'acme', scopes: ['rag'], access_level: 'internal' },
          ],
        },
      },
    });
    try {
      const as = (key: string) => ({ 'x-api-key': key });
      const ingest = async (text: string, classification: string) => {
        const response = await post(app.app, '/v1/rag/ingest', { text, corpus_id: 'kb', document_metadata: { classification } }, as(keys.restricted));
        expect(response.status).toBe(200);
        return response.body.chunks[0] as { safe_text: string; chunk_session_state: string };
      };
      const secret = await ingest(`Escalations go to ${EMAIL}.`, 'restricted');
      const open = await ingest(`Journalists call ${PHONE}.`, 'public');
      const query = await post(app.app, '/v1/rag/query', { query: 'who do I contact?', corpus_id: 'kb' }, as(keys.restricted));
      const built = await post(
        app.app,
        '/v1/rag/context',
        { chunks: [secret.safe_text, open.safe_text], document_sessions: [secret.chunk_session_state, open.chunk_session_state], session_state: query.body.session_state, corpus_id: 'kb' },
        as(keys.restricted),
      );
      expect(built.status, JSON.stringify(built.body)).toBe(200);
      const answer = built.body.safe_chunks.join(' ');
      const restore = (key: string) => post(app.app, '/v1/rag/answer', { answer, session_state: built.body.session_state }, as(key));
      const cleared = await restore(keys.restricted);
      expect(cleared.body.restored_answer).toBe(`Escalations go to ${EMAIL}. Journalists call ${PHONE}.`);
      const lower = await restore(keys.internal);
      expect(lower.status).toBe(200);
      expect(lower.body.restored_answer).toBe(`Escalations go to [REDACTED]. Journalists call ${PHONE}.`);
    } finally {
      await app.close();
    }
  });

  it('errors from the worker are the same envelopes', async () => {
    const refused = await post(offloaded.app, '/v1/transform', { input_json: { deep: JSON.parse(`${'['.repeat(70)}1${']'.repeat(70)}`) as unknown } });
    expect(refused.status).toBe(413);
    expect(refused.body).toMatchObject({ code: 'VEIL_PAYLOAD_TOO_LARGE' });
    const expired = await post(offloaded.app, '/v1/rag/answer', { answer: TEXT, session_state: 'v1.k.AAAA' });
    expect(expired.status).toBe(410);
    expect(expired.body).toEqual({ code: 'VEIL_SESSION_EXPIRED', error: expect.any(String), request_id: expect.any(String) });
  });
});

describe('caller patterns weigh in the executor decision', () => {
  it('a short text, JSON document or chat scanned by a costly caller pattern runs on a worker, and answers the same', async () => {
    const ops: string[] = [];
    const offload = inline.deps.offload;
    const original = offload.run.bind(offload);
    (offload as { run: typeof offload.run }).run = (task) => {
      ops.push(task.op);
      return original(task);
    };
    try {
      // 20 KB of text is far below the offload threshold; `.{1000}` makes its scan 20 M steps.
      const text = `${'ticket AB-1234 noted. '.repeat(900)}${TEXT}`;
      const custom_patterns = [{ entity_type: 'long_run', pattern: '[a-z]{1000}' }];
      const cheap = await post(inline.app, '/v1/transform', { input: text });
      expect(cheap.status).toBe(200);
      expect(ops).toEqual([]);
      for (const body of [
        { input: text, custom_patterns },
        { input_json: { note: text }, custom_patterns },
        { input_messages: [{ role: 'user', content: text }], custom_patterns },
      ]) {
        ops.length = 0;
        const answer = await post(inline.app, '/v1/transform', body);
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        expect(ops.some((op) => op === 'transform' || op === 'transform-structured')).toBe(true);
        expect(JSON.stringify(answer.body)).not.toContain(EMAIL);
      }
    } finally {
      (offload as { run: typeof offload.run }).run = original;
    }
  });
});
