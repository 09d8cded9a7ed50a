// The TypeScript client against the real `veil serve` process: every route of the generated
// route table has a method and answers through it, errors arrive as their typed classes,
// idempotent calls are retried under one Idempotency-Key (a lost answer is replayed, not
// re-executed), 429 is retried after Retry-After, and restoreStream restores a model's delta
// stream incrementally, tokens split at every position. Where a failure cannot be produced by
// the real server on demand (a lost connection, a 503), a fetch wrapper around the real fetch
// injects it; it says so where it does.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startVeil, type ServerProcess } from '../../../e2e/support/server.js';
import {
  AuthenticationError,
  ConnectionError,
  ERROR_CODES,
  ERROR_FAMILIES,
  OPERATIONS,
  PermissionDeniedError,
  RateLimitError,
  SessionError,
  StreamError,
  UnavailableError,
  ValidationError,
  VeilClient,
  VeilError,
  type OperationName,
} from '../src/index.js';

const TEXT = 'Email jane.doe@example.com or call +1 415 555 0134 about card 4111 1111 1111 1111.';
/** RAG deletion erases its document's values everywhere: it gets values of its own. */
const RAG_TEXT = 'Contact rag.reader@example.org about IBAN DE89 3704 0044 0532 0130 00.';

/** The client method of each operation; null: served by another client (the OpenAI SDK for the proxy). */
const METHODS: Readonly<Record<string, keyof VeilClient | null>> = {
  Livez: 'livez',
  Readyz: 'readyz',
  Metrics: 'metrics',
  OpenapiJson: 'openApi',
  OpenapiHtml: 'openApiHtml',
  AdminPolicyReload: 'reloadPolicies',
  AdminPolicyValidate: 'validatePolicies',
  BatchDetect: 'batchDetect',
  BatchTransform: 'batchTransform',
  Capabilities: 'capabilities',
  Detect: 'detect',
  Diagnostics: 'diagnostics',
  EntityTypes: 'validateEntityType',
  EvaluatePolicy: 'evaluatePolicy',
  Health: 'health',
  Patterns: 'validatePattern',
  RagAnswer: 'ragAnswer',
  RagContext: 'ragContext',
  RagDelete: 'ragDelete',
  RagIngest: 'ragIngest',
  RagIngestBatch: 'ragIngestBatch',
  RagQuery: 'ragQuery',
  RedactImage: 'redactImage',
  Rehydrate: 'rehydrate',
  RehydrateFile: 'rehydrateFile',
  RehydrateStream: 'rehydrateStream',
  RevocationsCount: 'revocationsCount',
  Revoke: 'revoke',
  RevokeBulk: 'revokeBulk',
  DeleteSessions: 'deleteSession',
  SessionsStatus: 'sessionStatus',
  Transform: 'transform',
  TransformFile: 'transformFile',
  TransformImage: 'transformImage',
  TransformStream: 'transformStream',
  OpenaiChatCompletions: null,
  OpenaiEmbeddings: null,
};

let veil: ServerProcess;
let client: VeilClient;

beforeAll(async () => {
  veil = await startVeil();
  client = new VeilClient({ baseUrl: veil.url });
}, 60_000);
afterAll(async () => {
  await veil.stop();
});

function* chars(text: string): Generator<string> {
  for (const char of text) yield char;
}

describe('the route table', () => {
  it('has a client method for every operation and a family for every error code of the document', () => {
    for (const name of Object.keys(OPERATIONS)) {
      expect(Object.hasOwn(METHODS, name), `${name}: add a method (or null) to METHODS and to VeilClient`).toBe(true);
      const method = METHODS[name];
      if (method !== null && method !== undefined) expect(typeof client[method], name).toBe('function');
    }
    for (const code of ERROR_CODES) expect(ERROR_FAMILIES[code], code).toBeDefined();
  });
});

describe('every route answers through the client', () => {
  it('transforms and rehydrates text, JSON and chat', async () => {
    const transformed = await client.transform({ input: TEXT });
    expect(transformed.safe_text).not.toContain('jane.doe');
    const restored = await client.rehydrate({ output: transformed.safe_text, session_state: transformed.session_state! });
    expect(restored.restored_text).toBe(TEXT);
    const chat = await client.transform({ input_messages: [{ role: 'user', content: TEXT }] });
    expect(JSON.stringify(chat.safe_messages)).not.toContain('jane.doe');
    const json = await client.rehydrate({ output_json: { note: transformed.safe_text }, session_state: transformed.session_state! });
    expect(json.restored_json).toEqual({ note: TEXT });
  });

  it('calls the detection, policy, batch, RAG, erasure, session, file, image and operations routes', async () => {
    expect((await client.detect({ input: TEXT })).entities.length).toBeGreaterThanOrEqual(3);
    expect((await client.evaluatePolicy({ entities: [{ type: 'email' }] })).decisions).toHaveLength(1);
    expect((await client.validateEntityType({ name: 'ticket_id' })).valid).toBe(true);
    expect((await client.validatePattern({ entity_type: 'ticket', pattern: 'TCK-[0-9]{6}', sample: 'TCK-123456' })).valid).toBe(true);
    expect((await client.batchTransform({ items: [{ text: TEXT }] })).results).toHaveLength(1);
    expect((await client.batchDetect({ items: [{ text: TEXT }] })).results).toHaveLength(1);

    const ingested = await client.ragIngest({ text: RAG_TEXT, document_metadata: { document_id: 'doc-1', classification: 'internal' }, corpus_id: 'c1' });
    const query = await client.ragQuery({ query: 'Who is rag.reader@example.org?', corpus_id: 'c1' });
    const context = await client.ragContext({
      chunks: ingested.chunks.map((chunk) => chunk.safe_text),
      document_sessions: ingested.chunks.map((chunk) => chunk.chunk_session_state),
      session_state: query.session_state!,
      access_level: 'internal',
      corpus_id: 'c1',
    });
    expect((await client.ragAnswer({ answer: context.safe_chunks.join(' '), session_state: context.session_state! })).restored_answer).toContain('rag.reader@example.org');
    expect((await client.ragIngestBatch({ items: [{ text: RAG_TEXT, document_metadata: { document_id: 'doc-2', classification: 'internal' } }] })).results).toHaveLength(1);
    expect((await client.ragDelete({ session_state: ingested.session_state! })).deleted).toBe(true);

    expect((await client.revoke({ entity_type: 'email', value: 'gone@example.com' })).revoked).toBe(1);
    expect((await client.revokeBulk({ entities: [{ entity_type: 'email', value: 'gone2@example.com' }] })).revoked).toBe(1);
    expect((await client.revocationsCount()).count).toBeGreaterThanOrEqual(2);

    const session = await client.transform({ input: TEXT });
    expect((await client.sessionStatus({ session_state: session.session_state! })).state).toBe('stateless');
    expect((await client.deleteSession({ session_state: session.session_state! })).invalidated).toBe(true);
    await expect(client.sessionStatus({ session_state: session.session_state! })).rejects.toBeInstanceOf(SessionError);

    const file = await client.transformFile({ file: new File([TEXT], 'notes.txt', { type: 'text/plain' }) });
    expect(file.safe_text).not.toContain('jane.doe');
    const restoredFile = await client.rehydrateFile({ file: new File([file.safe_text], 'notes.txt'), session_state: file.session_state! });
    expect(await restoredFile.text()).toBe(TEXT);
    await expect(client.transformImage({ image: new Blob([Buffer.from('not an image')]) })).rejects.toBeInstanceOf(VeilError);
    await expect(client.redactImage({ image: new Blob([Buffer.from('not an image')]) })).rejects.toBeInstanceOf(VeilError);

    expect((await client.health()).status).toBeDefined();
    expect((await client.capabilities()).entity_types.length).toBeGreaterThan(50);
    expect((await client.diagnostics()).detector_mode).toBeDefined();
    expect(await client.metrics()).toContain('veil_transforms_total');
    expect((await client.validatePolicies({ files: { 'default.yaml': readFileSync(`${ROOT}policies/default.yaml`, 'utf8') } })).valid).toBe(true);
    expect((await client.reloadPolicies()).reloaded).toBe(false);
    expect((await client.livez()).status).toBe('ok');
    expect((await client.readyz()).status).toBe('ready');
  });

  it('streams transform and rehydrate frames', async () => {
    const frames: string[] = [];
    const transform = client.transformStream({ input: `${TEXT}\n\nAnd again: ${TEXT}` });
    let next = await transform.next();
    while (next.done !== true) {
      frames.push(next.value.safe_text);
      next = await transform.next();
    }
    expect(frames.length).toBeGreaterThan(1);
    const state = next.value.session_state!;
    let restored = '';
    for await (const frame of client.rehydrateStream({ output: frames.join(''), session_state: state })) restored += frame.restored_text;
    expect(restored).toBe(`${TEXT}\n\nAnd again: ${TEXT}`);
  });
});

describe('restoreStream', () => {
  it('restores a delta stream split at every position into exactly the original text', async () => {
    const transformed = await client.transform({ input: TEXT });
    const pieces: string[] = [];
    const stream = client.restoreStream(chars(`Reply: ${transformed.safe_text}`), { session_state: transformed.session_state! });
    let next = await stream.next();
    while (next.done !== true) {
      pieces.push(next.value);
      next = await stream.next();
    }
    expect(pieces.join('')).toBe(`Reply: ${TEXT}`);
    expect(next.value.tokens_resolved).toBe(3);
    for (const piece of pieces) expect(piece).not.toMatch(/[{}]/);
  });

  it('releases restored text while the model is still streaming', async () => {
    const long = `${TEXT} ${'Nothing to see here. '.repeat(30)}`;
    const transformed = await client.transform({ input: long });
    let firstPiece!: () => void;
    const gotFirst = new Promise<void>((resolve) => {
      firstPiece = resolve;
    });
    // The source stops half way until the consumer has received restored text: a client that
    // waited for the whole body would never get there.
    async function* model(): AsyncGenerator<string> {
      const half = Math.floor(transformed.safe_text.length / 2);
      yield* chars(transformed.safe_text.slice(0, half));
      await gotFirst;
      yield* chars(transformed.safe_text.slice(half));
    }
    let restored = '';
    for await (const piece of client.restoreStream(model(), { session_state: transformed.session_state! })) {
      restored += piece;
      firstPiece();
    }
    expect(restored).toBe(long);
  });

  it('throws StreamError when the session is invalidated while it streams', async () => {
    const transformed = await client.transform({ input: TEXT });
    let started!: () => void;
    const streaming = new Promise<void>((resolve) => {
      started = resolve;
    });
    async function* model(): AsyncGenerator<string> {
      yield 'Plain words first. '.repeat(20);
      // Once restored text came back the stream has started: an erasure now ends it with the
      // error frame (before it, the same erasure is a 410 answer instead).
      await streaming;
      await client.deleteSession({ session_state: transformed.session_state! });
      yield transformed.safe_text;
    }
    const failure = await (async () => {
      for await (const _piece of client.restoreStream(model(), { session_state: transformed.session_state! })) started();
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StreamError);
    expect((failure as StreamError).message).toMatch(/session/);
  });
});

describe('typed errors', () => {
  it('maps each failure to its family class, with code, status and request id', async () => {
    const invalid = await client.transform({ input: 'x', language: 'not a language' }).catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect(invalid).toMatchObject({ code: 'VEIL_VALIDATION_FAILED', status: 400 });
    expect((invalid as VeilError).requestId).toMatch(/^[0-9a-f-]{36}$/);
    const expired = await client.rehydrate({ output: 'x', session_state: 'v1.nope.AAAA' }).catch((error: unknown) => error);
    expect(expired).toBeInstanceOf(SessionError);
    const first = await client.transform({ input: TEXT });
    await client.transform({ input: 'more', session_state: first.session_state! });
    const replay = await client.transform({ input: 'more', session_state: first.session_state! }).catch((error: unknown) => error);
    expect(replay).toMatchObject({ code: 'VEIL_SESSION_REPLAY', status: 409 });
    expect(replay).toBeInstanceOf(SessionError);
  });

  it('raises AuthenticationError and PermissionDeniedError under api_key auth', async () => {
    const secured = await startVeil({
      env: {
        VEIL_AUTH__MODE: 'api_key',
        VEIL_AUTH__API_KEYS: '[{key: detect-only-key-0123456789, identity: reader, scopes: [detect]}]',
        VEIL_ALLOW_EPHEMERAL_AUDIT: '1',
      },
    });
    try {
      const anonymous = new VeilClient({ baseUrl: secured.url });
      await expect(anonymous.detect({ input: TEXT })).rejects.toBeInstanceOf(AuthenticationError);
      const reader = new VeilClient({ baseUrl: secured.url, apiKey: 'detect-only-key-0123456789' });
      expect((await reader.detect({ input: TEXT })).entities.length).toBeGreaterThan(0);
      const denied = await reader.transform({ input: TEXT }).catch((error: unknown) => error);
      expect(denied).toBeInstanceOf(PermissionDeniedError);
      expect((denied as VeilError).message).toBe('missing required scope: transform');
    } finally {
      await secured.stop();
    }
  });
});

describe('retries', () => {
  it('retries a lost answer of an idempotent call under the same key: executed once, replayed', async () => {
    const keys: (string | null)[] = [];
    const replayed: (string | null)[] = [];
    let calls = 0;
    // Injected failure: the real server answers the first attempt, the answer is then "lost".
    const lossy: typeof fetch = async (input, init) => {
      calls += 1;
      keys.push(new Headers(init?.headers).get('idempotency-key'));
      const response = await fetch(input, init);
      replayed.push(response.headers.get('idempotency-replayed'));
      if (calls === 1) throw new TypeError('fetch failed');
      return response;
    };
    const retrying = new VeilClient({ baseUrl: veil.url, fetch: lossy, sleep: () => Promise.resolve() });
    const revoked = await retrying.revoke({ entity_type: 'email', value: 'once@example.com' });
    expect(revoked.revoked).toBe(1);
    expect(calls).toBe(2);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(replayed).toEqual([null, 'true']);
  });

  it('does not repeat a non-idempotent call after a lost connection', async () => {
    let calls = 0;
    const broken: typeof fetch = () => {
      calls += 1;
      return Promise.reject(new TypeError('fetch failed'));
    };
    const failing = new VeilClient({ baseUrl: veil.url, fetch: broken, sleep: () => Promise.resolve() });
    await expect(failing.rehydrate({ output: 'x', session_state: 'y' })).rejects.toBeInstanceOf(ConnectionError);
    expect(calls).toBe(1);
    await expect(failing.health()).rejects.toBeInstanceOf(ConnectionError);
    expect(calls).toBe(4);
  });

  it('retries 429 after the Retry-After the real rate limiter sends', async () => {
    // One request per 20 s, burst 1: the second call is refused however loaded the machine is (a
    // token takes 20 s to come back), so nothing here depends on timing. The injected sleep records
    // each wait without waiting: every retry is refused again, and the call ends in RateLimitError
    // after maxRetries waits, each the server's Retry-After in whole seconds (never the jittered
    // backoff, under a second here), counting down as the token comes back.
    const limited = await startVeil({ env: { VEIL_RATE_LIMIT__ENABLED: 'true', VEIL_RATE_LIMIT__REQUESTS_PER_SECOND: '0.05', VEIL_RATE_LIMIT__BURST_SIZE: '1' } });
    try {
      const waits: number[] = [];
      const patient = new VeilClient({ baseUrl: limited.url, maxRetries: 2, sleep: (ms) => { waits.push(ms); return Promise.resolve(); } });
      await patient.detect({ input: 'a' });
      const refused = await patient.detect({ input: 'b' }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(RateLimitError);
      const last = (refused as RateLimitError).retryAfterSeconds;
      expect(waits).toHaveLength(2);
      for (const wait of waits) {
        expect(wait % 1000).toBe(0);
        expect(wait).toBeGreaterThanOrEqual(1000);
        expect(wait).toBeLessThanOrEqual(20_000);
      }
      expect(waits[0]).toBeGreaterThanOrEqual(waits[1]!);
      expect(waits[1]).toBeGreaterThanOrEqual((last ?? Number.NaN) * 1000);
      const impatient = new VeilClient({ baseUrl: limited.url, maxRetries: 0 });
      const again = await impatient.detect({ input: 'c' }).catch((error: unknown) => error);
      expect(again).toBeInstanceOf(RateLimitError);
      expect((again as RateLimitError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect((again as RateLimitError).retryAfterSeconds).toBeLessThanOrEqual(20);
    } finally {
      await limited.stop();
    }
  });

  it('backs off exponentially on 503 and gives up with UnavailableError', async () => {
    const waits: number[] = [];
    // Injected: the real server cannot be made to answer 503 on demand here.
    const unavailable: typeof fetch = () => Promise.resolve(new Response(JSON.stringify({ code: 'VEIL_STORE_UNAVAILABLE', error: 'state store unavailable', request_id: 'r' }), { status: 503 }));
    const client503 = new VeilClient({ baseUrl: veil.url, fetch: unavailable, maxRetries: 3, initialBackoffMs: 100, sleep: (ms) => { waits.push(ms); return Promise.resolve(); } });
    await expect(client503.detect({ input: 'x' })).rejects.toBeInstanceOf(UnavailableError);
    expect(waits).toHaveLength(3);
    expect(waits[0]).toBeGreaterThanOrEqual(50);
    expect(waits[0]).toBeLessThanOrEqual(100);
    expect(waits[2]).toBeGreaterThanOrEqual(200);
    expect(waits[2]).toBeLessThanOrEqual(400);
  });

  it('types the generic request by operation name', async () => {
    const name: OperationName = 'Detect';
    const detected = await client.request(name, { input: TEXT });
    expect(detected.entities.length).toBeGreaterThan(0);
  });
});
