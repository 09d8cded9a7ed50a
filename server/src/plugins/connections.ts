// Slow and excess connections (issue 16 item 3; threats.md 19): a per-process connection table on
// the HTTP server itself, below Fastify.
//
// - At most server.max_connections open connections. When a new one arrives at the limit, the
//   oldest connection that is idle (between requests) or still sending its request (headers or
//   body) is closed to make room; connections whose request is complete (being answered) or that
//   carry a live stream are never chosen. So 20,000 clients trickling bodies cannot keep a
//   legitimate request out: it takes the place of the slowest of them. With nothing to close,
//   the new connection is refused.
// - At most server.max_connections_per_source per remote address (0: no cap, the right setting
//   behind a reverse proxy, where every connection comes from the proxy).
// - A request whose body has not fully arrived within server.request_timeout_seconds of its
//   headers is answered 408 VEIL_REQUEST_TIMEOUT and its connection closed (a trickled body).
//   Streams (the incremental ndjson rehydrate, whose body is a model's output) are exempt; they
//   have limits.max_stream_seconds. Headers are bounded by Node's own headersTimeout.
// - server.idle_timeout_seconds (Node's socket timeout: no byte moving either way) closes a
//   connection that is idle, still sending, or not reading its answer, but never one whose
//   request is complete while the server is still working on the answer: there the silence is
//   the server's, not the client's (a multi-megabyte request on a loaded machine computes for
//   longer than the idle timeout). The timer re-arms with the answer's first write.
//
// What was shed (evicted, refused, timed out) is logged as one summary line at most every 10
// seconds, never per connection: a slow-client attack must not turn into a log flood.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ERROR_CODES } from '@veil/common';
import type { FastifyBaseLogger } from 'fastify';

type Phase = 'idle' | 'request' | 'stream';

interface Tracked {
  phase: Phase;
  /** When the current phase began (ms, monotonic). */
  since: number;
  request?: IncomingMessage | undefined;
  response?: ServerResponse | undefined;
  readonly source: string;
}

export interface ConnectionGuardOptions {
  readonly maxConnections: number;
  readonly maxPerSource: number;
  readonly requestTimeoutMs: number;
  /** How often the body timeout is checked. */
  readonly sweepMs?: number;
  readonly log: FastifyBaseLogger;
}

const SUMMARY_EVERY_MS = 10_000;
/** Connections one sweep step closes before it yields to the event loop. */
const SWEEP_BATCH = 200;

export class ConnectionGuard {
  /** In order of the last phase change: the first evictable entry is the oldest. */
  readonly #tracked = new Map<Socket, Tracked>();
  readonly #perSource = new Map<string, number>();
  readonly #options: ConnectionGuardOptions;
  readonly #sweeper: NodeJS.Timeout;
  #shed = { evicted: 0, refused: 0, timedOut: 0 };
  #lastSummary = 0;

  constructor(server: Server, options: ConnectionGuardOptions) {
    this.#options = options;
    server.on('connection', (socket: Socket) => this.#connect(socket));
    server.on('request', (request: IncomingMessage, response: ServerResponse) => this.#request(request, response));
    // With a listener here Node no longer closes a timed-out socket itself: #idle decides.
    server.on('timeout', (socket: Socket) => this.#idle(socket));
    this.#sweeper = setInterval(() => this.#sweep(), options.sweepMs ?? 1000);
    this.#sweeper.unref();
    server.once('close', () => clearInterval(this.#sweeper));
  }

  /** Open connections (diagnostics, tests). */
  get size(): number {
    return this.#tracked.size;
  }

  /** The request's connection carries a live stream: no body timeout, never evicted. */
  protect(request: IncomingMessage): void {
    const tracked = this.#tracked.get(request.socket);
    if (tracked !== undefined) this.#move(request.socket, tracked, 'stream');
  }

  close(): void {
    clearInterval(this.#sweeper);
  }

  #connect(socket: Socket): void {
    const source = socket.remoteAddress ?? '';
    const { maxConnections, maxPerSource } = this.#options;
    if (maxPerSource > 0 && (this.#perSource.get(source) ?? 0) >= maxPerSource) {
      this.#refuse(socket);
      return;
    }
    if (this.#tracked.size >= maxConnections && !this.#evictOne()) {
      this.#refuse(socket);
      return;
    }
    this.#tracked.set(socket, { phase: 'idle', since: performance.now(), source });
    this.#perSource.set(source, (this.#perSource.get(source) ?? 0) + 1);
    socket.once('close', () => {
      this.#tracked.delete(socket);
      const left = (this.#perSource.get(source) ?? 1) - 1;
      if (left <= 0) this.#perSource.delete(source);
      else this.#perSource.set(source, left);
    });
  }

  #request(request: IncomingMessage, response: ServerResponse): void {
    const socket = request.socket;
    const tracked = this.#tracked.get(socket);
    if (tracked === undefined) return;
    tracked.request = request;
    tracked.response = response;
    this.#move(socket, tracked, 'request');
    response.once('close', () => {
      if (tracked.request !== request) return;
      tracked.request = undefined;
      tracked.response = undefined;
      if (this.#tracked.has(socket)) this.#move(socket, tracked, 'idle');
    });
  }

  /**
   * Node's idle timeout fired on this socket. Kept open only while its request is complete and
   * the answer has not started (the server is working); the socket's next write re-arms the
   * timer, so a client that then stops reading is still closed. Everything else closes, as Node
   * would have.
   */
  #idle(socket: Socket): void {
    const tracked = this.#tracked.get(socket);
    const request = tracked?.request;
    const working = tracked?.phase === 'request' && request?.complete === true && tracked.response?.headersSent === false;
    if (!working) socket.destroy();
  }

  #move(socket: Socket, tracked: Tracked, phase: Phase): void {
    tracked.phase = phase;
    tracked.since = performance.now();
    // Re-inserted last: the map stays ordered by the last phase change.
    this.#tracked.delete(socket);
    this.#tracked.set(socket, tracked);
  }

  /** Idle, or still sending its request: a connection the server may close to make room. */
  #evictable(tracked: Tracked): boolean {
    if (tracked.phase === 'idle') return true;
    return tracked.phase === 'request' && tracked.request?.complete === false;
  }

  #evictOne(): boolean {
    for (const [socket, tracked] of this.#tracked) {
      if (!this.#evictable(tracked)) continue;
      this.#tracked.delete(socket);
      socket.destroy();
      this.#count('evicted');
      return true;
    }
    return false;
  }

  #refuse(socket: Socket): void {
    socket.destroy();
    this.#count('refused');
  }

  /**
   * Time out the requests whose body is late. The table is ordered by the last phase change, so
   * the expired entries are at its front and the scan stops at the first one still in time: a
   * pass costs what it times out, not the table's size. Thousands of trickled bodies started
   * together expire together; they are closed SWEEP_BATCH at a time with a turn of the event
   * loop between batches, so a mass timeout never holds other requests up.
   */
  #sweep(): void {
    const deadline = performance.now() - this.#options.requestTimeoutMs;
    let closed = 0;
    for (const [socket, tracked] of this.#tracked) {
      if (tracked.since > deadline) break;
      if (tracked.phase !== 'request' || tracked.request?.complete !== false) continue;
      this.#timeout(socket, tracked);
      closed += 1;
      if (closed >= SWEEP_BATCH) {
        setImmediate(() => this.#sweep());
        return;
      }
    }
    this.#summarize();
  }

  /** 408 with the error envelope, straight on the socket (the request never finished), then close. */
  #timeout(socket: Socket, tracked: Tracked): void {
    this.#tracked.delete(socket);
    this.#count('timedOut');
    // Counted in the shed summary rather than logged one by one: a slow-client attack must not flood the log.
    const body = JSON.stringify({ code: 'VEIL_REQUEST_TIMEOUT', error: ERROR_CODES.VEIL_REQUEST_TIMEOUT.message, request_id: randomUUID() });
    if (tracked.response?.headersSent !== true && socket.writable) {
      socket.end(
        `HTTP/1.1 408 Request Timeout\r\nconnection: close\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      setTimeout(() => socket.destroy(), 1000).unref();
    } else {
      socket.destroy();
    }
  }

  #count(kind: 'evicted' | 'refused' | 'timedOut'): void {
    this.#shed[kind] += 1;
  }

  #summarize(): void {
    const now = performance.now();
    const { evicted, refused, timedOut } = this.#shed;
    if (evicted + refused + timedOut === 0 || now - this.#lastSummary < SUMMARY_EVERY_MS) return;
    this.#lastSummary = now;
    this.#options.log.warn({ event: 'connections_shed', evicted, refused, timed_out: timedOut, open: this.#tracked.size }, 'connections_shed');
    this.#shed = { evicted: 0, refused: 0, timedOut: 0 };
  }
}
