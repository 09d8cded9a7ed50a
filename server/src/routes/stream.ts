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
// deny list and the revocations applied, exactly as /v1/rehydrate does (usecases/rehydrate.ts)
// before the stream starts; and again before every delta is restored (usecases/stream.ts):
// a value revoked meanwhile restores as [DELETED] from the next delta on, and a session
// invalidated or a blob expired meanwhile ends the stream with the error frame. Both end with
// `{complete: true, tokens_resolved, tokens_unresolved}`.
//
// After the first frame an error becomes one frame `{error, complete: true}` and the stream
// ends (6.3); the message is a VeilError's own value-free message or `internal error`. No
// stream stays open longer than limits.max_stream_seconds: it then ends with that error frame
// (VEIL_LIMIT_EXCEEDED), or, when the client does not even read, its connection is closed.
import type { IncomingMessage } from 'node:http';
import { VeilError } from '@veil/common';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { auditFacts } from '../audit/facts.js';
import type { UseCases } from '../compose.js';
import { splitSegments } from '../domain/stream/index.js';
import { parseJsonBounded, type JsonStructureLimits } from '../domain/json-depth.js';
import { invalidUtf8, strictUtf8Decoder } from '../domain/text/utf8.js';
import { validationMessage } from '../plugins/errors.js';
import { deferredSource, jsonLimits } from '../plugins/json.js';
import type { RehydrateResponse } from '../services/rehydrate.js';
import { transformFrames } from '../services/frames.js';
import type { RestoreStream } from '../usecases/stream.js';
import type { TransformResponse } from '../services/transform.js';
import { callOf, fingerprint, policyFact, principalOf, type CallerDeps, type ConfigSlice } from './common.js';
import { rehydrateCommandOf, type RehydrateParams } from './rehydrate.js';
import { runSseStream, untilAborted, type SseWriter } from './sse.js';
import { RehydrateBodySchema, RehydrateParamsSchema, TransformBodySchema, type RehydrateBody, type TransformBody } from './schemas.js';
import { commandOf, inputTypeOf } from './transform.js';
import { jsonString } from '../services/json-text.js';

export const NDJSON = 'application/x-ndjson';

/** Longest single ndjson line, in UTF-16 units (a delta, or the parameters line). */
export function maxLineLength(deps: ConfigSlice<'server'>): number {
  return deps.config.server.body_limit_bytes;
}

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

/** A delta line: exactly `{"delta": string}`. */
function deltaOf(line: string, limits: JsonStructureLimits): string {
  const value = parseJsonBounded(line, limits, 'delta');
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new VeilError('VEIL_VALIDATION_FAILED', 'delta: must be an object');
  const keys = Object.keys(value);
  const delta = (value as { delta?: unknown }).delta;
  if (keys.length !== 1 || typeof delta !== 'string') throw new VeilError('VEIL_VALIDATION_FAILED', 'delta: each line after the first must be {"delta": string}');
  return delta;
}

export function streamRoutes(deps: CallerDeps & ConfigSlice<'auth' | 'server' | 'limits'>, useCases: Pick<UseCases, 'scopeOf' | 'transform' | 'rehydrate' | 'openRestoreStream'>) {
  /** The full text transform of /v1/transform, with its store checks; nothing sent yet. */
  const transformWhole = async (request: FastifyRequest<{ Body: TransformBody }>) => {
    const body = request.body;
    const principal = principalOf(request);
    auditFacts(request, { ...policyFact(deps, body.policy), ...(body.trace_id !== undefined ? { trace_id: body.trace_id } : {}) });
    const inputType = inputTypeOf(body);
    const call = callOf(useCases, request);
    const command = commandOf(deps, body, principal);
    const trace = fingerprint(command.traceId);
    if (inputType !== 'text') {
      // JSON and chat documents are not cut into segments: one frame carries the whole
      // tokenized document, then the completion frame.
      const document = inputType === 'json' ? { kind: 'json' as const, value: body.input_json, source: deferredSource(request, 'input_json') } : { kind: 'chat_messages' as const, value: body.input_messages };
      const done = await useCases.transform.structured(call, command, document);
      request.log.debug({ event: 'transform_completed', input_type: inputType, trace_id: trace, offloaded: done.json !== undefined }, 'transform_completed');
      // A worker's body is parsed back: the document is bounded by the limits the request passed.
      return { structured: done.json !== undefined ? (JSON.parse(done.json.map(jsonString).join('')) as Record<string, unknown>) : done.object };
    }
    const done = await useCases.transform.text(call, command, body.input ?? '', { frames: true });
    if (done.frames !== undefined) {
      // A large text was cut into frames on the worker; the rest of the body is small.
      const rest = JSON.parse(jsonString(done.serialized ?? '{}')) as Omit<TransformResponse, 'safe_text' | 'entities'>;
      return { text: { frames: done.frames, rest, entities: done.entityCount ?? 0, handle: done.handle, trace } };
    }
    const response = done.response!;
    const { safe_text: _safeText, entities, ...rest } = response;
    const frames = transformFrames(done.input, entities).map((frame) => JSON.stringify(frame));
    return { text: { frames, rest, entities: entities.length, handle: done.handle, trace } };
  };

  const runStream = (
    reply: FastifyReply,
    log: FastifyBaseLogger,
    route: string,
    produce: (writer: SseWriter, deadline: AbortSignal) => Promise<Record<string, unknown> | undefined>,
  ): Promise<void> =>
    runSseStream({ reply, log, route, maxSeconds: deps.config.limits.max_stream_seconds, writeTimeoutSeconds: deps.config.limits.stream_write_timeout_seconds, produce });

  return async function register(app: FastifyInstance): Promise<void> {
    app.post<{ Body: TransformBody }>('/v1/transform/stream', { schema: { body: TransformBodySchema }, config: { scope: 'transform', deferDocuments: true } }, async (request, reply) => {
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
          if (!(await writer.event(frame))) return undefined;
        }
        request.log.debug({ event: 'transform_completed', streamed: true, trace_id: whole.trace, frames: whole.frames.length, entities: whole.entities }, 'transform_completed');
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
            const call = callOf(useCases, request);
            const base = await useCases.rehydrate.request(call, rehydrateCommandOf(deps, principal, body), body.output);
            const run = await useCases.rehydrate.text(call, base, { segments: true });
            const trace = fingerprint(base.traceId ?? '');
            // A large output was restored and cut on a worker: only the small rest of its body is parsed here.
            const segments = run.where === 'worker' ? (run.result.segments ?? []) : splitSegments(run.response.restored_text).map((segment) => segment.text);
            const response = run.where === 'worker' ? (JSON.parse(jsonString(run.result.body)) as Omit<RehydrateResponse, 'restored_text'>) : run.response;
            if (run.where === 'worker') request.log.debug({ event: 'rehydrate_completed', trace_id: trace, offloaded: true, resolved: run.result.tokensResolved }, 'rehydrate_completed');
            else request.log.debug({ event: 'rehydrate_completed', trace_id: trace, resolved: run.response.tokens_resolved, unresolved: run.response.tokens_unresolved.length }, 'rehydrate_completed');
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
          const call = callOf(useCases, request);
          let prepared: { base: Awaited<ReturnType<UseCases['rehydrate']['request']>>; restore: RestoreStream };
          try {
            const first = await lines.next();
            if (first.done === true) throw new VeilError('VEIL_VALIDATION_FAILED', 'body: is required');
            const params = parseJsonBounded(first.value, jsonLimits(deps.config));
            const validate = request.compileValidationSchema(RehydrateParamsSchema);
            if (!validate(params)) throw new VeilError('VEIL_VALIDATION_FAILED', validationMessage(validate.errors?.[0] ?? undefined));
            const base = await useCases.rehydrate.request(call, rehydrateCommandOf(deps, principal, params as RehydrateParams), '');
            prepared = { base, restore: await useCases.openRestoreStream(call, base) };
          } catch (error) {
            // Answer with the JSON envelope; drain the rest of the body without keeping it.
            stream.resume();
            throw error;
          }
          const { base, restore } = prepared;
          const trace = fingerprint(base.traceId ?? '');
          await runStream(reply, request.log, 'rehydrate_stream', async (writer, deadline) => {
            let index = 0;
            let rest: string;
            try {
              // At the deadline the wait for the next line fails with the deadline's error.
              for (let next = await untilAborted(lines.next(), deadline); next.done !== true; next = await untilAborted(lines.next(), deadline)) {
                if (writer.closed) return undefined;
                const text = await restore.push(deltaOf(next.value, jsonLimits(deps.config)));
                if (text !== '' && !(await writer.frame({ index: index++, restored_text: text }))) return undefined;
              }
              rest = await restore.end();
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
            if (rest !== '' && !(await writer.frame({ index: index++, restored_text: rest }))) return undefined;
            const { tokens_resolved: resolved, tokens_unresolved: unresolved, ...guarded } = restore.summary();
            request.log.debug({ event: 'rehydrate_completed', streamed: true, trace_id: trace, frames: index, resolved, unresolved: unresolved.length }, 'rehydrate_completed');
            return {
              complete: true,
              tokens_resolved: resolved,
              tokens_unresolved: unresolved,
              stats: { rehydrate_time_ms: Math.round((performance.now() - started) * 1000) / 1000 },
              trace_id: base.traceId,
              ...guarded,
            };
          });
          return reply;
        },
      );
      done();
    });
  };
}
