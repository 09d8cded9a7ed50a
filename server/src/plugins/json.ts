// JSON bodies: read as bytes and decoded as strict UTF-8 (invalid bytes are a 400, never
// U+FFFD), then small ones parsed inline (with prototype-poisoning protection), large ones on a
// worker thread so parsing a megabyte never stalls the event loop. Both first refuse the
// structure with a linear pre-scan of the text, before any object is built (413, like every
// structure bound): nesting, members of one object (limits.max_json_object_keys) and values of
// the whole body (limits.max_json_values). The last bound also caps what a large body costs the
// event loop when its parsed value crosses back from the worker.
import { VeilError } from '@veil/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import sjson from 'secure-json-parse';
import type { VeilConfig } from '../config/index.js';
import type { AppDeps } from '../deps.js';
import { checkJsonStructure, MAX_BODY_DEPTH, type JsonStructureLimits } from '../domain/json-depth.js';
import { decodeUtf8 } from '../domain/text/utf8.js';
import type { DeferrableField, DeferredSource } from '../workers/offload-worker.js';

const rawBodies = new WeakMap<FastifyRequest, string>();

/** The raw JSON text of a request (for idempotency fingerprints). */
export function rawBodyOf(request: FastifyRequest): string | undefined {
  return rawBodies.get(request);
}

/** The structure bounds of every JSON text a request carries (bodies, ndjson lines, JSON files). */
export function jsonLimits(config: Pick<VeilConfig, 'limits'>): JsonStructureLimits {
  return { maxDepth: MAX_BODY_DEPTH, maxKeys: config.limits.max_json_object_keys, maxValues: config.limits.max_json_values };
}

/**
 * Members of a large body that are not parsed onto the event loop: input_json (transform) and
 * output_json (rehydrate) documents. In their place the body holds DEFERRED; deferredSource
 * gives the handler the raw body to send to the worker, which parses the member itself. A body of
 * half a million values therefore never crosses to the event loop as objects.
 */
const DEFERRABLE: readonly DeferrableField[] = ['input_json', 'output_json'];
const DEFERRED: unknown = Object.freeze({});
const deferredFields = new WeakMap<FastifyRequest, Set<DeferrableField>>();

/** The raw body holding `field` when the parser left it unparsed, else undefined. */
export function deferredSource(request: FastifyRequest, field: DeferrableField): DeferredSource | undefined {
  if (deferredFields.get(request)?.has(field) !== true) return undefined;
  const raw = rawBodies.get(request);
  return raw === undefined ? undefined : { raw, field };
}

export function registerJsonParser(app: FastifyInstance, deps: AppDeps): void {
  const limits = jsonLimits(deps.config);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, async (request: FastifyRequest, body: string | Buffer) => {
    const text = typeof body === 'string' ? body : decodeUtf8(body, 'body');
    rawBodies.set(request, text);
    if (text.length === 0) throw new VeilError('VEIL_VALIDATION_FAILED', 'body: is required');
    if (deps.offload.offloads(text.length)) {
      const parsed = await deps.offload.run({ op: 'parse', body: text, limits, defer: DEFERRABLE });
      if (parsed.deferred.length === 0) return parsed.value;
      // The large documents stay raw text: the handler hands them to the worker that processes them.
      const body = parsed.value as Record<string, unknown>;
      for (const field of parsed.deferred) body[field] = DEFERRED;
      deferredFields.set(request, new Set(parsed.deferred));
      return body;
    }
    checkJsonStructure(text, limits);
    try {
      return sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'ignore' }) as unknown;
    } catch {
      // Never forward the parser's message: it can quote the body.
      throw new VeilError('VEIL_VALIDATION_FAILED', 'body: is not valid JSON');
    }
  });
}
