// JSON bodies: read as bytes and decoded as strict UTF-8 (invalid bytes are a 400, never
// U+FFFD), then parsed with prototype-poisoning protection after a linear pre-scan of the text
// refuses its structure before any object is built (413, like every structure bound): nesting,
// members of one object (limits.max_json_object_keys) and values of the whole body
// (limits.max_json_values).
//
// A body above twice transform.offload_threshold_bytes (the executor decides: parseBody) never costs
// the event loop time in proportion to its size beyond one copy of its bytes: they go to a worker thread, which decodes, checks,
// parses and fingerprints it (for Idempotency-Key) there. Its large documents (input_json,
// output_json) do not even come back as objects: they stay in the raw bytes (deferredSource)
// until the worker that transforms or restores them parses them. What does come back is bounded
// by limits.max_json_values.
import { createHash } from 'node:crypto';
import { VeilError } from '@veil/common';
import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';
import type { ConfigSlice, VeilConfig } from '../config/index.js';
import { MAX_BODY_DEPTH, parseJsonBounded, type JsonStructureLimits } from '../domain/json-depth.js';
import type { BodyOffload } from '../usecases/executor.js';
import type { DeferrableField, DeferredSource } from '../workers/offload-worker.js';
import { requestSlot, routeOptionsOf } from './request-slot.js';

/** What is kept of a request's raw body: its size, and what the idempotency fingerprint needs. */
interface RawBody {
  readonly bytes: number;
  /** The text of a small body (hashed when an Idempotency-Key asks for it). */
  readonly text?: string;
  /** A large body: its fingerprint, computed on the worker. */
  readonly fingerprint?: string;
  /** A large body with deferred members: its bytes, for the worker that processes them. */
  readonly raw?: Uint8Array;
}

const rawBodies = requestSlot<RawBody>('veil.raw-body');

/** Size in bytes of a request's JSON body (0 without one). */
export function bodySize(request: FastifyRequest): number {
  return rawBodies.get(request)?.bytes ?? 0;
}

/** The prefix of the fingerprint: the same request sent to another route is another request. */
function fingerprintPrefix(request: FastifyRequest): string {
  return `${request.method}\n${routeOptionsOf(request).url ?? request.url}\n`;
}

/** SHA-256 of method, route and raw body: what an Idempotency-Key is bound to. */
export function bodyFingerprint(request: FastifyRequest): string {
  const raw = rawBodies.get(request);
  if (raw?.fingerprint !== undefined) return raw.fingerprint;
  return createHash('sha256')
    .update(fingerprintPrefix(request))
    .update(raw?.text ?? '')
    .digest('hex');
}

/** The structure bounds of every JSON text a request carries (bodies, ndjson lines, JSON files). */
export function jsonLimits(config: Pick<VeilConfig, 'limits'>): JsonStructureLimits {
  return { maxDepth: MAX_BODY_DEPTH, maxKeys: config.limits.max_json_object_keys, maxValues: config.limits.max_json_values };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The handler reads a large body's input_json / output_json through deferredSource (they are
     * left unparsed). Only such routes opt in: on any other route (the OpenAI proxy's pass-through
     * bodies, say) a member of that name is an ordinary field and is parsed like the rest.
     */
    deferDocuments?: boolean;
  }
}

/**
 * Members of a large body that are not parsed onto the event loop: input_json (transform) and
 * output_json (rehydrate) documents, on the routes that opt in (deferDocuments). In their place
 * the body holds DEFERRED; deferredSource gives the handler the raw body to send to the worker,
 * which parses the member itself. A body of half a million values therefore never crosses to the
 * event loop as objects.
 */
const DEFERRABLE: readonly DeferrableField[] = ['input_json', 'output_json'];
const DEFERRED: unknown = Object.freeze({});
const deferredFields = requestSlot<Set<DeferrableField>>('veil.deferred-fields');

/** The raw body holding `field` when the parser left it unparsed, else undefined. */
export function deferredSource(request: FastifyRequest, field: DeferrableField): DeferredSource | undefined {
  if (deferredFields.get(request)?.has(field) !== true) return undefined;
  const raw = rawBodies.get(request)?.raw;
  return raw === undefined ? undefined : { raw, field };
}

/** Bodies are gathered as chunks up to this size; past it into one buffer of the declared length. */
const GATHER_BYTES = 64 * 1024;

/**
 * A request body's bytes, with Fastify's own checks (its body limit, a declared length that does
 * not match what arrived). Unlike Fastify's reader, a large body with a Content-Length is copied
 * chunk by chunk into one buffer of that length as it arrives, so no single step copies the
 * whole body (a final concatenation of 9 MB held the event loop 40 ms under load). The buffer is
 * only allocated once 64 KiB have actually arrived, so a declared length alone reserves nothing.
 */
export function readBody(payload: NodeJS.ReadableStream, limit: number, declaredHeader: string | undefined): Promise<Buffer> {
  const declared = declaredHeader === undefined ? Number.NaN : Number(declaredHeader);
  if (declared > limit) return Promise.reject(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let target: Buffer | undefined;
    let received = 0;
    const finish = (error?: Error): void => {
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onEnd);
      if (error !== undefined) reject(error);
    };
    function onData(data: Buffer | string): void {
      const chunk = typeof data === 'string' ? Buffer.from(data) : data;
      if (received + chunk.length > limit) {
        finish(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
        return;
      }
      if (target === undefined && Number.isInteger(declared) && received + chunk.length > GATHER_BYTES) {
        if (received + chunk.length > declared) {
          finish(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
          return;
        }
        target = Buffer.allocUnsafeSlow(declared);
        let offset = 0;
        for (const gathered of chunks) offset += gathered.copy(target, offset);
        chunks = [];
      }
      if (target !== undefined) {
        if (received + chunk.length > target.length) {
          finish(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
          return;
        }
        chunk.copy(target, received);
      } else {
        // A copy: a chunk may be a view of the socket's shared read buffer.
        chunks.push(Buffer.from(chunk));
      }
      received += chunk.length;
    }
    function onEnd(error?: Error & { statusCode?: number }): void {
      if (error !== undefined && error !== null) {
        if (!(typeof error.statusCode === 'number' && error.statusCode >= 400)) error.statusCode = 400;
        finish(error);
        return;
      }
      finish();
      if (!Number.isNaN(declared) && received !== declared) {
        reject(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
        return;
      }
      resolve(target ?? (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received)));
    }
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onEnd);
    payload.resume();
  });
}

/** The JSON parser's dependencies: the body and structure limits, and the executor's body offload. */
export interface JsonParserDeps extends ConfigSlice<'server' | 'limits'> {
  readonly offload: Pick<BodyOffload, 'parseBody'>;
}

export function registerJsonParser(app: FastifyInstance, deps: JsonParserDeps): void {
  const limits = jsonLimits(deps.config);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', async (request: FastifyRequest, payload: NodeJS.ReadableStream) => {
    const bytes = await readBody(payload, routeOptionsOf(request).bodyLimit ?? deps.config.server.body_limit_bytes, request.headers['content-length']);
    const size = bytes.length;
    if (size === 0) throw new VeilError('VEIL_VALIDATION_FAILED', 'body: is required');
    // Small: decoded here; large: decoded, parsed and fingerprinted on a worker (the executor decides).
    const run = deps.offload.parseBody(bytes, () => ({ defer: routeOptionsOf(request).config.deferDocuments === true ? DEFERRABLE : [], fingerprintPrefix: fingerprintPrefix(request) }));
    if (run.where === 'worker') {
      const parsed = await run.parsed;
      rawBodies.set(request, { bytes: size, fingerprint: parsed.fingerprint, ...(parsed.deferred.length > 0 ? { raw: bytes } : {}) });
      if (parsed.deferred.length === 0) return parsed.value;
      // The large documents stay raw: the handler hands them to the worker that processes them.
      const value = parsed.value as Record<string, unknown>;
      for (const field of parsed.deferred) value[field] = DEFERRED;
      deferredFields.set(request, new Set(parsed.deferred));
      return value;
    }
    const text = run.text;
    rawBodies.set(request, { bytes: size, text });
    return parseJsonBounded(text, limits);
  });
}
