// Test Redis for the Redis store suites and the store benchmark (decisions.md section 2): use
// REDIS_URL when set; else (the testcontainers branch is not here: testcontainers is not a
// dependency and no Docker engine answers in this environment; add it before the redis-server
// branch when both exist) start the Debian `redis-server` found on PATH (`make redis-server`
// installs it) on a free loopback port, with persistence off, in a temporary directory. A local
// server can also be paused (SIGSTOP) to play a hung Redis. When neither exists the runner fails
// under CI and skips elsewhere, with the reason from redisAvailability().
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export interface TestRedis {
  readonly url: string;
  /** True when this process started the server (so it may be paused or reconfigured). */
  readonly local: boolean;
  stop(): Promise<void>;
}

export interface LocalRedis extends TestRedis {
  readonly local: true;
  readonly port: number;
  /** Freeze the server (SIGSTOP): connections stay open, replies never come. */
  pause(): void;
  resume(): void;
}

export type RedisAvailability =
  | { readonly available: true; readonly source: 'REDIS_URL' | 'redis-server' }
  | { readonly available: false; readonly reason: string };

/** Where `redis-server` is on PATH, if anywhere. */
export function findRedisServer(): string | undefined {
  for (const directory of (process.env.PATH ?? '').split(delimiter)) {
    if (directory === '') continue;
    const candidate = join(directory, 'redis-server');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here; keep looking.
    }
  }
  return undefined;
}

export function redisAvailability(): RedisAvailability {
  if ((process.env.REDIS_URL ?? '') !== '') return { available: true, source: 'REDIS_URL' };
  if (findRedisServer() !== undefined) return { available: true, source: 'redis-server' };
  return {
    available: false,
    reason: 'no Redis: REDIS_URL is not set, testcontainers is not available, and redis-server is not on PATH (run `make redis-server`)',
  };
}

/** A real Redis for tests: REDIS_URL, else a private redis-server. */
export async function startTestRedis(): Promise<TestRedis> {
  const url = process.env.REDIS_URL ?? '';
  if (url !== '') return { url, local: false, stop: () => Promise.resolve() };
  return startLocalRedis();
}

/** A loopback port nothing listens on right now (for dead-port tests and new servers). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

/**
 * Start a private redis-server and wait until it answers PING. It runs as production should (AOF
 * on, appendfsync everysec, noeviction), since the server refuses a non-durable Redis for
 * revocations; `extraArguments` may override that (later arguments win). `port` starts it on that
 * port (a server stopped by the test coming back where its clients reconnect).
 */
export async function startLocalRedis(extraArguments: readonly string[] = [], options: { readonly port?: number } = {}): Promise<LocalRedis> {
  const binary = findRedisServer();
  if (binary === undefined) throw new Error('no redis-server on PATH (run `make redis-server`)');
  let lastError: unknown;
  // The free port can be taken between probe and bind: retry with another (or the same one).
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const port = options.port ?? (await freePort());
    const directory = mkdtempSync(join(tmpdir(), 'veil-redis-'));
    const child = spawn(
      binary,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--appendfsync', 'everysec', '--dir', directory, '--daemonize', 'no', '--loglevel', 'warning', ...extraArguments],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    // A test worker that dies must not leave a server behind.
    const killOnExit = (): void => {
      child.kill('SIGKILL');
    };
    process.once('exit', killOnExit);
    try {
      await waitForPing(port, child, 5000);
    } catch (error) {
      process.removeListener('exit', killOnExit);
      await stopChild(child);
      rmSync(directory, { recursive: true, force: true });
      lastError = new Error(`redis-server did not start: ${error instanceof Error ? error.message : String(error)}\n${output}`);
      continue;
    }
    return {
      url: `redis://127.0.0.1:${port}`,
      local: true,
      port,
      pause: () => child.kill('SIGSTOP'),
      resume: () => child.kill('SIGCONT'),
      stop: async () => {
        process.removeListener('exit', killOnExit);
        await stopChild(child);
        rmSync(directory, { recursive: true, force: true });
      },
    };
  }
  throw lastError instanceof Error ? lastError : new Error('redis-server did not start');
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGCONT');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
  await exited;
  clearTimeout(timer);
}

/** Poll with a raw PING until +PONG, the child exits, or the deadline passes. */
async function waitForPing(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with code ${child.exitCode}`);
    if (await ping(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no PONG within ${timeoutMs} ms`);
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const finish = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString('utf8');
      // NOAUTH: a server started with --requirepass is up too.
      if (reply.includes('\r\n')) finish(reply.startsWith('+PONG') || reply.startsWith('-NOAUTH'));
    });
  });
}
