// VeilClient: every route of the Veil API over fetch, typed from the server's OpenAPI document
// (src/generated/api.ts, produced by scripts/generate.ts), with typed errors (errors.ts) and
// retries:
//
// - idempotent routes (the document's Idempotency-Key routes: transform, batch transform, RAG
//   ingest and delete, revoke, DELETE /v1/sessions) get an Idempotency-Key generated once per
//   call and sent with every attempt, so a retry never applies a mutation twice;
// - 429 and 503 are retried on every route (the server refused before doing anything, or
//   withheld the result and released the key), 409 VEIL_IDEMPOTENCY_IN_PROGRESS on keyed calls,
//   and 502, 504 and connection failures only where repeating is harmless (keyed calls, GETs);
// - the wait is exponential with jitter, or the server's Retry-After when it sent one.
//
// Streams (transform/stream, rehydrate/stream, restoreStream) are async generators of frames;
// they are retried only until the response starts (an ndjson body that is being streamed is
// never re-sent).
import {
  ConnectionError,
  errorFromAnswer,
  type VeilError,
} from './errors.js';
import {
  OPERATIONS,
  type OperationName,
  type OperationTypes,
  type RehydrateRequest,
  type RehydrateResponse,
  type TransformRequest,
  type TransformResponse,
} from './generated/api.js';
import { parseFrame, sseData } from './sse.js';

export interface VeilClientOptions {
  /** Where Veil listens, e.g. `http://127.0.0.1:3000`. */
  readonly baseUrl: string;
  /** auth.mode api_key: sent as X-API-Key. */
  readonly apiKey?: string;
  /** auth.mode jwt or oidc: sent as Authorization: Bearer. */
  readonly bearerToken?: string;
  /** Retries after the first attempt (default 2). */
  readonly maxRetries?: number;
  /** Per attempt, until the answer is read (streams: until it starts). Default 60 s. */
  readonly timeoutMs?: number;
  /** First backoff step (default 500 ms), doubled per retry, capped by maxBackoffMs (default 8 s). */
  readonly initialBackoffMs?: number;
  readonly maxBackoffMs?: number;
  /** Headers sent with every call. */
  readonly headers?: Readonly<Record<string, string>>;
  /** A fetch implementation (default: the global one). */
  readonly fetch?: typeof fetch;
  /** How to wait between retries (tests replace it). */
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface CallOptions {
  readonly signal?: AbortSignal;
  /** Overrides the generated Idempotency-Key (idempotent routes only). */
  readonly idempotencyKey?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly maxRetries?: number;
  readonly timeoutMs?: number;
}

/** A frame of /v1/transform/stream. */
export interface TransformStreamFrame {
  readonly index: number;
  readonly safe_text: string;
  readonly entities: TransformResponse['entities'];
  /** JSON and chat modes: the whole tokenized document in the one frame. */
  readonly safe_json?: unknown;
  readonly safe_messages?: unknown[];
}

/** The last frame of /v1/transform/stream: the transform response without the text. */
export type TransformStreamComplete = Omit<TransformResponse, 'safe_text' | 'entities' | 'safe_json' | 'safe_messages'> & { readonly complete: true };

/** A frame of /v1/rehydrate/stream. */
export interface RehydrateStreamFrame {
  readonly index: number;
  readonly restored_text: string;
}

/** The last frame of /v1/rehydrate/stream. */
export type RehydrateStreamComplete = Omit<RehydrateResponse, 'restored_text' | 'restored_json' | 'trace_id'> & { readonly complete: true; readonly trace_id?: string };

/** The parameters of an incremental restore: the rehydrate body without the output. */
export type RestoreParams = Omit<RehydrateRequest, 'output' | 'output_json'>;

/** What a call sends: a JSON body, a multipart form, or an ndjson stream. */
type Payload = { readonly json: unknown } | { readonly form: FormData } | { readonly ndjson: ReadableStream<Uint8Array> } | undefined;

const RETRY_ALWAYS = new Set([429, 503]);
const RETRY_WHEN_SAFE = new Set([502, 504]);
/** Longest Retry-After honoured; a longer one is the caller's decision, not a silent wait. */
const MAX_RETRY_AFTER_SECONDS = 60;

/** The `read` of a stream: the response itself, body unread. */
const started = (response: Response): Promise<Response> => Promise.resolve(response);

function formOf(fields: Readonly<Record<string, unknown>>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (value instanceof Blob) form.append(name, value, value instanceof File ? value.name : name);
    else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') form.append(name, String(value));
    else throw new TypeError(`${name}: a form field must be a Blob, a string, a number or a boolean`);
  }
  return form;
}

export class VeilClient {
  readonly #base: string;
  readonly #options: VeilClientOptions;
  readonly #fetch: typeof fetch;
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(options: VeilClientOptions) {
    this.#base = options.baseUrl.replace(/\/+$/, '');
    this.#options = options;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  // -------------------------------------------------------------------------------------------
  // The generic call: any operation of the document by name.

  /** Call any JSON operation of the route table by name (e.g. `request('Detect', {...})`). */
  async request<N extends OperationName>(name: N, body: OperationTypes[N]['request'], options: CallOptions = {}): Promise<OperationTypes[N]['response']> {
    const operation = OPERATIONS[name];
    const payload: Payload = operation.body === 'multipart' ? { form: formOf(body as Record<string, unknown>) } : body === undefined ? undefined : { json: body };
    const read = async (response: Response): Promise<unknown> =>
      operation.answer === 'json' ? ((await response.json())) : operation.answer === 'text' ? await response.text() : await response.blob();
    return (await this.#send(name, payload, options, read));
  }

  // -------------------------------------------------------------------------------------------
  // Core loop.

  #headers(payload: Payload, key: string | undefined, options: CallOptions): Headers {
    const headers = new Headers(this.#options.headers);
    if (this.#options.apiKey !== undefined) headers.set('x-api-key', this.#options.apiKey);
    if (this.#options.bearerToken !== undefined) headers.set('authorization', `Bearer ${this.#options.bearerToken}`);
    if (payload !== undefined && 'json' in payload) headers.set('content-type', 'application/json');
    if (payload !== undefined && 'ndjson' in payload) headers.set('content-type', 'application/x-ndjson');
    if (key !== undefined) headers.set('idempotency-key', key);
    for (const [header, value] of Object.entries(options.headers ?? {})) headers.set(header, value);
    return headers;
  }

  /**
   * Send with retries and `read` a 2xx answer (within the attempt's deadline). Streams pass a
   * `read` that returns the response itself: their deadline ends when the answer starts.
   */
  async #send<T>(name: OperationName, payload: Payload, options: CallOptions, read: (response: Response) => Promise<T>): Promise<T> {
    const operation = OPERATIONS[name];
    const key = operation.idempotent ? (options.idempotencyKey ?? crypto.randomUUID()) : undefined;
    const safeToRepeat = key !== undefined || operation.method === 'GET';
    // A streamed request body can be sent once only.
    const maxRetries = payload !== undefined && 'ndjson' in payload ? 0 : (options.maxRetries ?? this.#options.maxRetries ?? 2);
    const body = payload === undefined ? undefined : 'json' in payload ? JSON.stringify(payload.json) : 'form' in payload ? payload.form : payload.ndjson;
    const timeoutMs = options.timeoutMs ?? this.#options.timeoutMs ?? 60_000;
    for (let attempt = 0; ; attempt += 1) {
      const timeout = new AbortController();
      const timer = setTimeout(() => timeout.abort(new Error('timeout')), timeoutMs);
      const signal = options.signal !== undefined ? AbortSignal.any([options.signal, timeout.signal]) : timeout.signal;
      let response: Response;
      try {
        response = await this.#fetch(`${this.#base}${operation.path}`, {
          method: operation.method,
          headers: this.#headers(payload, key, options),
          signal,
          ...(body !== undefined ? { body } : {}),
          // Streaming request bodies need half duplex (Node's fetch refuses them otherwise).
          ...(payload !== undefined && 'ndjson' in payload ? { duplex: 'half' } : {}),
        });
      } catch (error) {
        clearTimeout(timer);
        if (options.signal?.aborted === true) throw error;
        const failure = new ConnectionError(timeout.signal.aborted ? `no answer within ${timeoutMs} ms` : 'the connection to Veil failed', { code: 'VEIL_CONNECTION_FAILED', status: 0, cause: error });
        if (safeToRepeat && attempt < maxRetries) {
          await this.#sleep(this.#backoff(attempt, undefined));
          continue;
        }
        throw failure;
      }
      if (response.ok) {
        try {
          return await read(response);
        } catch (error) {
          if (options.signal?.aborted === true) throw error;
          throw new ConnectionError(timeout.signal.aborted ? `no answer within ${timeoutMs} ms` : 'the answer could not be read', { code: 'VEIL_CONNECTION_FAILED', status: response.status, cause: error });
        } finally {
          clearTimeout(timer);
        }
      }
      const error = errorFromAnswer(response.status, await response.text().catch(() => ''), response.headers);
      clearTimeout(timer);
      if (attempt < maxRetries && this.#retryable(error, key !== undefined, safeToRepeat)) {
        await this.#sleep(this.#backoff(attempt, error.retryAfterSeconds));
        continue;
      }
      throw error;
    }
  }

  #retryable(error: VeilError, keyed: boolean, safeToRepeat: boolean): boolean {
    if (RETRY_ALWAYS.has(error.status)) return error.retryAfterSeconds === undefined || error.retryAfterSeconds <= MAX_RETRY_AFTER_SECONDS;
    if (error.code === 'VEIL_IDEMPOTENCY_IN_PROGRESS') return keyed;
    return RETRY_WHEN_SAFE.has(error.status) && safeToRepeat;
  }

  #backoff(attempt: number, retryAfterSeconds: number | undefined): number {
    if (retryAfterSeconds !== undefined) return retryAfterSeconds * 1000;
    const initial = this.#options.initialBackoffMs ?? 500;
    const cap = this.#options.maxBackoffMs ?? 8000;
    const step = Math.min(cap, initial * 2 ** attempt);
    return step / 2 + Math.random() * (step / 2);
  }

  async *#frames<F, C>(response: Response, signal: AbortSignal | undefined): AsyncGenerator<F, C> {
    const requestId = response.headers.get('x-request-id') ?? undefined;
    if (response.body === null) throw new ConnectionError('the stream has no body', { code: 'VEIL_CONNECTION_FAILED', status: response.status });
    for await (const data of sseData(response.body, signal)) {
      const frame = parseFrame(data, requestId);
      if (frame.complete === true) return frame as C;
      yield frame as F;
    }
    throw new ConnectionError('the stream ended without its last frame', { code: 'VEIL_CONNECTION_FAILED', status: response.status });
  }

  // -------------------------------------------------------------------------------------------
  // Transform and rehydrate.

  /** POST /v1/transform (text, JSON or chat input). Idempotent: retried with one Idempotency-Key. */
  transform(body: OperationTypes['Transform']['request'], options?: CallOptions): Promise<OperationTypes['Transform']['response']> {
    return this.request('Transform', body, options);
  }

  /** POST /v1/rehydrate: restore a model output (`output`) or a tokenized JSON document (`output_json`). */
  rehydrate(body: OperationTypes['Rehydrate']['request'], options?: CallOptions): Promise<OperationTypes['Rehydrate']['response']> {
    return this.request('Rehydrate', body, options);
  }

  /** POST /v1/transform/stream: frames of the tokenized text; returns the last frame (session handle, stats). */
  async *transformStream(body: TransformRequest, options: CallOptions = {}): AsyncGenerator<TransformStreamFrame, TransformStreamComplete> {
    const response = await this.#send('TransformStream', { json: body }, options, started);
    return yield* this.#frames<TransformStreamFrame, TransformStreamComplete>(response, options.signal);
  }

  /** POST /v1/rehydrate/stream with a whole output: frames of the restored text. */
  async *rehydrateStream(body: RehydrateRequest, options: CallOptions = {}): AsyncGenerator<RehydrateStreamFrame, RehydrateStreamComplete> {
    const response = await this.#send('RehydrateStream', { json: body }, options, started);
    return yield* this.#frames<RehydrateStreamFrame, RehydrateStreamComplete>(response, options.signal);
  }

  /**
   * Turn a model's stream of text deltas into restored text as it streams: the deltas go to
   * POST /v1/rehydrate/stream as an ndjson body while the restored pieces come back, each as
   * soon as Veil can release it (a token split across deltas is restored whole, once). Yields
   * restored text; returns the last frame (counts, output guard). Needs a fetch that streams
   * request bodies (Node 18+, Deno, Bun; not browsers, which should use the proxy).
   */
  async *restoreStream(deltas: AsyncIterable<string> | Iterable<string>, params: RestoreParams, options: CallOptions = {}): AsyncGenerator<string, RehydrateStreamComplete> {
    const source = Symbol.asyncIterator in deltas ? deltas[Symbol.asyncIterator]() : (deltas)[Symbol.iterator]();
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(`${JSON.stringify(params)}\n`));
      },
      async pull(controller) {
        // Skip empty deltas without ending the body: the model sends those between tokens.
        for (;;) {
          const next = await source.next();
          if (next.done === true) {
            controller.close();
            return;
          }
          if (next.value !== '') {
            controller.enqueue(encoder.encode(`${JSON.stringify({ delta: next.value })}\n`));
            return;
          }
        }
      },
      async cancel() {
        await source.return?.();
      },
    });
    const response = await this.#send('RehydrateStream', { ndjson: body }, options, started);
    const frames = this.#frames<RehydrateStreamFrame, RehydrateStreamComplete>(response, options.signal);
    try {
      for (let next = await frames.next(); ; next = await frames.next()) {
        if (next.done === true) return next.value;
        if (next.value.restored_text !== '') yield next.value.restored_text;
      }
    } finally {
      await frames.return(undefined as never);
      await source.return?.();
    }
  }

  // -------------------------------------------------------------------------------------------
  // Files and images.

  /** POST /v1/transform/file: a document (text, Markdown, CSV, JSON, HTML, PDF, DOCX). */
  transformFile(form: OperationTypes['TransformFile']['request'], options?: CallOptions): Promise<OperationTypes['TransformFile']['response']> {
    return this.request('TransformFile', form, options);
  }

  /** POST /v1/rehydrate/file: the restored file, in its own format. */
  async rehydrateFile(form: OperationTypes['RehydrateFile']['request'], options?: CallOptions): Promise<Blob> {
    return (await this.request('RehydrateFile', form, options)) as Blob;
  }

  /** POST /v1/transform/image: OCR, then transform; entities carry pixel boxes. */
  transformImage(form: OperationTypes['TransformImage']['request'], options?: CallOptions): Promise<OperationTypes['TransformImage']['response']> {
    return this.request('TransformImage', form, options);
  }

  /** POST /v1/redact/image: a PNG with the detected regions blacked out. */
  async redactImage(form: OperationTypes['RedactImage']['request'], options?: CallOptions): Promise<Blob> {
    return (await this.request('RedactImage', form, options)) as Blob;
  }

  // -------------------------------------------------------------------------------------------
  // Detection, policy, validation, batches.

  detect(body: OperationTypes['Detect']['request'], options?: CallOptions): Promise<OperationTypes['Detect']['response']> {
    return this.request('Detect', body, options);
  }

  evaluatePolicy(body: OperationTypes['EvaluatePolicy']['request'], options?: CallOptions): Promise<OperationTypes['EvaluatePolicy']['response']> {
    return this.request('EvaluatePolicy', body, options);
  }

  validateEntityType(body: OperationTypes['EntityTypes']['request'], options?: CallOptions): Promise<OperationTypes['EntityTypes']['response']> {
    return this.request('EntityTypes', body, options);
  }

  validatePattern(body: OperationTypes['Patterns']['request'], options?: CallOptions): Promise<OperationTypes['Patterns']['response']> {
    return this.request('Patterns', body, options);
  }

  batchTransform(body: OperationTypes['BatchTransform']['request'], options?: CallOptions): Promise<OperationTypes['BatchTransform']['response']> {
    return this.request('BatchTransform', body, options);
  }

  batchDetect(body: OperationTypes['BatchDetect']['request'], options?: CallOptions): Promise<OperationTypes['BatchDetect']['response']> {
    return this.request('BatchDetect', body, options);
  }

  // -------------------------------------------------------------------------------------------
  // RAG.

  ragIngest(body: OperationTypes['RagIngest']['request'], options?: CallOptions): Promise<OperationTypes['RagIngest']['response']> {
    return this.request('RagIngest', body, options);
  }

  ragIngestBatch(body: OperationTypes['RagIngestBatch']['request'], options?: CallOptions): Promise<OperationTypes['RagIngestBatch']['response']> {
    return this.request('RagIngestBatch', body, options);
  }

  ragQuery(body: OperationTypes['RagQuery']['request'], options?: CallOptions): Promise<OperationTypes['RagQuery']['response']> {
    return this.request('RagQuery', body, options);
  }

  ragContext(body: OperationTypes['RagContext']['request'], options?: CallOptions): Promise<OperationTypes['RagContext']['response']> {
    return this.request('RagContext', body, options);
  }

  ragAnswer(body: OperationTypes['RagAnswer']['request'], options?: CallOptions): Promise<OperationTypes['RagAnswer']['response']> {
    return this.request('RagAnswer', body, options);
  }

  ragDelete(body: OperationTypes['RagDelete']['request'], options?: CallOptions): Promise<OperationTypes['RagDelete']['response']> {
    return this.request('RagDelete', body, options);
  }

  // -------------------------------------------------------------------------------------------
  // Erasure and sessions.

  revoke(body: OperationTypes['Revoke']['request'], options?: CallOptions): Promise<OperationTypes['Revoke']['response']> {
    return this.request('Revoke', body, options);
  }

  revokeBulk(body: OperationTypes['RevokeBulk']['request'], options?: CallOptions): Promise<OperationTypes['RevokeBulk']['response']> {
    return this.request('RevokeBulk', body, options);
  }

  revocationsCount(options?: CallOptions): Promise<OperationTypes['RevocationsCount']['response']> {
    return this.request('RevocationsCount', undefined, options);
  }

  sessionStatus(body: OperationTypes['SessionsStatus']['request'], options?: CallOptions): Promise<OperationTypes['SessionsStatus']['response']> {
    return this.request('SessionsStatus', body, options);
  }

  deleteSession(body: OperationTypes['DeleteSessions']['request'], options?: CallOptions): Promise<OperationTypes['DeleteSessions']['response']> {
    return this.request('DeleteSessions', body, options);
  }

  // -------------------------------------------------------------------------------------------
  // System and operations.

  health(options?: CallOptions): Promise<OperationTypes['Health']['response']> {
    return this.request('Health', undefined, options);
  }

  capabilities(options?: CallOptions): Promise<OperationTypes['Capabilities']['response']> {
    return this.request('Capabilities', undefined, options);
  }

  diagnostics(options?: CallOptions): Promise<OperationTypes['Diagnostics']['response']> {
    return this.request('Diagnostics', undefined, options);
  }

  /** GET /metrics: Prometheus text. */
  async metrics(options?: CallOptions): Promise<string> {
    return (await this.request('Metrics', undefined, options)) as string;
  }

  validatePolicies(body: OperationTypes['AdminPolicyValidate']['request'], options?: CallOptions): Promise<OperationTypes['AdminPolicyValidate']['response']> {
    return this.request('AdminPolicyValidate', body, options);
  }

  reloadPolicies(body: OperationTypes['AdminPolicyReload']['request'] = {}, options?: CallOptions): Promise<OperationTypes['AdminPolicyReload']['response']> {
    return this.request('AdminPolicyReload', body, options);
  }

  livez(options?: CallOptions): Promise<OperationTypes['Livez']['response']> {
    return this.request('Livez', undefined, options);
  }

  /** GET /readyz: resolves when ready; a not-ready server answers 503 (UnavailableError after the retries). */
  readyz(options?: CallOptions): Promise<OperationTypes['Readyz']['response']> {
    return this.request('Readyz', undefined, options);
  }

  /** GET /openapi.json: the server's OpenAPI document. */
  openApi(options?: CallOptions): Promise<OperationTypes['OpenapiJson']['response']> {
    return this.request('OpenapiJson', undefined, options);
  }

  /** GET /openapi.html: the same document, rendered. */
  async openApiHtml(options?: CallOptions): Promise<string> {
    return (await this.request('OpenapiHtml', undefined, options)) as string;
  }
}
