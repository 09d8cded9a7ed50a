// JSON bodies: read as bytes and decoded as strict UTF-8 (invalid bytes are a 400, never
// U+FFFD), then small ones parsed inline (with prototype-poisoning protection), large ones on a
// worker thread so parsing a megabyte never stalls the event loop. Both first refuse absurd
// nesting with a linear pre-scan (413, like every depth bound).
import { VeilError } from '@veil/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import sjson from 'secure-json-parse';
import type { AppDeps } from '../deps.js';
import { checkJsonDepth } from '../domain/json-depth.js';
import { decodeUtf8 } from '../domain/text/utf8.js';

const rawBodies = new WeakMap<FastifyRequest, string>();

/** The raw JSON text of a request (for idempotency fingerprints). */
export function rawBodyOf(request: FastifyRequest): string | undefined {
  return rawBodies.get(request);
}

export function registerJsonParser(app: FastifyInstance, deps: AppDeps): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, async (request: FastifyRequest, body: string | Buffer) => {
    const text = typeof body === 'string' ? body : decodeUtf8(body, 'body');
    rawBodies.set(request, text);
    if (text.length === 0) throw new VeilError('VEIL_VALIDATION_FAILED', 'body: is required');
    if (text.length > deps.offload.threshold) return deps.offload.run({ op: 'parse', body: text });
    checkJsonDepth(text);
    try {
      return sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'ignore' }) as unknown;
    } catch {
      // Never forward the parser's message: it can quote the body.
      throw new VeilError('VEIL_VALIDATION_FAILED', 'body: is not valid JSON');
    }
  });
}
