// The attacks of issue 16's table (one caller freezing or crashing the server) and the
// instruments that watch a real `veil serve` under them: a /livez probe that records how long
// each answer took, an RSS sampler, and the request shapes themselves. One module, so the loop
// benchmark (bench/loop-bench.ts) measures exactly what the abuse e2e suite
// (e2e/abuse-loop.e2e.test.ts) asserts survives. Loopback only; every loop is bounded. It lives
// with the benchmarks (built into dist for `make bench-loop`, Node built-ins only), not with the
// test support under server/test/, which is neither built nor shipped.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';

// ---------------------------------------------------------------------------------------------
// Text

const WORDS = 'the quick brown fox jumps over a lazy dog while our support team reviews the ticket and replies politely to every customer question about billing'.split(' ');

/** Deterministic filler prose of `length` characters. */
export function prose(length: number, seed = 1): string {
  let state = seed;
  const parts: string[] = [];
  let size = 0;
  while (size < length) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const word = WORDS[state % WORDS.length]!;
    parts.push(word);
    size += word.length + 1;
  }
  return parts.join(' ').slice(0, length);
}

const ENTITIES = ['jane.doe@example.com', '+1 415 555 0134', '4111 1111 1111 1111', 'DE89370400440532013000', '192.168.10.24', 'https://example.org/account', '219-09-9999', '12/03/2024'];

/** Prose with one entity roughly every `every` characters. */
export function textWithEntities(length: number, every: number, seed = 0): string {
  const parts: string[] = [];
  let size = 0;
  let index = seed;
  while (size < length) {
    const filler = prose(every, index + 7);
    const entity = ENTITIES[index % ENTITIES.length]!;
    parts.push(filler, ` ${entity} `);
    size += filler.length + entity.length + 2;
    index += 1;
  }
  return parts.join('').slice(0, length);
}

/** `bytes` of distinct phone numbers (the /v1/detect row: one detection per ~17 bytes); `first` picks other numbers. */
export function phoneNumbers(bytes: number, first = 0): string {
  const parts: string[] = [];
  let size = 0;
  for (let index = first; size < bytes; index += 1) {
    const number = `+1 415 555 ${String(index % 10000).padStart(4, '0')}, `;
    parts.push(number);
    size += number.length;
  }
  return parts.join('').slice(0, bytes);
}

// ---------------------------------------------------------------------------------------------
// HTTP

export interface Target {
  readonly url: string;
  /** Credentials for authenticated attacks (e.g. {'x-api-key': ...}). */
  readonly headers: Readonly<Record<string, string>>;
}

export interface Answer {
  readonly status: number;
  readonly text: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** One request; resolves with the status and the whole answer (or status 0 on a transport error). */
export function send(target: Target, method: string, path: string, body?: string | Buffer, options: { agent?: Agent; timeoutMs?: number; headers?: Record<string, string> } = {}): Promise<Answer> {
  return new Promise((resolve) => {
    const outgoing = request(
      `${target.url}${path}`,
      {
        method,
        agent: options.agent ?? false,
        headers: {
          ...target.headers,
          ...(body !== undefined ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } : {}),
          ...options.headers,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), headers: response.headers }));
        response.on('error', () => resolve({ status: 0, text: '', headers: {} }));
      },
    );
    outgoing.on('error', () => resolve({ status: 0, text: '', headers: {} }));
    outgoing.setTimeout(options.timeoutMs ?? 300_000, () => outgoing.destroy(new Error('timed out')));
    outgoing.end(body);
  });
}

export async function postJson(target: Target, path: string, body: unknown): Promise<{ status: number; json: any; text: string }> {
  const answer = await send(target, 'POST', path, JSON.stringify(body));
  let json: unknown;
  try {
    json = JSON.parse(answer.text);
  } catch {
    json = undefined;
  }
  return { status: answer.status, json, text: answer.text };
}

// ---------------------------------------------------------------------------------------------
// Instruments

/** Sorted-sample summary in milliseconds. */
export interface Waits {
  readonly count: number;
  readonly failures: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0;
}

/**
 * Sends one request over and over (one at a time, `gapMs` apart, on its own keep-alive
 * connection) and records how long each answer took. On GET /livez the longest wait is how long
 * the event loop was unavailable to anyone; on a small POST /v1/transform it is what a
 * legitimate caller saw. An answer other than 200, or none within a minute, is a failure.
 */
export class Probe {
  readonly #target: Target;
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 1 });
  readonly #samples: number[] = [];
  #failures = 0;
  #running = false;
  #loop: Promise<void> | undefined;

  constructor(
    target: Target,
    readonly method: 'GET' | 'POST' = 'GET',
    readonly path = '/livez',
    readonly body?: string,
    readonly gapMs = 5,
  ) {
    this.#target = target;
  }

  start(): this {
    this.#running = true;
    this.#loop = this.#run();
    return this;
  }

  async #run(): Promise<void> {
    while (this.#running) {
      const started = performance.now();
      const answer = await send(this.#target, this.method, this.path, this.body, { agent: this.#agent, timeoutMs: 60_000 });
      if (answer.status === 200) this.#samples.push(performance.now() - started);
      else this.#failures += 1;
      await new Promise((resolve) => setTimeout(resolve, this.gapMs));
    }
  }

  /** Stop probing and summarize. */
  async stop(): Promise<Waits> {
    this.#running = false;
    await this.#loop;
    this.#agent.destroy();
    const sorted = [...this.#samples].sort((a, b) => a - b);
    return { count: sorted.length, failures: this.#failures, p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), max: sorted.at(-1) ?? 0 };
  }
}

/** Resident set size of a process in MiB (Linux /proc), or undefined when it is gone. */
export function rssMiB(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /VmRSS:\s+(\d+) kB/.exec(status);
    return match === null ? undefined : Number(match[1]) / 1024;
  } catch {
    return undefined;
  }
}

/** Samples a process's RSS every `everyMs` and keeps the peak. */
export class RssSampler {
  #peak = 0;
  readonly #timer: NodeJS.Timeout;

  constructor(pid: number, everyMs = 100) {
    this.#timer = setInterval(() => {
      const rss = rssMiB(pid);
      if (rss !== undefined && rss > this.#peak) this.#peak = rss;
    }, everyMs);
  }

  stop(): number {
    clearInterval(this.#timer);
    return this.#peak;
  }
}

// ---------------------------------------------------------------------------------------------
// Attacks: each returns the statuses it received, so a caller can check what the server said.

/** A transformed text's session and tokens, for the rehydrate attacks. */
export async function sessionWithTokens(target: Target): Promise<{ sessionState: string; tokens: string[] }> {
  const made = await postJson(target, '/v1/transform', { input: textWithEntities(2000, 120) });
  if (made.status !== 200) throw new Error(`transform answered ${made.status}: ${made.text.slice(0, 200)}`);
  return { sessionState: made.json.session_state as string, tokens: (made.json.entities as { token: string }[]).map((entity) => entity.token) };
}

/** Model output of about `bytes` characters with a token of the session every ~150 characters. */
export function outputWithTokens(tokens: readonly string[], bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  for (let index = 0; size < bytes; index += 1) {
    const piece = `${prose(140, index)} ${tokens[index % tokens.length]!} `;
    parts.push(piece);
    size += piece.length;
  }
  return parts.join('');
}

/** The /v1/rag/context body of the table: `chunks` retrieved chunks of `chunkBytes` each. */
export async function ragContextBody(target: Target, chunks: number, chunkBytes: number): Promise<string> {
  const query = await postJson(target, '/v1/rag/query', { query: 'what did jane.doe@example.com ask about billing?' });
  if (query.status !== 200) throw new Error(`rag/query answered ${query.status}: ${query.text.slice(0, 200)}`);
  const chunk = textWithEntities(chunkBytes, 180);
  // Labelled public: every chunk is admitted whatever the key's clearance, so all of them are worked on.
  return JSON.stringify({ chunks: Array.from({ length: chunks }, () => chunk), chunk_classifications: Array.from({ length: chunks }, () => 'public'), session_state: query.json.session_state });
}

export function batchBody(items: number, itemBytes: number): string {
  return JSON.stringify({ items: Array.from({ length: items }, (_, index) => ({ text: textWithEntities(itemBytes, 180, index) })) });
}

export function detectBody(bytes: number): string {
  return JSON.stringify({ input: phoneNumbers(bytes) });
}

/** input_json with `keys` members in one object (the 600k-key row). */
export function jsonKeysBody(keys: number): string {
  const parts: string[] = [];
  for (let index = 0; index < keys; index += 1) parts.push(`"k${index}":"v"`);
  return `{"input_json":{${parts.join(',')}}}`;
}

/** A rehydrate of an output_json document of about `bytes` (an array of strings holding tokens). */
export function outputJsonBody(sessionState: string, tokens: readonly string[], bytes: number): string {
  const strings: string[] = [];
  let size = 0;
  for (let index = 0; size < bytes; index += 1) {
    const text = `${prose(140, index)} ${tokens[index % tokens.length]!}`;
    strings.push(text);
    size += text.length + 3;
  }
  return JSON.stringify({ output_json: { answers: strings }, session_state: sessionState });
}

/**
 * Requests whose clients send the whole body and then never read the answer: raw sockets,
 * paused, kept open until `release`. Resolves once every request was written (or refused).
 * A paused socket does not see the server's graceful close, so tests observe the server
 * releasing them by what it answers next, not by these sockets.
 */
export async function nonReadingRequests(target: Target, path: string, body: Buffer, count: number): Promise<{ sockets: Socket[]; release: () => void }> {
  const { hostname, port } = new URL(target.url);
  const head = Buffer.from(
    `POST ${path} HTTP/1.1\r\nhost: ${hostname}:${port}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n` +
      `${Object.entries(target.headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('')}\r\n`,
  );
  const sockets: Socket[] = [];
  const written: Promise<void>[] = [];
  for (let index = 0; index < count; index += 1) {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.on('error', () => undefined);
    socket.pause();
    sockets.push(socket);
    written.push(
      new Promise<void>((resolve) => {
        // Written, closed by the server, or (a server that stopped reading and closed gracefully,
        // which a paused socket never notices) given up after 30 s.
        const timer = setTimeout(resolve, 30_000);
        const done = (): void => {
          clearTimeout(timer);
          resolve();
        };
        socket.once('close', done);
        socket.write(head);
        socket.write(body, done);
      }),
    );
  }
  await Promise.all(written);
  return { sockets, release: () => sockets.forEach((socket) => socket.destroy()) };
}

/**
 * Slow clients: `count` connections that send request headers announcing a body, then trickle
 * it one byte every `everyMs`, unauthenticated. `localAddress` lets the attack come from another
 * loopback address than the legitimate traffic. Stop with `stop()`; `cut` counts connections
 * the server closed.
 */
export function trickle(url: string, count: number, options: { everyMs?: number; localAddress?: string; path?: string } = {}): { stop: () => void; cut: () => number; open: () => number } {
  const { hostname, port } = new URL(url);
  const sockets = new Set<Socket>();
  let cut = 0;
  let stopped = false;
  const head = `POST ${options.path ?? '/v1/transform'} HTTP/1.1\r\nhost: ${hostname}:${port}\r\ncontent-type: application/json\r\ncontent-length: 1000000\r\n\r\n{"input":"`;
  for (let index = 0; index < count; index += 1) {
    const socket = connect({ host: hostname, port: Number(port), ...(options.localAddress !== undefined ? { localAddress: options.localAddress } : {}) });
    socket.on('error', () => undefined);
    socket.on('data', () => undefined);
    socket.once('connect', () => socket.write(head));
    socket.once('close', () => {
      sockets.delete(socket);
      if (!stopped) cut += 1;
    });
    sockets.add(socket);
  }
  const timer = setInterval(() => {
    for (const socket of sockets) if (socket.writable) socket.write('a');
  }, options.everyMs ?? 1000);
  return {
    stop: () => {
      stopped = true;
      clearInterval(timer);
      for (const socket of sockets) socket.destroy();
    },
    cut: () => cut,
    open: () => sockets.size,
  };
}
