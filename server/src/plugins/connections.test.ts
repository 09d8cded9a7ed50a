// The connection guard on a real HTTP server over loopback: at the limit the oldest idle or
// still-sending connection makes room (never one being answered, never a stream), a full table
// of busy connections refuses newcomers, the per-source cap, and the body timeout answering 408
// with the envelope (streams exempt). Event-driven waits only: each check waits for the socket
// event that proves it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionGuard } from './connections.js';

let server: Server | undefined;
let guard: ConnectionGuard | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  guard?.close();
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  server = undefined;
});

/** A server whose handler never answers `/hold` (a request being processed) and answers the rest. */
async function start(
  options: { maxConnections: number; maxPerSource?: number; requestTimeoutMs?: number; idleMs?: number },
  onRequest?: (request: IncomingMessage) => void,
): Promise<number> {
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    onRequest?.(request);
    if (request.url === '/hold') return;
    request.resume();
    // /work: the answer comes after a silence of 3 idle timeouts (a long computation);
    // /stall: the answer starts, then nothing more moves (as for a client that stopped reading).
    if (request.url === '/work') request.on('end', () => setTimeout(() => response.end('done'), 3 * (options.idleMs ?? 0)));
    else if (request.url === '/stall') request.on('end', () => response.writeHead(200, { 'content-length': '100' }).write('part'));
    else request.on('end', () => response.end('ok'));
  });
  // Node's idle timeout (Fastify's connectionTimeout): no byte moving either way for this long.
  if (options.idleMs !== undefined) server.setTimeout(options.idleMs);
  guard = new ConnectionGuard(server, {
    maxConnections: options.maxConnections,
    maxPerSource: options.maxPerSource ?? 0,
    requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
    sweepMs: 20,
    log: pino({ enabled: false }),
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

/** A connected socket (optionally from another loopback address) and everything it received. */
async function open(port: number, localAddress?: string): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  const socket = connect({ host: '127.0.0.1', port, ...(localAddress !== undefined ? { localAddress } : {}) });
  sockets.push(socket);
  let text = '';
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return { socket, received: () => text, closed };
}

/** Wait until the server has seen `count` connections. */
async function connected(count: number): Promise<void> {
  while (guard!.size < count) await new Promise((resolve) => setImmediate(resolve));
}

describe('ConnectionGuard', () => {
  it('at the limit, closes the oldest idle or still-sending connection to make room', async () => {
    const port = await start({ maxConnections: 3 });
    const first = await open(port);
    const second = await open(port);
    second.socket.write('POST /slow HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n{"a"');
    const third = await open(port);
    await connected(3);
    const fourth = await open(port);
    await first.closed;
    expect(first.socket.destroyed).toBe(true);
    // The newcomer is served.
    fourth.socket.write('GET / HTTP/1.1\r\nhost: x\r\n\r\n');
    while (!fourth.received().includes('ok')) await new Promise((resolve) => setImmediate(resolve));
    expect(fourth.received()).toMatch(/^HTTP\/1\.1 200/);
    // Then in the order they last changed phase: the idle third, then the second (its body
    // started arriving before the newcomers, and is still not complete).
    await open(port);
    await third.closed;
    expect(second.socket.destroyed).toBe(false);
    await open(port);
    await second.closed;
    expect(fourth.socket.destroyed).toBe(false);
  });

  it('never closes a connection whose request is being answered; with nothing to close it refuses the newcomer', async () => {
    let held = 0;
    const port = await start({ maxConnections: 2 }, (request) => {
      if (request.url === '/hold') held += 1;
    });
    const busy = [await open(port), await open(port)];
    for (const { socket } of busy) socket.write('GET /hold HTTP/1.1\r\nhost: x\r\n\r\n');
    while (held < 2) await new Promise((resolve) => setImmediate(resolve));
    const refused = await open(port);
    await refused.closed;
    expect(busy.every(({ socket }) => !socket.destroyed)).toBe(true);
  });

  it('caps connections per source address', async () => {
    const port = await start({ maxConnections: 100, maxPerSource: 2 });
    await open(port);
    await open(port);
    await connected(2);
    const third = await open(port);
    await third.closed;
    const other = await open(port, '127.0.0.2');
    await connected(3);
    expect(other.socket.destroyed).toBe(false);
  });

  it('answers a body that does not arrive in time with 408 and the envelope, and closes; a stream is exempt', async () => {
    let streamRequest: IncomingMessage | undefined;
    const port = await start({ maxConnections: 100, requestTimeoutMs: 200 }, (request) => {
      if (request.url === '/stream') streamRequest = request;
    });
    const stream = await open(port);
    stream.socket.write('POST /stream HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n{');
    while (streamRequest === undefined) await new Promise((resolve) => setImmediate(resolve));
    guard!.protect(streamRequest);
    const slow = await open(port);
    slow.socket.write('POST /slow HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n{"canary":"');
    await slow.closed;
    const [head, body] = slow.received().split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 408 Request Timeout/);
    expect(head?.toLowerCase()).toContain('connection: close');
    expect(JSON.parse(body!)).toEqual({ code: 'VEIL_REQUEST_TIMEOUT', error: 'request not received in time', request_id: expect.any(String) });
    expect(slow.received()).not.toContain('canary');
    expect(stream.socket.destroyed).toBe(false);
  });

  it("Node's idle timeout closes idle, still-sending and stalled-answer connections, never one the server is still answering", async () => {
    const port = await start({ maxConnections: 100, idleMs: 150 });
    const idle = await open(port);
    const sending = await open(port);
    sending.socket.write('POST /slow HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n{');
    const stalled = await open(port);
    stalled.socket.write('GET /stall HTTP/1.1\r\nhost: x\r\n\r\n');
    const working = await open(port);
    working.socket.write('GET /work HTTP/1.1\r\nhost: x\r\n\r\n');
    await Promise.all([idle.closed, sending.closed, stalled.closed]);
    expect(stalled.received()).toMatch(/^HTTP\/1\.1 200[\s\S]*part$/);
    // The working request outlived its idle timeout three times over and got its whole answer;
    // then the timer ran again and closed the connection, idle by then.
    await working.closed;
    expect(working.received()).toMatch(/^HTTP\/1\.1 200[\s\S]*\r\n\r\ndone$/);
  });
});
