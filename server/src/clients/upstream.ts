// HTTP client of the OpenAI-compatible proxy's upstream (proxy.upstream_url): one POST with a
// JSON body, a deadline until the answer (and, for a whole answer, its body), an idle deadline
// between the pieces of a streamed answer, a byte bound on what is read, no redirects (a redirect
// could carry the upstream credential elsewhere). Every failure becomes VEIL_UPSTREAM_FAILED with
// a status a client can act on (docs/api.md, "OpenAI-compatible proxy"):
//
//   upstream 4xx             the same status (400, 404, 422, ...), 429 with its Retry-After; 401
//                            and 403 only when the caller's own key was passed through, else 502
//                            (the configured credential is Veil's problem, not the caller's)
//   upstream 5xx, network    502 (with the upstream's Retry-After, when it sent one)
//   deadline, idle stream    504
//
// The upstream's own error message is relayed (it only ever saw tokens), shortened, with control
// characters dropped and anything token-shaped replaced by `[token]`; it is never logged. The
// details logged name the failure and the status, never a body. `fetch` is injectable so tests
// drive the client against local servers.
import type { ReadableStreamDefaultReader } from 'node:stream/web';
import { TextDecoder } from 'node:util';
import { VeilError } from '@veil/common';
import { findTokensLenient } from '../domain/repair/index.js';
import { SseFormatError, SseParser } from '../domain/proxy/index.js';

export interface UpstreamOptions {
  /** proxy.upstream_url: the base the paths are appended to (`https://api.openai.com/v1`). */
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly maxResponseBytes: number;
  readonly fetch?: typeof fetch;
}

export interface UpstreamCall {
  /** Path under the base: `/chat/completions`, `/embeddings`. */
  readonly path: string;
  readonly body: unknown;
  /** `Bearer <key>`: the configured key, or the caller's own when passed through. */
  readonly authorization?: string | undefined;
  /** True when `authorization` is the caller's: an upstream 401/403 is then the caller's. */
  readonly callerCredential: boolean;
  /** Aborts the call (the client went away, the stream deadline passed). */
  readonly signal: AbortSignal;
}

/** An upstream error relayed to the client; Retry-After is sent when the upstream gave one. */
export class UpstreamError extends VeilError {
  readonly retryAfterSeconds: number | undefined;

  constructor(message: string, detail: string, status: number, retryAfterSeconds?: number) {
    super('VEIL_UPSTREAM_FAILED', message, detail, status);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Longest upstream error message relayed. */
const MAX_RELAYED_MESSAGE = 500;
/** Most bytes of an upstream error body read. */
const MAX_ERROR_BODY = 64 * 1024;

function timedOut(what: string): UpstreamError {
  return new UpstreamError(`the upstream did not answer in time (${what})`, `upstream timeout: ${what}`, 504);
}

/** The upstream's error message, made safe to relay: no control characters, no token shapes, short. */
export function relayedMessage(raw: string): string {
  // eslint-disable-next-line no-control-regex
  let text = raw.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ');
  const candidates = findTokensLenient(text);
  if (candidates.length > 0) {
    const parts: string[] = [];
    let cursor = 0;
    for (const candidate of candidates) {
      parts.push(text.slice(cursor, candidate.start), '[token]');
      cursor = candidate.end;
    }
    parts.push(text.slice(cursor));
    text = parts.join('');
  }
  text = text.trim();
  if (text.length > MAX_RELAYED_MESSAGE) text = `${text.slice(0, MAX_RELAYED_MESSAGE)}…`;
  return text;
}

/** The message of an OpenAI-style error body (`{error: {message}}`, `{error: "..."}`, `{message}`). */
export function errorMessageOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  const error = record.error;
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null && typeof (error as Record<string, unknown>).message === 'string') {
    return (error as Record<string, unknown>).message as string;
  }
  return typeof record.message === 'string' ? record.message : undefined;
}

/** Retry-After as whole seconds (a number of seconds or an HTTP date), when usable. */
function retryAfterOf(header: string | null, nowMs: number): number | undefined {
  if (header === null) return undefined;
  const trimmed = header.trim();
  if (/^\d{1,6}$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - nowMs) / 1000));
}

/** The status the client gets for an upstream's error status (see the header). */
function relayedStatus(status: number, callerCredential: boolean): number {
  if (status === 401 || status === 403) return callerCredential ? status : 502;
  if (status === 408) return 504;
  if (status >= 400 && status < 500) return status;
  return 502;
}

/** An upstream error mid-stream (`data: {"error": ...}`), relayed like an error status. */
export function streamedUpstreamError(body: unknown): UpstreamError {
  const message = errorMessageOf(body);
  return new UpstreamError(message !== undefined ? `the upstream failed during the stream: ${relayedMessage(message)}` : 'the upstream failed during the stream', 'upstream error event', 502);
}

/** What came back: the status was 2xx and the content type fits the call. */
export interface UpstreamAnswer {
  /** The whole body as JSON (non-streamed calls). */
  json(): Promise<unknown>;
  /** The `data:` payloads of a streamed answer, in order, as they arrive. */
  events(): AsyncGenerator<string>;
  /** Stop reading and release the connection. */
  cancel(): void;
}

/** Why the call's own controller aborted it. */
class Expired extends Error {
  constructor(readonly what: string) {
    super(what);
  }
}

export class UpstreamClient {
  readonly #options: UpstreamOptions;
  readonly #base: string;
  readonly #fetch: typeof fetch;

  constructor(options: UpstreamOptions) {
    const url = new URL(options.baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('UpstreamClient: baseUrl must be http(s)');
    this.#options = options;
    this.#base = options.baseUrl.replace(/\/+$/, '');
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  /**
   * POST `call.body`; resolves once the upstream answered 2xx, with the means to read the body.
   * Throws UpstreamError for an error status, a timeout or a network failure.
   */
  async post(call: UpstreamCall, stream: boolean): Promise<UpstreamAnswer> {
    const own = new AbortController();
    const signal = AbortSignal.any([call.signal, own.signal]);
    const { timeoutMs, idleTimeoutMs } = this.#options;
    let deadline: ReturnType<typeof setTimeout> | undefined = setTimeout(() => own.abort(new Expired('proxy.timeout_secs')), timeoutMs);
    const clearDeadline = (): void => {
      if (deadline !== undefined) clearTimeout(deadline);
      deadline = undefined;
    };
    const failure = (error: unknown, what: string): VeilError => {
      clearDeadline();
      if (own.signal.reason instanceof Expired) return timedOut(own.signal.reason.what);
      if (error instanceof VeilError) return error;
      if (call.signal.aborted) return new UpstreamError('the upstream call was cancelled', 'upstream call cancelled', 502);
      return new UpstreamError('the upstream could not be reached or failed while answering', `upstream ${what}: ${error instanceof Error ? error.name : 'failed'}`, 502);
    };

    let response: Response;
    try {
      response = await this.#fetch(`${this.#base}${call.path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: stream ? 'text/event-stream' : 'application/json',
          ...(call.authorization !== undefined ? { authorization: call.authorization } : {}),
        },
        body: JSON.stringify(call.body),
        signal,
        redirect: 'error',
      });
    } catch (error) {
      throw failure(error, 'request');
    }

    if (!response.ok) {
      let message: string | undefined;
      try {
        const text = new TextDecoder().decode(await readBounded(response, MAX_ERROR_BODY, true));
        message = errorMessageOf(JSON.parse(text));
      } catch (error) {
        if (own.signal.reason instanceof Expired) throw failure(error, 'error body');
        message = undefined; // not JSON, or too long: the status alone is relayed
      }
      clearDeadline();
      const status = relayedStatus(response.status, call.callerCredential);
      const relayed = message !== undefined ? relayedMessage(message) : '';
      throw new UpstreamError(
        relayed !== '' ? `the upstream answered ${response.status}: ${relayed}` : `the upstream answered ${response.status}`,
        `upstream status ${response.status}`,
        status,
        retryAfterOf(response.headers.get('retry-after'), Date.now()),
      );
    }
    const contentType = response.headers.get('content-type') ?? '';
    const expected = stream ? 'text/event-stream' : 'application/json';
    if (!contentType.toLowerCase().startsWith(expected)) {
      clearDeadline();
      own.abort(new Error('unexpected content type'));
      throw new UpstreamError(`the upstream answer is malformed: expected ${expected}`, `upstream content type: ${contentType.slice(0, 64)}`, 502);
    }
    const maxBytes = this.#options.maxResponseBytes;

    return {
      json: async () => {
        let bytes: Uint8Array;
        try {
          bytes = await readBounded(response, maxBytes, false);
        } catch (error) {
          throw failure(error, 'body');
        }
        clearDeadline();
        try {
          return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as unknown;
        } catch {
          throw new UpstreamError('the upstream answer is malformed: not JSON', 'upstream body not JSON', 502);
        }
      },
      events: async function* (): AsyncGenerator<string> {
        // The answer's deadline is replaced by the idle deadline, reset on every piece.
        clearDeadline();
        const reader = bodyReader(response);
        if (reader === undefined) throw new UpstreamError('the upstream answer is malformed: no body', 'upstream stream without body', 502);
        const decoder = new TextDecoder('utf-8', { fatal: true });
        const parser = new SseParser(maxBytes);
        let total = 0;
        try {
          for (;;) {
            const idle = setTimeout(() => own.abort(new Expired('proxy.stream_idle_timeout_secs')), idleTimeoutMs);
            let next: Awaited<ReturnType<typeof reader.read>>;
            try {
              next = await reader.read();
            } finally {
              clearTimeout(idle);
            }
            if (next.done) break;
            total += next.value.byteLength;
            if (total > maxBytes) throw new UpstreamError('the upstream answer exceeds proxy.max_response_bytes', 'upstream stream too large', 502);
            for (const data of parser.push(decodeStrict(decoder, next.value))) yield data;
          }
          for (const data of parser.push(decodeStrict(decoder))) yield data;
          parser.end();
        } catch (error) {
          if (error instanceof SseFormatError) throw new UpstreamError(`the upstream answer is malformed: ${error.message}`, 'upstream stream malformed', 502);
          throw failure(error, 'stream');
        } finally {
          reader.releaseLock();
          if (!own.signal.aborted) own.abort(new Error('done'));
        }
      },
      cancel: () => {
        clearDeadline();
        if (!own.signal.aborted) own.abort(new Error('cancelled'));
      },
    };
  }
}

/** A reader of the body's bytes (fetch bodies are byte streams). */
function bodyReader(response: Response): ReadableStreamDefaultReader<Uint8Array> | undefined {
  return (response.body as ReadableStream<Uint8Array> | null)?.getReader();
}

/** Decode a piece of a UTF-8 stream (the rest of it when `bytes` is absent); invalid UTF-8 is malformed. */
function decodeStrict(decoder: InstanceType<typeof TextDecoder>, bytes?: Uint8Array): string {
  try {
    return bytes === undefined ? decoder.decode() : decoder.decode(bytes, { stream: true });
  } catch {
    throw new UpstreamError('the upstream answer is malformed: not UTF-8', 'upstream stream not UTF-8', 502);
  }
}

/** The body, at most `maxBytes` (more: an error, or with `truncate` the first `maxBytes`). */
async function readBounded(response: Response, maxBytes: number, truncate: boolean): Promise<Uint8Array> {
  const reader = bodyReader(response);
  if (reader === undefined) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      if (total + next.value.byteLength > maxBytes) {
        if (truncate) break;
        throw new UpstreamError('the upstream answer exceeds proxy.max_response_bytes', 'upstream body too large', 502);
      }
      total += next.value.byteLength;
      chunks.push(next.value);
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
