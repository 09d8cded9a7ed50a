// Server-sent events on a hijacked Fastify reply, shared by the streaming routes (routes/stream.ts)
// and the OpenAI-compatible proxy (routes/openai.ts): a writer that flushes each `data:` event
// and waits for the socket to drain (at most limits.stream_write_timeout_seconds: a client that
// does not read is cut off), and one stream runner that records the audit event before the first
// byte, bounds the stream by limits.max_stream_seconds and turns an error after the first byte
// into one terminal frame.
import type { ServerResponse } from 'node:http';
import { isVeilError, VeilError } from '@veil/common';
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import { auditStreamEnd, auditStreamFailure, auditStreamStart } from '../plugins/audit.js';

/** After the stream deadline, how long the error frame may take to leave before the connection is cut. */
const DEADLINE_GRACE_MS = 5000;

/**
 * An SSE response on the raw socket: frames are written (and flushed) as they are produced. A
 * frame the socket cannot take waits for 'drain', but never longer than
 * limits.stream_write_timeout_seconds: a client that stopped reading has its connection closed
 * then, so it does not hold the stream's memory until the stream's lifetime runs out.
 */
export class SseWriter {
  #closed = false;
  /** True while a frame waits for the socket to drain (the client is not reading). */
  #waiting = false;
  readonly #raw: ServerResponse;
  readonly #writeTimeoutMs: number;
  readonly #log: FastifyBaseLogger;

  constructor(raw: ServerResponse, writeTimeoutMs: number, log: FastifyBaseLogger) {
    this.#raw = raw;
    this.#writeTimeoutMs = writeTimeoutMs;
    this.#log = log;
    raw.on('close', () => {
      this.#closed = true;
    });
  }

  /** True once the client went away (or the response ended). */
  get closed(): boolean {
    return this.#closed;
  }

  /** Send the status line and headers (`headers` adds to the event-stream ones). */
  start(headers: Readonly<Record<string, string | readonly string[]>> = {}): void {
    this.#raw.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    this.#raw.flushHeaders();
  }

  /** Write one frame; waits for the socket to drain. False when the client is gone. */
  frame(data: unknown): Promise<boolean> {
    return this.event(JSON.stringify(data));
  }

  /**
   * Write one `data:` event with this payload as is (one line: no newline inside; a frame a
   * worker serialized goes out this way). False when the client is gone or did not read it in
   * time (its connection is then closed).
   */
  async event(payload: string): Promise<boolean> {
    if (this.#closed) return false;
    const flushed = this.#raw.write(`data: ${payload}\n\n`);
    if (!flushed) {
      this.#waiting = true;
      const drained = await new Promise<boolean>((resolve) => {
        const done = (value: boolean): void => {
          clearTimeout(timer);
          this.#raw.off('drain', onDrain);
          this.#raw.off('close', onClose);
          resolve(value);
        };
        const onDrain = (): void => done(true);
        const onClose = (): void => done(false);
        const timer = setTimeout(() => done(false), this.#writeTimeoutMs);
        this.#raw.on('drain', onDrain);
        this.#raw.on('close', onClose);
      });
      this.#waiting = false;
      if (!drained && !this.#closed) {
        this.#log.info({ event: 'stream_write_timeout', write_timeout_ms: this.#writeTimeoutMs }, 'stream_write_timeout');
        this.#raw.destroy();
        this.#closed = true;
      }
    }
    return !this.#closed;
  }

  end(): void {
    if (!this.#raw.writableEnded) this.#raw.end();
  }

  /**
   * The stream's deadline passed. A client that is not reading gets its connection closed now
   * (no frame can reach it); otherwise the producer ends with the error frame, and the
   * connection is cut if even that has not left after a grace period.
   */
  expire(): void {
    if (this.#waiting) {
      this.#raw.destroy();
      return;
    }
    setTimeout(() => {
      if (!this.#raw.writableFinished) this.#raw.destroy();
    }, DEADLINE_GRACE_MS).unref();
  }
}

/** The terminal frame of 6.3: a value-free message, never an error's detail. */
export function errorFrame(log: FastifyBaseLogger, route: string, error: unknown): { error: string; complete: true } {
  if (isVeilError(error)) {
    log.info({ event: 'stream_failed', route, code: error.code }, 'stream_failed');
    return { error: error.message, complete: true };
  }
  log.error({ event: 'stream_failed', route, code: 'VEIL_INTERNAL', error_type: error instanceof Error ? error.name : typeof error }, 'stream_failed');
  return { error: 'internal error', complete: true };
}

export interface SseStreamOptions {
  readonly reply: FastifyReply;
  readonly log: FastifyBaseLogger;
  /** Route label for the log lines (`rehydrate_stream`, `proxy_chat_completions`). */
  readonly route: string;
  /** limits.max_stream_seconds. */
  readonly maxSeconds: number;
  /** limits.stream_write_timeout_seconds: how long one frame may wait for a client that does not read. */
  readonly writeTimeoutSeconds: number;
  /** Extra response headers, sent with the status line. */
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
  /**
   * Produces the frames; returns the last frame (written by the runner), or undefined when the
   * producer wrote everything itself or the client went away.
   */
  readonly produce: (writer: SseWriter, deadline: AbortSignal) => Promise<unknown>;
  /** The terminal frame for an error after the first byte; errorFrame (6.3) by default. */
  readonly errorFrame?: (log: FastifyBaseLogger, route: string, error: unknown) => unknown;
}

/**
 * Stream frames produced by `produce` on a hijacked reply; errors become the terminal frame.
 * `deadline` aborts (with a VEIL_LIMIT_EXCEEDED reason) when limits.max_stream_seconds pass; a
 * producer waiting on its input must stop then (the ndjson rehydrate destroys its body with
 * the reason), one blocked on a client that does not read is cut off by the writer.
 */
export async function runSseStream(options: SseStreamOptions): Promise<void> {
  const { reply, log, route, maxSeconds: limit } = options;
  // The event is recorded before the first byte: under audit.strict a failure is still a JSON 503.
  await auditStreamStart(reply.request, reply);
  reply.hijack();
  const writer = new SseWriter(reply.raw, options.writeTimeoutSeconds * 1000, log);
  const deadline = new AbortController();
  const timer = setTimeout(() => {
    log.info({ event: 'stream_deadline', route, max_stream_seconds: limit }, 'stream_deadline');
    deadline.abort(new VeilError('VEIL_LIMIT_EXCEEDED', `the stream was open longer than limits.max_stream_seconds (${limit} s)`));
    writer.expire();
  }, limit * 1000);
  writer.start(options.headers);
  try {
    if (deadline.signal.aborted) throw deadline.signal.reason;
    const last = await options.produce(writer, deadline.signal);
    // A producer that finished after the deadline without noticing it still ends with its frame.
    if (deadline.signal.aborted) throw deadline.signal.reason;
    if (last !== undefined) await writer.frame(last);
    if (writer.closed) log.info({ event: 'stream_client_closed', route }, 'stream_client_closed');
    else auditStreamEnd(reply.request, reply);
  } catch (error) {
    auditStreamFailure(reply.request, reply, error);
    await writer.frame((options.errorFrame ?? errorFrame)(log, route, error));
  } finally {
    clearTimeout(timer);
    writer.end();
  }
}

/** `promise`, or a rejection with the signal's reason as soon as it aborts. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error('stream read failed'));
      },
    );
  });
}
