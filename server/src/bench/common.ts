// Pieces the load benchmarks share (run.ts, ratios.ts): request bodies with entities, the real
// `veil serve` process (optionally pinned to a core), a keep-alive client, CPU and RSS readings
// from /proc, and quantiles.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

export const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
// VEIL_BENCH_BIN measures another build (e.g. an earlier commit's tree) with this benchmark.
export const VEIL_BIN = process.env.VEIL_BENCH_BIN ?? `${ROOT}/server/bin/veil.js`;
export const hasTaskset = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
/** Every core of the machine as a taskset list (os.cpus(), not availableParallelism(): the latter reads this thread's own affinity). */
export const ALL_CORES = `0-${Math.max(1, cpus().length) - 1}`;

// The same deterministic bodies as the abuse suite and its benchmark.
export { prose, textWithEntities } from './attacks.js';

export function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** CPU time (user + system, seconds) a process has used so far; undefined without /proc. */
export function cpuSeconds(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime are fields 14 and 15 of stat (11 and 12 after the command name), in ticks.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** Resident set size of a process in MiB; undefined without /proc. */
export function rssMiB(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? undefined : Number(match[1]) / 1024;
  } catch {
    return undefined;
  }
}

/**
 * The process that serves for `pid`: its child when `veil serve` relaunched itself (cli/launcher.ts:
 * a lower heap, more open files), else `pid` itself (Linux /proc; elsewhere `pid`).
 */
export function servingPid(pid: number): number {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    return children.length === 1 ? children[0]! : pid;
  } catch {
    return pid;
  }
}

export interface ServerProcess {
  readonly url: string;
  readonly pid: number;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Spawn a server process (on core `core` when taskset exists) and wait for the line that
 * announces its URL: Veil's 'listening' log line (JSON `"url":"…"` or text `url=…`) or the
 * echo server's. stdout is drained for the process's whole life (a full pipe would stall it).
 */
export function spawnServer(args: readonly string[], env: Record<string, string>, core?: number): Promise<ServerProcess> {
  // Unpinned means every core, said explicitly: a child inherits the affinity of the thread that
  // spawns it, and the benchmark pins its own main thread to core 1 (run.ts), so a server spawned
  // without a core list would share core 1 with the load generator (before session 9, the
  // `--workers 2` row ran both workers there).
  const command = hasTaskset ? 'taskset' : process.execPath;
  const argv = hasTaskset ? ['-c', core !== undefined ? String(core) : ALL_CORES, process.execPath, ...args] : [...args];
  const child = spawn(command, argv, { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let buffered = '';
    let found = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (found) return;
      buffered += chunk.toString('utf8');
      const match = /(?:"url":"|\burl=)(https?:\/\/[^"\s]+)/.exec(buffered);
      if (match !== null) {
        found = true;
        buffered = '';
        child.removeAllListeners('exit');
        resolve({
          url: match[1]!,
          pid: child.pid!,
          child,
          stop: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null) return done();
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      } else if (buffered.length > 100_000) buffered = buffered.slice(-1000);
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${String(code)} before listening`)));
  });
}

/** `veil serve` on a free loopback port. */
export function startVeil(env: Record<string, string>, core?: number, extraArgs: readonly string[] = []): Promise<ServerProcess> {
  return spawnServer([VEIL_BIN, 'serve', '--host', '127.0.0.1', '--port', '0', ...extraArgs], env, core);
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** One request on a shared keep-alive connection. */
export function send(url: string, method: string, path: string, body: string | undefined, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const bodyHeaders = body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
    const req = request(`${url}${path}`, { method, agent, headers: { ...bodyHeaders, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

export function closeClient(): void {
  agent.destroy();
}

export interface Target {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly body?: string;
  readonly headers?: Record<string, string>;
}

/** autocannon against one target (at `rate` requests per second over all connections when given): average requests per second and failures. */
export async function throughput(url: string, target: Target, connections: number, seconds: number, rate?: number): Promise<{ rps: number; errors: number }> {
  const result = await autocannon({
    url: `${url}${target.path}`,
    method: target.method,
    headers: { ...(target.body !== undefined ? { 'content-type': 'application/json' } : {}), ...target.headers },
    ...(target.body !== undefined ? { body: target.body } : {}),
    connections,
    duration: seconds,
    ...(rate !== undefined ? { overallRate: rate } : {}),
  });
  return { rps: result.requests.average, errors: result.errors + result.non2xx };
}

/** Sequential requests on one keep-alive connection: client-side latency quantiles in ms. */
export async function sequentialLatency(url: string, target: Target, count: number, warmup = Math.min(200, count)): Promise<{ p50: number; p99: number }> {
  for (let index = 0; index < warmup; index += 1) await send(url, target.method, target.path, target.body, target.headers);
  const samples: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const start = performance.now();
    const response = await send(url, target.method, target.path, target.body, target.headers);
    samples.push(performance.now() - start);
    if (response.status !== 200) throw new Error(`${target.path} answered ${response.status}: ${response.text.slice(0, 200)}`);
  }
  samples.sort((a, b) => a - b);
  return { p50: quantile(samples, 0.5), p99: quantile(samples, 0.99) };
}

/**
 * `veil serve --workers N` (not pinned) with SQLite replay, revocation and idempotency stores
 * (several workers require shared stores) in `dir`, once every worker listens. `pids()` gives
 * the process itself and, in cluster mode, every worker.
 */
export async function startWorkers(workers: number, dir: string): Promise<ServerProcess & { pids(): Promise<number[]> }> {
  const env = {
    VEIL_LOG_FORMAT: 'json',
    VEIL_SESSION_SECRET: '3c'.repeat(32),
    VEIL_DIGEST_SECRET: '4d'.repeat(32),
    VEIL_REVOCATION_BACKEND: 'sqlite',
    VEIL_REPLAY_BACKEND: 'sqlite',
    VEIL_IDEMPOTENCY__BACKEND: 'sqlite',
    VEIL_STORAGE__SQLITE_PATH: `${dir}/bench-${workers}.db`,
  };
  const server = await startVeil(env, undefined, ['--workers', String(workers)]);
  const workerPids = async (): Promise<number[]> => {
    const report = JSON.parse((await send(server.url, 'GET', '/v1/diagnostics', undefined)).text) as { workers?: { pid: number }[] | null };
    return (report.workers ?? []).map((worker) => worker.pid);
  };
  // The primary announces the first listening worker; give the others time to listen too.
  for (let attempt = 0; attempt < 100 && workers > 1 && (await workerPids()).length < workers; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { ...server, pids: async () => [server.pid, ...(await workerPids())] };
}
