// Starts the real `veil serve` process on a free loopback port and stops it; collects its log
// lines so suites can prove no value was logged.
import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const VEIL_BIN = fileURLToPath(new URL('../../server/bin/veil.js', import.meta.url));

export interface ServerProcess {
  readonly url: string;
  readonly logs: string[];
  readonly child: ChildProcess;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export async function startVeil(options: { env?: Record<string, string>; args?: string[]; nodeArgs?: string[]; timeoutMs?: number } = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), VEIL_BIN, 'serve', '--host', '127.0.0.1', '--port', '0', ...(options.args ?? [])], {
    cwd: ROOT,
    // One process unless a suite asks for more (`--workers N` wins over this default).
    env: { PATH: process.env.PATH ?? '', VEIL_LOG_FORMAT: 'json', VEIL_SERVER__WORKERS: '1', ...(options.env ?? {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  let buffered = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${logs.join('\n')}`)), options.timeoutMs ?? 60_000);
    const onData = (chunk: Buffer): void => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        logs.push(line);
        if (line.includes('veil server listening')) {
          clearTimeout(timer);
          resolve((JSON.parse(line) as { url: string }).url);
        }
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => logs.push(chunk.toString('utf8')));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${String(code)}:\n${logs.join('\n')}`));
    });
  });
  return {
    url,
    logs,
    child,
    stop: (signal = 'SIGTERM') =>
      new Promise((resolve) => {
        if (child.exitCode !== null) {
          resolve(child.exitCode);
          return;
        }
        child.once('exit', (code) => resolve(code));
        child.kill(signal);
      }),
  };
}

/**
 * The server's log text once a line matches `pattern` (bounded wait): stdout lines are batched
 * for up to 20 ms before they are written (server/src/logging.ts LineBatch), so a line of the
 * request just answered may still be on its way. Checks that a value is absent read the text
 * returned here, written after the line that proves the request was logged.
 */
export async function logsWith(server: Pick<ServerProcess, 'logs'>, pattern: RegExp, rounds = 200): Promise<string> {
  for (let round = 0; round < rounds; round += 1) {
    const text = server.logs.join('\n');
    if (pattern.test(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return server.logs.join('\n');
}

/**
 * The server's whole log text once every line written before this call has arrived, for checks
 * that a value is absent. stdout lines leave in order but batched (up to 20 ms), so a check that
 * read `server.logs` at once could pass before the line that would fail it arrived. One request
 * to an unknown route is sent: it fails with a request id in its body (no value in it) and is
 * logged with that id; once that line is in, every earlier line is too.
 */
export async function settledLogs(server: Pick<ServerProcess, 'url' | 'logs'>): Promise<string> {
  const response = await fetch(`${server.url}/v1/__settle-logs`);
  const { request_id: requestId } = (await response.json()) as { request_id?: string };
  if (typeof requestId !== 'string' || !/^[\w-]+$/.test(requestId)) throw new Error(`no request id in the settle answer (status ${String(response.status)})`);
  const text = await logsWith(server, new RegExp(requestId));
  if (!text.includes(requestId)) throw new Error('the settle request was never logged');
  return withoutGeneratedFields(text);
}

/**
 * The log text with the fields the server generates (ids in hex or UUID form, times, durations)
 * blanked, so a test that no value fragment reaches the logs (`'5500'`, `'4111'`) is not failed by
 * a random trace id or a clock reading that happens to hold the same digits (a CI run failed on
 * `"trace_id":"1e05500762b7db5e"`). Only values of the generated shapes are blanked: a raw value
 * written into one of these fields would not have that shape and still shows.
 */
export function withoutGeneratedFields(text: string): string {
  return text
    .replace(GENERATED_ID, '"$1":"-"')
    .replace(GENERATED_NUMBER, '"$1":0')
    .replace(GENERATED_TIME, '"$1":"-"');
}

const GENERATED_ID = /"(reqId|request_id|trace_id|span_id|parent_span_id|traceId|spanId|session_id|corpus_session_id|idempotency_key_digest)":"(?:[0-9a-f]{8,64}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"/g;
const GENERATED_NUMBER = /"(time|duration_ms|responseTime|pid|elapsed_ms|uptime_s)":[0-9]+(?:\.[0-9]+)?/g;
const GENERATED_TIME = /"(timestamp|at|expires_at)":"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z"/g;

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any; text: string }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, body: parsed, text };
}

/** One request on its own connection (no keep-alive), so a cluster spreads them over workers. */
export function fresh(url: string, method: string, path: string, body?: unknown, extra: Record<string, unknown> = {}): Promise<{ status: number; text: string; json: any }> {
  const target = new URL(path, url);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = send(
      target,
      { method, agent: false, headers: { ...(payload !== undefined ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) }, ...extra },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: response.statusCode ?? 0, text, json });
        });
      },
    );
    outgoing.on('error', reject);
    // A connection handed to a worker that just died is never answered: give up, as a client would.
    outgoing.setTimeout(5000, () => outgoing.destroy(new Error('request timed out')));
    outgoing.end(payload);
  });
}
