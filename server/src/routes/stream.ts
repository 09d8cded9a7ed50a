// Server-sent event routes (interface.md 4.2, 4.4, 6.3; decisions.md section 8).
//
// POST /v1/transform/stream: the text is transformed whole first (exactly as /v1/transform, so
// a policy deny, a bad session or a replay is a normal JSON error before any byte of the
// stream), then cut on sentence and paragraph boundaries that never fall inside an entity; one
// frame per segment `{index, safe_text, entities}` and a last frame `{complete: true,
// session_state | session_id, stats, entity_context, ...}`.
//
// POST /v1/rehydrate/stream: a JSON body (as /v1/rehydrate) is restored whole and sent as
// `{index, restored_text}` frames per segment of the restored text. An `application/x-ndjson`
// body is incremental: the first line holds the rehydrate parameters without `output`; every
// further line is `{"delta": "..."}` as a model streams; restored text is emitted as soon as
// StreamRehydrator releases it, and the rest when the body ends. The session is opened, and the
// deny list and the revocations applied, exactly as /v1/rehydrate does (routes/rehydrate.ts)
// before the stream starts; and again before every delta is restored (services/stream-check.ts):
// a value revoked meanwhile restores as [DELETED] from the next delta on, and a session
// invalidated or a blob expired meanwhile ends the stream with the error frame. Both end with
// `{complete: true, tokens_resolved, tokens_unresolved}`.
//
// After the first frame an error becomes one frame `{error, complete: true}` and the stream
// ends (6.3); the message is a VeilError's own value-free message or `internal error`. No
// stream stays open longer than limits.max_stream_seconds: it then ends with that error frame
// (VEIL_LIMIT_EXCEEDED), or, when the client does not even read, its connection is closed.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isVeilError, VeilError } from '@veil/common';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { auditFacts, factSink } from '../audit/facts.js';
import { auditStreamEnd, auditStreamFailure, auditStreamStart } from '../audit/plugin.js';
import type { AppDeps } from '../deps.js';
import { splitSegments, StreamRehydrator } from '../domain/stream/index.js';
import { parseJsonBounded, type JsonStructureLimits } from '../domain/json-depth.js';
import { invalidUtf8, strictUtf8Decoder } from '../domain/text/utf8.js';
import { validationMessage } from '../plugins/errors.js';
import { deferredSource, jsonLimits } from '../plugins/json.js';
import { StreamOutputGuard } from '../domain/guard/index.js';
import { findTokensLenient } from '../domain/repair/index.js';
import { MarkupContext } from '../domain/restore/index.js';
import { createRestorer, outputGuardFor, restoreOpened, withOutputGuard, type RehydrateResponse } from '../services/rehydrate.js';
import { incomingSession } from '../services/state.js';
import { LiveSessionCheck } from '../services/stream-check.js';
import type { TransformResponse } from '../services/transform.js';
import { fingerprint, policyFact, principalOf } from './common.js';
import { isOffloaded, openInline, rehydrateOnce, rehydrateRequestOf, type RehydrateParams } from './rehydrate.js';
import { RehydrateBodySchema, RehydrateParamsSchema, TransformBodySchema, type RehydrateBody, type TransformBody } from './schemas.js';
import { inputTypeOf, structuredObject, structuredTransform, textTransform } from './transform.js';

export const NDJSON = 'application/x-ndjson';

/** Longest single ndjson line, in UTF-16 units (a delta, or the parameters line). */
export function maxLineLength(deps: AppDeps): number {
  return deps.config.server.body_limit_bytes;
}

/** After the stream deadline, how long the error frame may take to leave before the connection is cut. */
const DEADLINE_GRACE_MS = 5000;

/**
 * An SSE response on the raw socket: frames are written (and flushed) as they are produced. A
 * frame the socket cannot take waits for 'drain', but never longer than
 * limits.stream_write_timeout_seconds: a client that stopped reading has its connection closed
 * then, so it does not hold the stream's memory until the stream's lifetime runs out.
 */
class SseWriter {
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

  start(): void {
    this.#raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    this.#raw.flushHeaders();
  }

  /** Write one frame; waits for the socket to drain. False when the client is gone. */
  frame(data: unknown): Promise<boolean> {
    return this.frameJson(JSON.stringify(data));
  }

  /** Write one frame already serialized (a worker made it). */
  async frameJson(json: string): Promise<boolean> {
    if (this.#closed) return false;
    const flushed = this.#raw.write(`data: ${json}\n\n`);
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
function errorFrame(log: FastifyBaseLogger, route: string, error: unknown): { error: string; complete: true } {
  if (isVeilError(error)) {
    log.info({ event: 'stream_failed', route, code: error.code }, 'stream_failed');
    return { error: error.message, complete: true };
  }
  log.error({ event: 'stream_failed', route, code: 'VEIL_INTERNAL', error_type: error instanceof Error ? error.name : typeof error }, 'stream_failed');
  return { error: 'internal error', complete: true };
}

import { transformFrames } from '../services/frames.js';

export { transformFrames, type TransformStreamFrame } from '../services/frames.js';

/** Read an ndjson body line by line, bounding each line and the whole body. */
async function* ndjsonLines(stream: IncomingMessage, maxLine: number, maxTotal: number): AsyncGenerator<string> {
  const decoder = strictUtf8Decoder();
  const decode = (chunk?: Buffer): string => {
    try {
      return chunk === undefined ? decoder.decode() : decoder.decode(chunk, { stream: true });
    } catch {
      throw invalidUtf8('body');
    }
  };
  let buffer = '';
  let total = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxTotal) throw new VeilError('VEIL_PAYLOAD_TOO_LARGE', 'request body exceeds the size limit');
    buffer += decode(chunk);
    let newline = buffer.indexOf('\n');
    while (newline !== -1) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (line.trim() !== '') yield line;
      newline = buffer.indexOf('\n');
    }
    if (buffer.length > maxLine) throw new VeilError('VEIL_PAYLOAD_TOO_LARGE', 'ndjson line exceeds the size limit');
  }
  buffer += decode();
  if (buffer.trim() !== '') yield buffer;
}

/** `promise`, or a rejection with the signal's reason as soon as it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
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

/** A delta line: exactly `{"delta": string}`. */
function deltaOf(line: string, limits: JsonStructureLimits): string {
  const value = parseJsonBounded(line, limits, 'delta');
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new VeilError('VEIL_VALIDATION_FAILED', 'delta: must be an object');
  const keys = Object.keys(value);
  const delta = (value as { delta?: unknown }).delta;
  if (keys.length !== 1 || typeof delta !== 'string') throw new VeilError('VEIL_VALIDATION_FAILED', 'delta: each line after the first must be {"delta": string}');
  return delta;
}

export function streamRoutes(deps: AppDeps) {
  /** The full text transform of /v1/transform, with its store checks; nothing sent yet. */
  const transformWhole = async (request: FastifyRequest<{ Body: TransformBody }>) => {
    const body = request.body;
    const principal = principalOf(request);
    auditFacts(request, { ...policyFact(deps, body.policy), ...(body.trace_id !== undefined ? { trace_id: body.trace_id } : {}) });
    const inputType = inputTypeOf(body);
    const sessionState = await incomingSession(deps, body.session_id, body.session_state);
    if (inputType !== 'text') {
      // JSON and chat documents are not cut into segments: one frame carries the whole
      // tokenized document, then the completion frame.
      const whole = structuredObject(await structuredTransform(deps, request.log, body, inputType, sessionState, principal, factSink(request), deferredSource(request, 'input_json')));
      return { structured: whole };
    }
    const done = await textTransform(deps, body, principal, sessionState, factSink(request), request.log, { frames: true });
    if (done.frames !== undefined) {
      // A large text was cut into frames on the worker; the rest of the body is small.
      const rest = JSON.parse(done.serialized ?? '{}') as Omit<TransformResponse, 'safe_text' | 'entities'>;
      return { text: { frames: done.frames, rest, entities: done.entityCount ?? 0, handle: done.handle, trace: done.trace } };
    }
    const response = done.response!;
    const { safe_text: _safeText, entities, ...rest } = response;
    const frames = transformFrames(done.input, entities).map((frame) => JSON.stringify(frame));
    return { text: { frames, rest, entities: entities.length, handle: done.handle, trace: done.trace } };
  };

  /**
   * Stream frames produced by `produce` on a hijacked reply; errors become the terminal frame.
   * `deadline` aborts (with a VEIL_LIMIT_EXCEEDED reason) when limits.max_stream_seconds pass; a
   * producer waiting on its input must stop then (the ndjson rehydrate destroys its body with
   * the reason), one blocked on a client that does not read is cut off by the writer.
   */
  const runStream = async (
    reply: FastifyReply,
    log: FastifyBaseLogger,
    route: string,
    produce: (writer: SseWriter, deadline: AbortSignal) => Promise<Record<string, unknown> | undefined>,
  ): Promise<void> => {
    // The event is recorded before the first byte: under audit.strict a failure is still a JSON 503.
    await auditStreamStart(reply.request, reply);
    reply.hijack();
    const writer = new SseWriter(reply.raw, deps.config.limits.stream_write_timeout_seconds * 1000, log);
    const deadline = new AbortController();
    const limit = deps.config.limits.max_stream_seconds;
    const timer = setTimeout(() => {
      log.info({ event: 'stream_deadline', route, max_stream_seconds: limit }, 'stream_deadline');
      deadline.abort(new VeilError('VEIL_LIMIT_EXCEEDED', `the stream was open longer than limits.max_stream_seconds (${limit} s)`));
      writer.expire();
    }, limit * 1000);
    writer.start();
    try {
      if (deadline.signal.aborted) throw deadline.signal.reason;
      const last = await produce(writer, deadline.signal);
      // A producer that finished after the deadline without noticing it still ends with its frame.
      if (deadline.signal.aborted) throw deadline.signal.reason;
      if (last !== undefined) await writer.frame(last);
      if (writer.closed) log.info({ event: 'stream_client_closed', route }, 'stream_client_closed');
      else auditStreamEnd(reply.request, reply);
    } catch (error) {
      auditStreamFailure(reply.request, reply, error);
      await writer.frame(errorFrame(log, route, error));
    } finally {
      clearTimeout(timer);
      writer.end();
    }
  };

  return async function register(app: FastifyInstance): Promise<void> {
    app.post<{ Body: TransformBody }>('/v1/transform/stream', { schema: { body: TransformBodySchema }, config: { scope: 'transform' } }, async (request, reply) => {
      const result = await transformWhole(request);
      if (result.structured !== undefined) {
        const { safe_text: safeText, entities, safe_json: safeJson, safe_messages: safeMessages, ...rest } = result.structured;
        await runStream(reply, request.log, 'transform_stream', async (writer) => {
          const first = { index: 0, safe_text: safeText, entities, ...(safeJson !== undefined ? { safe_json: safeJson } : {}), ...(safeMessages !== undefined ? { safe_messages: safeMessages } : {}) };
          if (!(await writer.frame(first))) return undefined;
          return { complete: true, ...rest };
        });
        return reply;
      }
      const whole = result.text;
      await runStream(reply, request.log, 'transform_stream', async (writer) => {
        for (const frame of whole.frames) {
          if (!(await writer.frameJson(frame))) return undefined;
        }
        request.log.info({ event: 'transform_completed', streamed: true, trace_id: whole.trace, frames: whole.frames.length, entities: whole.entities }, 'transform_completed');
        return { complete: true, ...whole.handle, ...whole.rest };
      });
      return reply;
    });

    // The ndjson parser hands the route the raw request stream (bounded while it is read); it is
    // registered in this child context only, so no other route accepts ndjson.
    await app.register((child: FastifyInstance, _options: unknown, done: (error?: Error) => void) => {
      child.addContentTypeParser(NDJSON, (_request, payload, parsed) => {
        parsed(null, payload);
      });
      child.post<{ Body: RehydrateBody | IncomingMessage }>(
        '/v1/rehydrate/stream',
        { schema: { body: { content: { 'application/json': { schema: RehydrateBodySchema } } } }, config: { scope: 'rehydrate' } },
        async (request, reply) => {
          const principal = principalOf(request);
          if (request.mediaType !== NDJSON) {
            // The JSON schema is per media type, so a request without a Content-Type (and without
            // a body) reaches here unvalidated: refuse it like any missing JSON body.
            if (typeof request.body !== 'object' || request.body === null) throw new VeilError('VEIL_VALIDATION_FAILED', 'body: is required');
            const body = request.body as RehydrateBody;
            const result = await rehydrateOnce(deps, principal, body, request.log, factSink(request), true);
            // A large output was restored and cut on a worker: only the small rest of its body is parsed here.
            const segments = isOffloaded(result) ? (result.segments ?? []) : splitSegments(result.restored_text).map((segment) => segment.text);
            const response = isOffloaded(result) ? (JSON.parse(result.body) as Omit<RehydrateResponse, 'restored_text'>) : result;
            await runStream(reply, request.log, 'rehydrate_stream', async (writer) => {
              for (const [index, text] of segments.entries()) {
                if (!(await writer.frame({ index, restored_text: text }))) return undefined;
              }
              return {
                complete: true,
                tokens_resolved: response.tokens_resolved,
                tokens_unresolved: response.tokens_unresolved,
                stats: response.stats,
                trace_id: response.trace_id,
                ...(response.output_guard !== undefined ? { output_guard: response.output_guard } : {}),
                ...(response.warnings !== undefined ? { warnings: response.warnings } : {}),
              };
            });
            return reply;
          }

          // Incremental: the parameters line is checked, the session opened, and the deny list
          // and revocations applied before the stream starts (errors are JSON envelopes).
          const started = performance.now();
          const stream = request.body as IncomingMessage;
          const limit = deps.config.server.body_limit_bytes;
          const lines = ndjsonLines(stream, maxLineLength(deps), limit);
          let prepared: { base: Awaited<ReturnType<typeof rehydrateRequestOf>>; opened: Awaited<ReturnType<typeof openInline>> };
          try {
            const first = await lines.next();
            if (first.done === true) throw new VeilError('VEIL_VALIDATION_FAILED', 'body: is required');
            const params = parseJsonBounded(first.value, jsonLimits(deps.config));
            const validate = request.compileValidationSchema(RehydrateParamsSchema);
            if (!validate(params)) throw new VeilError('VEIL_VALIDATION_FAILED', validationMessage(validate.errors?.[0] ?? undefined));
            const base = await rehydrateRequestOf(deps, principal, params as RehydrateParams, '');
            const opened = await openInline(deps, base, factSink(request));
            // Validates the channel and the session's policy before the first frame.
            restoreOpened(opened.env, opened.session, { ...base, output: '', revokedIds: opened.revokedIds }, undefined, null);
            prepared = { base, opened };
          } catch (error) {
            // Answer with the JSON envelope; drain the rest of the body without keeping it.
            stream.resume();
            throw error;
          }
          const { base, opened } = prepared;
          const { env, session, revokedIds } = opened;
          // Re-checked before every delta; newly revoked ids land in `revokedIds`, which the
          // restore below reads on every piece.
          const live = new LiveSessionCheck(deps, session, base.tenant, revokedIds);
          // The output guard decides what may leave (no raw value split across frames) and
          // guards it; the pieces are then restored without guarding again.
          const guard = outputGuardFor(env, session, base.caller);
          const facts = factSink(request);
          // One restorer and one rendering context for the whole stream: a URL or tag that
          // opened in an earlier delta still clamps the tokens of later ones.
          const restorer = createRestorer(env, session, { ...base, revokedIds });
          const markup = new MarkupContext();
          const rehydrator = new StreamRehydrator((text) => restorer(text, markup), {
            guard: guard !== undefined ? new StreamOutputGuard(guard, findTokensLenient) : undefined,
          });
          const trace = fingerprint(base.traceId ?? '');
          await runStream(reply, request.log, 'rehydrate_stream', async (writer, deadline) => {
            let index = 0;
            let rest: string;
            try {
              // At the deadline the wait for the next line fails with the deadline's error.
              for (let next = await untilAborted(lines.next(), deadline); next.done !== true; next = await untilAborted(lines.next(), deadline)) {
                if (writer.closed) return undefined;
                const delta = deltaOf(next.value, jsonLimits(deps.config));
                await live.check(rehydrator.pending + delta);
                const text = rehydrator.push(delta);
                if (text !== '' && !(await writer.frame({ index: index++, restored_text: text }))) return undefined;
              }
              await live.check(rehydrator.pending);
              rest = rehydrator.end();
            } catch (error) {
              if (isVeilError(error) && error.code === 'VEIL_OUTPUT_BLOCKED') facts({ output_guard: true });
              throw error;
            } finally {
              if (deadline.aborted) {
                // The read of a body the client never finished is still pending: leave the
                // request alone until the error frame has left (destroying an unfinished request
                // closes the connection at once), then cut it.
                if (reply.raw.closed) stream.destroy();
                else reply.raw.once('close', () => stream.destroy());
              } else {
                // Client gone, a bad line or an erased session: stop reading the request.
                await lines.return(undefined);
                if (!stream.readableEnded) stream.destroy();
              }
            }
            if (guard !== undefined) facts({ output_guard: guard.triggered });
            if (rest !== '' && !(await writer.frame({ index: index++, restored_text: rest }))) return undefined;
            request.log.info(
              { event: 'rehydrate_completed', streamed: true, trace_id: trace, frames: index, resolved: rehydrator.tokensResolved, unresolved: rehydrator.tokensUnresolved.length },
              'rehydrate_completed',
            );
            return {
              complete: true,
              tokens_resolved: rehydrator.tokensResolved,
              tokens_unresolved: rehydrator.tokensUnresolved,
              stats: { rehydrate_time_ms: Math.round((performance.now() - started) * 1000) / 1000 },
              trace_id: base.traceId,
              ...(guard !== undefined ? withOutputGuard({}, guard.summary()) : {}),
            };
          });
          return reply;
        },
      );
      done();
    });
  };
}
