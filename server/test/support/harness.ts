// Test harness: builds the real app with a memory log sink, a fixed secret and an injectable
// clock, so HTTP tests run through inject() and can scan every log line for leaked values.
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/index.js';
import type { AppDeps } from '../../src/deps.js';
import { createLogger } from '../../src/logging.js';
import { buildDeps } from '../../src/main.js';

export const TEST_SECRET = '7f'.repeat(32);

export class MemorySink extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter((line) => line !== ''));
    callback();
  }
  text(): string {
    return this.lines.join('\n');
  }
}

export interface TestApp {
  readonly app: FastifyInstance;
  readonly deps: AppDeps;
  readonly logs: MemorySink;
  /** Move the injected clock forward. */
  advance(seconds: number): void;
  close(): Promise<void>;
}

export async function buildTestApp(
  options: {
    env?: Record<string, string>;
    overrides?: Record<string, unknown>;
    mutateDeps?: (deps: AppDeps) => AppDeps;
    /** The injected clock stands still except through advance(): no assertion depends on how fast the machine is. */
    frozenClock?: boolean;
    /** The process log level (default debug, so tests see and scan every line). */
    logLevel?: string;
  } = {},
): Promise<TestApp> {
  const loaded = loadConfig({
    // The failed-authentication throttle is off here: in-process tests send many bad credentials
    // from the one injected address on purpose. Its own tests switch it on (auth-throttle.test.ts).
    env: { VEIL_SESSION_SECRET: TEST_SECRET, VEIL_AUTH__FAILURE_LIMIT__ENABLED: 'false', ...(options.env ?? {}) },
    ...(options.overrides !== undefined ? { overrides: options.overrides } : {}),
  });
  let offsetMs = 0;
  const frozenAt = Date.now();
  const base = await buildDeps(loaded);
  // Copied with descriptors, not spread, so any getter stays live rather than frozen at copy time.
  const clocked = Object.defineProperties({}, {
    ...Object.getOwnPropertyDescriptors(base),
    now: { value: options.frozenClock === true ? () => frozenAt + offsetMs : () => Date.now() + offsetMs, enumerable: true },
  }) as AppDeps;
  const deps = options.mutateDeps === undefined ? clocked : options.mutateDeps(clocked);
  const logs = new MemorySink();
  // Debug: the per-route completion events (debug since issue 20) are scanned for values too.
  const logger = createLogger({ level: options.logLevel ?? 'debug', format: 'json', stream: logs });
  const app = await buildApp(deps, { logger });
  return {
    app,
    deps,
    logs,
    advance: (seconds) => {
      offsetMs += seconds * 1000;
    },
    close: () => app.close(),
  };
}

/** POST JSON through inject and parse the reply; `headers` adds credentials and the like. */
export async function post(
  app: FastifyInstance,
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Record<string, unknown> }> {
  const response = await app.inject({ method: 'POST', url, payload: body as object, headers: { 'content-type': 'application/json', ...headers } });
  return { status: response.statusCode, body: response.json(), headers: response.headers };
}

/** Any method through inject with optional JSON body and headers; the body parsed when JSON. */
export async function send(
  app: FastifyInstance,
  options: { method: 'GET' | 'HEAD' | 'POST' | 'DELETE' | 'OPTIONS'; url: string; body?: unknown; headers?: Record<string, string> },
): Promise<{ status: number; body: any; headers: Record<string, unknown> }> {
  const headers = { ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}), ...(options.headers ?? {}) };
  const response = await app.inject({
    method: options.method,
    url: options.url,
    headers,
    ...(options.body !== undefined ? { payload: options.body as object } : {}),
  });
  let body: unknown;
  try {
    body = response.body === '' ? undefined : response.json();
  } catch {
    body = response.body;
  }
  return { status: response.statusCode, body, headers: response.headers };
}
