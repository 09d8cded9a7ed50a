// Admission of large requests and streams (issue 16 item 2), and closing the connection of an
// early error (item 3).
//
// A root onRequest hook, after authentication and the rate limiter and before the body is read:
// a request whose declared body is above transform.offload_threshold_bytes, or whose length is
// unknown (chunked), takes a slot of limits.max_large_requests; an incremental ndjson rehydrate
// stream takes one of limits.max_streams instead (and its connection is exempt from the body
// timeout and from eviction, plugins/connections.ts). Each is also charged the memory it will
// need, in proportion to its body (services/overload.ts RSS_PER_BODY_BYTE): the declared
// Content-Length; a chunked body provisionally for server.body_limit_bytes (at most what the
// process at rest has room for) until the parser has read it, then for its real size (refused
// then, before any work, if that does not fit); an ndjson stream of unknown length for the offload threshold (its
// lines are bounded and handled one at a time). A refusal (no slot, the process near its memory
// budget, or the charges of the work in progress leaving no room) is 503 VEIL_OVERLOADED with
// Retry-After before a byte of the body is read; the slot and the charge are given back when
// the response ends or the connection closes.
//
// An error answered before the request body was fully received (401, 413, 503, ...) carries
// `Connection: close`, and the connection is not reused. It is not cut the moment the answer is
// written either: closing a socket with unread bytes sends a reset, and a client still sending
// its body (many write it all before reading) would get ECONNRESET / EPIPE instead of the status.
// So the answer is followed by a half-close (FIN), and what the client still sends is read and
// discarded, never kept, for at most EARLY_DRAIN_MS and server.body_limit_bytes; then, or when
// the client has finished, the connection is closed. A trickling client is cut at the bound.
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { ConfigSlice } from '../config/index.js';
import type { BodyOffload } from '../usecases/executor.js';
import type { Admission, Ticket } from '../services/overload.js';
import type { ConnectionGuard } from './connections.js';
import { bodySize } from './json.js';
import { requestSlot, routeOptionsOf } from './request-slot.js';

/** The longest an early answer's connection stays open to discard what its client still sends. */
export const EARLY_DRAIN_MS = 5000;

/**
 * Node closes a `Connection: close` connection with socket.destroySoon() once the answer is
 * written; on this socket that becomes: FIN now, discard what arrives, close when the client
 * ends or a bound is passed.
 */
function drainBeforeClose(socket: Socket, maxBytes: number, maxMs: number): void {
  socket.destroySoon = function drainThenDestroy(this: Socket): void {
    if (this.destroyed) return;
    this.end();
    let discarded = 0;
    const close = (): void => {
      clearTimeout(timer);
      this.destroy();
    };
    const timer = setTimeout(close, maxMs);
    timer.unref();
    // The HTTP parser still reads the socket (it discards a finished request's body bytes);
    // this only counts them.
    this.on('data', (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > maxBytes) close();
    });
    this.once('end', close);
    this.once('close', () => clearTimeout(timer));
  };
}

/** The ticket of a chunked large body, settled to its real size once parsed. */
const unsettled = requestSlot<Ticket>('veil.admission-unsettled');

const NDJSON = 'application/x-ndjson';

/** Routes whose ndjson body is a live stream (a model's output), not an upload. */
const STREAM_ROUTES = new Set(['/v1/rehydrate/stream']);

/** Admission's dependencies: the body limit, and the executor's inline-or-worker decision (what counts as large). */
export interface AdmissionDeps extends ConfigSlice<'server'> {
  readonly offload: Pick<BodyOffload, 'offloads' | 'threshold'>;
}

export function registerAdmission(app: FastifyInstance, deps: AdmissionDeps, admission: Admission, guard: ConnectionGuard | undefined): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (request.is404 || routeOptionsOf(request).config.scope === 'public') {
      done();
      return;
    }
    const headers = request.raw.headers;
    const declared = headers['content-length'];
    const chunked = declared === undefined && headers['transfer-encoding'] !== undefined;
    const stream = STREAM_ROUTES.has(routeOptionsOf(request).url ?? '') && (headers['content-type'] ?? '').toLowerCase().startsWith(NDJSON);
    const large = chunked || (declared !== undefined && deps.offload.offloads(Number(declared)));
    if (!stream && !large) {
      done();
      return;
    }
    const length = declared !== undefined ? Number(declared) : undefined;
    let ticket: Ticket;
    try {
      ticket = stream
        ? admission.admitStream(length ?? deps.offload.threshold)
        : admission.admitLarge(length ?? deps.config.server.body_limit_bytes, length === undefined);
    } catch (error) {
      done(error as Error);
      return;
    }
    reply.raw.once('close', () => ticket.release());
    if (stream) guard?.protect(request.raw);
    else if (length === undefined) unsettled.set(request, ticket);
    done();
  });

  // A chunked JSON body has been read: charge what it is, not what it could have been.
  app.addHook('preValidation', (request, _reply, done) => {
    const ticket = unsettled.get(request);
    if (ticket !== undefined) {
      unsettled.delete(request);
      try {
        // Before any work on it: a body too large for the memory there is is refused here.
        ticket.settle(bodySize(request));
      } catch (error) {
        done(error as Error);
        return;
      }
    }
    done();
  });

  const drainBytes = deps.config.server.body_limit_bytes;
  app.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode >= 400 && !request.raw.complete) {
      void reply.header('connection', 'close');
      const socket = request.raw.socket as Socket | null;
      if (socket !== null) drainBeforeClose(socket, drainBytes, EARLY_DRAIN_MS);
    }
    done(null, payload);
  });
}
