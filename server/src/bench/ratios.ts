// The ratio benchmark (issue 20 targets): Veil against a bare Fastify echo of the same JSON body,
// both measured in the same run so a shared, noisy machine slows both alike. Every server
// process is pinned to core 0 and the load generator (this process, autocannon) to core 1 when
// taskset exists. Each round measures the echo, then every Veil case, then the echo again; a
// case's ratio in that round is its figure over the mean of the two echo figures around it.
// Reported: the median over the rounds and the range.
//
// Cases: 1 KB transform and rehydrate with the default configuration (dev auth, text log, the
// `log` audit sink) and with api_key auth + a strict file audit sink (+ metrics, always on);
// the trivial routes; 100 KB transform p50 against the echo's p50 of the same body (one
// connection, sequential); `--workers 2` against one worker in requests per server CPU-second,
// beside the same ratio of an echo made CPU-bound (the control); cold start to /readyz; idle RSS
// and RSS after 60 s of load with the CPU per request under it (a plain `veil serve`, which
// replaces itself with the image's settings; the process without that replacement; the chart
// pod's memory budget, relaunched). VEIL_BENCH_PARTS picks parts (throughput, large, workers, memory).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  cpuSeconds,
  hasTaskset,
  median,
  ROOT,
  rssMiB,
  send,
  sequentialLatency,
  servingPid,
  spawnServer,
  startVeil,
  startWorkers,
  textWithEntities,
  throughput,
  VEIL_BIN,
  type ServerProcess,
  type Target,
} from './common.js';

export interface RatioOptions {
  readonly rounds: number;
  /** Seconds per throughput measurement. */
  readonly seconds: number;
  readonly connections: number;
  /** Seconds of load before the second RSS reading. */
  readonly loadSeconds: number;
  /** Parts to run (VEIL_BENCH_PARTS: throughput, large, workers, memory); absent: all. */
  readonly parts?: ReadonlySet<string> | undefined;
}

export interface RatioRow {
  readonly name: string;
  readonly result: string;
  readonly target: string;
  readonly met: boolean | undefined;
}

const API_KEY = 'bench-key-0123456789abcdef';
const SECURE_HEADERS = { 'x-api-key': API_KEY };

function range(values: readonly number[], digits: number): string {
  return `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
}

function rps(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** A configuration file with api_key auth and a strict, fsynced audit file in `dir`. */
function secureConfig(dir: string): string {
  const path = join(dir, 'secure.yaml');
  writeFileSync(
    path,
    [
      'auth:',
      '  mode: api_key',
      '  api_keys:',
      `    - {key: ${API_KEY}, identity: bench, scopes: [transform, rehydrate, detect]}`,
      'audit:',
      '  backend: file',
      `  path: ${join(dir, 'audit.log')}`,
      `  hmac_key: ${'5e'.repeat(32)}`,
      '  strict: true',
      '',
    ].join('\n'),
  );
  return path;
}

const SECRET = { VEIL_SESSION_SECRET: '3c'.repeat(32) };

async function transformOnce(server: ServerProcess, body: string, headers: Record<string, string> = {}): Promise<string> {
  const response = await send(server.url, 'POST', '/v1/transform', body, headers);
  if (response.status !== 200) throw new Error(`transform answered ${response.status}: ${response.text.slice(0, 200)}`);
  const transformed = JSON.parse(response.text) as { safe_text: string; session_state: string };
  return JSON.stringify({ output: transformed.safe_text, session_state: transformed.session_state });
}

interface Case {
  readonly name: string;
  readonly server: ServerProcess;
  readonly target: Target;
  /** Minimum ratio to the echo (requests per second). */
  readonly goal: number;
}

/** Throughput plus the server's CPU time per request (µs), read from /proc around the run. */
async function measure(server: ServerProcess, target: Target, options: RatioOptions): Promise<{ rps: number; errors: number; cpuUs: number }> {
  const before = cpuSeconds(server.pid) ?? 0;
  const started = performance.now();
  const result = await throughput(server.url, target, options.connections, options.seconds);
  const elapsed = (performance.now() - started) / 1000;
  const used = (cpuSeconds(server.pid) ?? 0) - before;
  return { ...result, cpuUs: (used * 1e6) / Math.max(1, result.rps * elapsed) };
}

/**
 * Throughput ratios: per round the echo, every case, the echo again. Besides requests per second
 * (what a client sees, bounded by whatever else runs on the machine) each case reports the
 * ratio of server CPU time per request, echo over Veil: the throughput ratio the two would have
 * with a core each to themselves, and the steadier figure on a shared machine.
 */
/** Seconds of load each server gets before the measured rounds. */
const WARMUP_SECONDS = 10;

async function throughputRatios(echo: ServerProcess, echoTarget: Target, cases: readonly Case[], options: RatioOptions, rows: RatioRow[]): Promise<void> {
  const ratios = new Map<string, number[]>();
  const cpuRatios = new Map<string, number[]>();
  const absolute = new Map<string, number[]>();
  const echoRates: number[] = [];
  const echoCpu: number[] = [];
  const add = (map: Map<string, number[]>, key: string, value: number): void => {
    map.set(key, [...(map.get(key) ?? []), value]);
  };
  // Warm-up (JIT, pools, first audit records) so round 1 is not an outlier. Long enough for V8's
  // background compilers to settle: after 2 s they still added ~20 µs of CPU to every Veil
  // request, ~7 µs after 15 s (BENCHMARKS.md, "Session 8 (wave7/hot)").
  await throughput(echo.url, echoTarget, options.connections, WARMUP_SECONDS);
  for (const item of cases) await throughput(item.server.url, item.target, options.connections, WARMUP_SECONDS);
  for (let round = 0; round < options.rounds; round += 1) {
    const before = await measure(echo, echoTarget, options);
    const measured: [Case, { rps: number; cpuUs: number }][] = [];
    for (const item of cases) {
      const result = await measure(item.server, item.target, options);
      if (result.errors > 0) throw new Error(`${item.name}: ${result.errors} failed requests`);
      measured.push([item, result]);
    }
    const after = await measure(echo, echoTarget, options);
    const baseline = (before.rps + after.rps) / 2;
    const baselineCpu = (before.cpuUs + after.cpuUs) / 2;
    echoRates.push(before.rps, after.rps);
    echoCpu.push(before.cpuUs, after.cpuUs);
    for (const [item, value] of measured) {
      add(ratios, item.name, value.rps / baseline);
      add(cpuRatios, item.name, baselineCpu / value.cpuUs);
      add(absolute, item.name, value.rps);
    }
    process.stdout.write(
      `round ${round + 1}: echo ${rps(before.rps)} / ${rps(after.rps)} req/s (${before.cpuUs.toFixed(0)} / ${after.cpuUs.toFixed(0)} µs CPU per request); ` +
        `${measured.map(([item, value]) => `${item.name} ${rps(value.rps)} req/s, ${value.cpuUs.toFixed(0)} µs`).join('; ')}\n`,
    );
  }
  rows.push({
    name: `echo (bare Fastify) 1 KB JSON, ${options.connections} connections`,
    result: `${rps(median(echoRates))} req/s (${range(echoRates, 0)}); ${median(echoCpu).toFixed(0)} µs CPU per request`,
    target: '',
    met: undefined,
  });
  for (const item of cases) {
    const values = ratios.get(item.name)!;
    const cpu = cpuRatios.get(item.name)!;
    const ratio = median(values);
    rows.push({
      name: item.name,
      result: `${ratio.toFixed(2)}× (${range(values, 2)}), ${rps(median(absolute.get(item.name)!))} req/s; CPU per request ${median(cpu).toFixed(2)}× (${range(cpu, 2)})`,
      target: `≥ ${item.goal}×`,
      met: ratio >= item.goal,
    });
  }
}

/** 100 KB: Veil's transform p50 over the echo's p50 of the same body, sequential requests. */
async function largeRatio(echo: ServerProcess, veil: ServerProcess, options: RatioOptions, rows: RatioRow[]): Promise<void> {
  const body = JSON.stringify({ input: textWithEntities(100 * 1024, 180) });
  const ratios: number[] = [];
  const echoP50: number[] = [];
  const veilP50: number[] = [];
  for (let round = 0; round < options.rounds; round += 1) {
    const base = await sequentialLatency(echo.url, { method: 'POST', path: '/echo', body }, 200, 30);
    const ours = await sequentialLatency(veil.url, { method: 'POST', path: '/v1/transform', body }, 200, 30);
    echoP50.push(base.p50);
    veilP50.push(ours.p50);
    ratios.push(ours.p50 / base.p50);
  }
  const ratio = median(ratios);
  rows.push({
    name: '100 KB transform p50 / echo p50 of the same body (1 connection)',
    result: `${ratio.toFixed(2)}× (${range(ratios, 2)}); ${median(veilP50).toFixed(2)} ms vs ${median(echoP50).toFixed(2)} ms`,
    target: '≤ 3×',
    met: ratio <= 3,
  });
}

/** A process and its direct children (a cluster primary and its workers; Linux /proc). */
function processTree(pid: number): number[] {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    return [pid, ...children];
  } catch {
    return [pid];
  }
}

/** Bytes a process has read through read(2) and friends so far (Linux /proc/<pid>/io); 0 without. */
function bytesRead(pid: number): number {
  try {
    return Number(/^rchar: (\d+)/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** One measurement of a server (a single process, or a primary and its workers) under autocannon. */
interface CpuRun {
  readonly rps: number;
  /** Requests per server CPU-second, every process (primary included) counted. */
  readonly perCpu: number;
  /** Server CPU µs per request. */
  readonly cpuUs: number;
  /** Each worker's CPU seconds and its share of the requests (by bytes read: the requests are identical). */
  readonly workers: readonly { readonly cpu: number; readonly share: number }[];
}

/**
 * Load `url` for `seconds` (at `rate` requests per second over all connections when given, else
 * as fast as it answers) and read every process's CPU time and bytes read from /proc around it.
 * `pids[0]` is the process started (the primary in cluster mode), the rest its workers.
 */
async function cpuRun(url: string, pids: readonly number[], target: Target, seconds: number, connections: number, rate?: number): Promise<CpuRun> {
  const cpuBefore = pids.map((pid) => cpuSeconds(pid) ?? 0);
  const readBefore = pids.map(bytesRead);
  const started = performance.now();
  const result = await throughput(url, target, connections, seconds, rate);
  const elapsed = (performance.now() - started) / 1000;
  const cpu = pids.map((pid, index) => (cpuSeconds(pid) ?? 0) - cpuBefore[index]!);
  const read = pids.map((pid, index) => bytesRead(pid) - readBefore[index]!);
  const served = pids.length === 1 ? [0] : pids.slice(1).map((_, index) => index + 1);
  const totalRead = served.reduce((sum, index) => sum + read[index]!, 0);
  const used = cpu.reduce((sum, value) => sum + value, 0);
  const requests = result.rps * elapsed;
  return {
    rps: result.rps,
    perCpu: requests / used,
    cpuUs: (used * 1e6) / requests,
    workers: served.map((index) => ({ cpu: cpu[index]!, share: totalRead === 0 ? 0 : read[index]! / totalRead })),
  };
}

/**
 * CPU seconds every serving process gets before the `--workers` rounds. V8 keeps compiling for
 * the first seconds of load (in the process's own threads, so it counts as server CPU): a 1 KB
 * transform cost 390–470 µs in the first 3 s and ~250 µs after ~8 s of CPU per process
 * (BENCHMARKS.md, "Session 9 (wave8/large)"). A fixed wall-clock warm-up gives each of two
 * workers half the requests of the single process, so they were measured colder: the warm-up is
 * counted per process, in CPU time.
 */
const WORKER_WARM_CPU_SECONDS = 10;

/** Load in 3-s slices until every serving process has used `cpuSeconds` of CPU. */
async function warmEachProcess(url: string, pids: readonly number[], target: Target, connections: number): Promise<void> {
  const served = pids.length === 1 ? pids : pids.slice(1);
  for (let slice = 0; slice < 40 && Math.min(...served.map((pid) => cpuSeconds(pid) ?? Infinity)) < WORKER_WARM_CPU_SECONDS; slice += 1) {
    await throughput(url, target, connections, 3);
  }
}

/**
 * The control's work per request: the echo copies its 1 KB body through JSON this many times,
 * ~300 µs of CPU here, about what a 1 KB transform costs Veil, so it is CPU-bound like Veil (a
 * bare echo is not: the load generator saturates first, and its workers idle between requests).
 */
const CONTROL_ROUNDS = 100;

/** Requests per second each process serves in the fixed-rate comparison (well below one process's capacity). */
const PER_PROCESS_RATE = 800;

function split(run: CpuRun): string {
  return run.workers.map((worker) => `${(worker.share * 100).toFixed(0)} %`).join(' / ');
}

/**
 * `--workers 2` vs `--workers 1`: requests per server CPU-second (nothing pinned), and the same
 * for the echo doing CONTROL_ROUNDS of work, run as 1 and 2 cluster workers in the same rounds:
 * the control that says how much of the loss is the machine (two busy processes and the load
 * generator on two cores) and how much is Veil's cluster mode. Every serving process is warmed
 * to the same CPU time first, the order of 1 and 2 alternates by round, and each round also
 * compares one worker of two with the single process at the same per-process request rate
 * (PER_PROCESS_RATE each), which separates what a worker does more per request from what a
 * busier machine costs. Each worker's share of the requests is reported (node:cluster hands
 * connections out round-robin from the primary on Linux; keep-alive connections stay put).
 */
async function workersRatio(dir: string, options: RatioOptions, rows: RatioRow[]): Promise<void> {
  const body = JSON.stringify({ input: textWithEntities(1024, 180) });
  const started: { stop(): Promise<void> }[] = [];
  try {
    const one = await startWorkers(1, dir);
    started.push(one);
    const two = await startWorkers(2, dir);
    started.push(two);
    const echoOne = await spawnServer([`${ROOT}/server/dist/bench/echo-server.js`], {});
    started.push(echoOne);
    const echoTwo = await spawnServer([`${ROOT}/server/dist/bench/echo-server.js`, '--workers', '2'], {});
    started.push(echoTwo);
    const veilTarget: Target = { method: 'POST', path: '/v1/transform', body };
    const echoTarget: Target = { method: 'POST', path: `/work?rounds=${CONTROL_ROUNDS}`, body };
    const subjects = [
      { url: one.url, pids: [one.pid], target: veilTarget },
      { url: two.url, pids: await two.pids(), target: veilTarget },
      { url: echoOne.url, pids: [echoOne.pid], target: echoTarget },
      { url: echoTwo.url, pids: processTree(echoTwo.pid), target: echoTarget },
    ] as const;
    const connections = options.connections * 2;
    for (const subject of subjects) await warmEachProcess(subject.url, subject.pids, subject.target, connections);
    const veilRatios: number[] = [];
    const echoRatios: number[] = [];
    const samePerProcess: number[] = [];
    const rates: [number, number][] = [];
    const cpus: [number, number][] = [];
    const shares: string[] = [];
    const run = (index: 0 | 1 | 2 | 3, rate?: number): Promise<CpuRun> =>
      cpuRun(subjects[index].url, subjects[index].pids, subjects[index].target, options.seconds, connections, rate);
    for (let round = 0; round < options.rounds; round += 1) {
      // Alternate which goes first: a process measured later in a round is warmer.
      const pair = async (a: 0 | 2, b: 1 | 3, rate?: [number, number]): Promise<[CpuRun, CpuRun]> => {
        if (round % 2 === 0) {
          const first = await run(a, rate?.[0]);
          return [first, await run(b, rate?.[1])];
        }
        const second = await run(b, rate?.[1]);
        return [await run(a, rate?.[0]), second];
      };
      const [single, dual] = await pair(0, 1);
      const [echoSingle, echoDual] = await pair(2, 3);
      const [singleAtRate, dualAtRate] = await pair(0, 1, [PER_PROCESS_RATE, 2 * PER_PROCESS_RATE]);
      veilRatios.push(dual.perCpu / single.perCpu);
      echoRatios.push(echoDual.perCpu / echoSingle.perCpu);
      samePerProcess.push(singleAtRate.cpuUs / dualAtRate.cpuUs);
      rates.push([single.rps, dual.rps]);
      cpus.push([single.cpuUs, dual.cpuUs]);
      shares.push(split(dual));
      process.stdout.write(
        `workers round ${round + 1}: veil ${rps(single.rps)} / ${rps(dual.rps)} req/s, ${single.cpuUs.toFixed(0)} / ${dual.cpuUs.toFixed(0)} µs, ${(dual.perCpu / single.perCpu).toFixed(2)}×, ` +
          `requests per worker ${split(dual)}; at ${PER_PROCESS_RATE} req/s per process ${singleAtRate.cpuUs.toFixed(0)} / ${dualAtRate.cpuUs.toFixed(0)} µs ` +
          `(workers ${dualAtRate.workers.map((worker) => `${((worker.cpu * 1e6) / Math.max(1, worker.share * dualAtRate.rps * options.seconds)).toFixed(0)} µs`).join(' / ')}); ` +
          `echo with work ${rps(echoSingle.rps)} / ${rps(echoDual.rps)} req/s, ${(echoDual.perCpu / echoSingle.perCpu).toFixed(2)}×\n`,
      );
    }
    const ratio = median(veilRatios);
    const echoRatio = median(echoRatios);
    rows.push({
      name: `--workers 2 vs 1: 1 KB transforms per server CPU-second (nothing pinned; every process warmed to ${WORKER_WARM_CPU_SECONDS} s of CPU)`,
      result:
        `${ratio.toFixed(2)}× (${range(veilRatios, 2)}); ${rps(median(rates.map(([single]) => single)))} vs ${rps(median(rates.map(([, dual]) => dual)))} req/s, ` +
        `${median(cpus.map(([single]) => single)).toFixed(0)} vs ${median(cpus.map(([, dual]) => dual)).toFixed(0)} µs CPU per request; requests per worker ${shares.join(', ')}`,
      target: '≥ 0.95×',
      met: ratio >= 0.95,
    });
    rows.push({
      name: `the same at ${PER_PROCESS_RATE} req/s per process (1 process at ${PER_PROCESS_RATE}, 2 workers at ${2 * PER_PROCESS_RATE}): CPU per request, 1 over 2`,
      result: `${median(samePerProcess).toFixed(2)}× (${range(samePerProcess, 2)})`,
      target: 'reported',
      met: undefined,
    });
    rows.push({
      name: `control: the echo doing ${CONTROL_ROUNDS} JSON copies per request (CPU-bound like Veil) as 2 cluster workers vs 1, requests per CPU-second, same rounds; Veil's ratio over it`,
      result: `${echoRatio.toFixed(2)}× (${range(echoRatios, 2)}); Veil ${(ratio / echoRatio).toFixed(2)}× of the echo's`,
      target: 'reported',
      met: undefined,
    });
  } finally {
    for (const server of started) await server.stop();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

function readyOnce(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/readyz', agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.end();
  });
}

/** Milliseconds from spawning `veil serve` (default configuration) to its first 200 on /readyz. */
async function coldStart(): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const command = hasTaskset ? 'taskset' : process.execPath;
  const args = [...(hasTaskset ? ['-c', '0', process.execPath] : []), VEIL_BIN, 'serve', '--host', '127.0.0.1', '--port', String(port)];
  const child = spawn(command, args, { env: { PATH: process.env.PATH ?? '' }, stdio: 'ignore' });
  try {
    for (;;) {
      if (await readyOnce(port)) return performance.now() - started;
      if (child.exitCode !== null) throw new Error(`veil serve exited ${child.exitCode} before /readyz`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    child.kill('SIGTERM');
  }
}

async function startupAndMemory(options: RatioOptions, rows: RatioRow[]): Promise<void> {
  const times: number[] = [];
  for (let run = 0; run < Math.max(5, options.rounds); run += 1) times.push(await coldStart());
  const cold = median(times);
  rows.push({ name: 'cold start: spawn `veil serve` to the first 200 from /readyz', result: `${cold.toFixed(0)} ms (${range(times, 0)})`, target: '≤ 1000 ms', met: cold <= 1000 });

  // A plain `veil serve` replaces itself (cli/serve-exec.ts, session 12) with the image's and
  // `make run`'s settings: --max-semi-space-size=8 (a bounded young generation), TurboFan on the
  // main thread (--no-concurrent-recompilation: the optimizing compiler's memory is malloc'ed on
  // the main thread instead of in a compiler thread's arena, which glibc keeps once freed) and
  // MALLOC_ARENA_MAX=2; the second row is the process as started, without that replacement (V8's
  // defaults, no arena cap: what a plain `veil serve` was before session 12); the third the chart's
  // pod (1 GiB limit): the server relaunches itself, in place, with a 512 MiB heap (cli/launcher.ts).
  const variants: readonly (readonly [string, Record<string, string>])[] = [
    [' (replaced in place with the image settings, as every plain `veil serve`)', {}],
    [' without that replacement (V8 defaults, no arena cap)', { __VEIL_EXEC: '1' }],
    [' with server.memory_budget_mb 1024 (the chart pod; relaunched)', { VEIL_SERVER__MEMORY_BUDGET_MB: '1024' }],
  ];
  for (const [label, env] of variants) await rssUnderLoad(label, env, options, rows);
}

/** Seconds of load (half transforms, half rehydrates) and of quiet that make a warm idle. */
const WARM_LOAD_SECONDS = 10;
const WARM_QUIET_SECONDS = 10;
/** Seconds of quiet after the load at which RSS is read again (what V8 gave back by itself). */
const QUIET_AFTER_SECONDS = 20;

/**
 * RSS at two idles, then right after `options.loadSeconds` of 1 KB transforms and rehydrates.
 * "Idle" is measured two ways (BENCHMARKS.md, "Session 11 (wave10/hot)"): after one transform
 * and 3 s of quiet (the cold idle: nothing compiled, the young generation at its start size),
 * and after 10 s of load and 10 s of quiet (the warm idle: what a server that has served traffic
 * holds when it is quiet again, V8's optimized code and compiler memory and its grown young
 * generation included). Growth over the cold idle is the warm-up plus any growth; over the warm
 * idle it is what sustained load adds (a leak, a cache, garbage kept). Both are printed.
 */
async function rssUnderLoad(label: string, env: Record<string, string>, options: RatioOptions, rows: RatioRow[]): Promise<void> {
  const veil = await startVeil(env, 0);
  try {
    const transform: Target = { method: 'POST', path: '/v1/transform', body: JSON.stringify({ input: textWithEntities(1024, 180) }) };
    const rehydrate: Target = { method: 'POST', path: '/v1/rehydrate', body: await transformOnce(veil, transform.body!) };
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const pid = servingPid(veil.pid);
    const idle = rssMiB(pid);
    await throughput(veil.url, transform, options.connections, WARM_LOAD_SECONDS / 2);
    await throughput(veil.url, rehydrate, options.connections, WARM_LOAD_SECONDS / 2);
    await new Promise((resolve) => setTimeout(resolve, WARM_QUIET_SECONDS * 1000));
    const warm = rssMiB(pid);
    // Load in 10-s slices, transform and rehydrate in turn.
    const slices = Math.max(1, Math.round(options.loadSeconds / 10));
    const cpuBefore = cpuSeconds(pid) ?? 0;
    let requests = 0;
    for (let slice = 0; slice < slices; slice += 1) {
      const seconds = options.loadSeconds / slices;
      requests += (await throughput(veil.url, slice % 2 === 0 ? transform : rehydrate, options.connections, seconds)).rps * seconds;
    }
    // CPU per request under that load: what a smaller young generation costs shows here.
    const cpuUs = (((cpuSeconds(pid) ?? 0) - cpuBefore) * 1e6) / Math.max(1, requests);
    const loaded = rssMiB(pid);
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const settled = rssMiB(pid);
    // Quiet again: what V8's memory reducer has given back by itself (not reliably: BENCHMARKS.md
    // "Session 15 (wave14/mem)"; an explicit collection on going quiet was measured and not kept).
    await new Promise((resolve) => setTimeout(resolve, (QUIET_AFTER_SECONDS - 5) * 1000));
    const quiet = rssMiB(pid);
    if (idle === undefined || warm === undefined || loaded === undefined || settled === undefined || quiet === undefined) return;
    const percent = (value: number) => `${value >= 0 ? '+' : ''}${(value * 100).toFixed(0)} %`;
    rows.push({ name: `idle RSS (default configuration${label}): cold (after one transform, 3 s quiet); warm (then ${WARM_LOAD_SECONDS} s of load, ${WARM_QUIET_SECONDS} s quiet)`, result: `${idle.toFixed(1)} MiB; ${warm.toFixed(1)} MiB`, target: 'reported', met: undefined });
    const growth = (reference: number) => loaded / reference - 1;
    const after = `RSS right after ${options.loadSeconds} s more of 1 KB transforms and rehydrates${label} (${options.connections} connections)`;
    const tail = `${settled.toFixed(1)} MiB 5 s later; ${cpuUs.toFixed(0)} µs CPU per request`;
    rows.push({ name: `${after}, over the cold idle`, result: `${loaded.toFixed(1)} MiB (${percent(growth(idle))}); ${tail}`, target: '≤ +20 %', met: growth(idle) <= 0.2 });
    rows.push({ name: `${after}, over the warm idle`, result: `${loaded.toFixed(1)} MiB (${percent(growth(warm))})`, target: '≤ +20 %', met: growth(warm) <= 0.2 });
    const quietGrowth = quiet / idle - 1;
    rows.push({ name: `RSS ${QUIET_AFTER_SECONDS} s after that load${label}, over the cold idle`, result: `${quiet.toFixed(1)} MiB (${percent(quietGrowth)})`, target: '≤ +20 %', met: quietGrowth <= 0.2 });
  } finally {
    await veil.stop();
  }
}

export async function ratioBench(options: RatioOptions): Promise<RatioRow[]> {
  const rows: RatioRow[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'veil-ratios-'));
  const servers: ServerProcess[] = [];
  try {
    const runs = (part: string): boolean => options.parts === undefined || options.parts.has(part);
    if (runs('throughput') || runs('large')) {
      const echo = await spawnServer([`${ROOT}/server/dist/bench/echo-server.js`], {}, 0);
      servers.push(echo);
      const plain = await startVeil(SECRET, 0);
      servers.push(plain);
      if (runs('throughput')) {
        const secure = await startVeil({ ...SECRET, VEIL_CONFIG: secureConfig(dir) }, 0);
        servers.push(secure);
        const oneKb = JSON.stringify({ input: textWithEntities(1024, 180) });
        const transform: Target = { method: 'POST', path: '/v1/transform', body: oneKb };
        const cases: Case[] = [
          { name: '1 KB transform, default configuration', server: plain, target: transform, goal: 0.5 },
          { name: '1 KB transform, api_key + strict file audit + metrics', server: secure, target: { ...transform, headers: SECURE_HEADERS }, goal: 0.4 },
          { name: '1 KB rehydrate, default configuration', server: plain, target: { method: 'POST', path: '/v1/rehydrate', body: await transformOnce(plain, oneKb) }, goal: 0.55 },
          {
            name: '1 KB rehydrate, api_key + strict file audit + metrics',
            server: secure,
            target: { method: 'POST', path: '/v1/rehydrate', body: await transformOnce(secure, oneKb, SECURE_HEADERS), headers: SECURE_HEADERS },
            goal: 0.45,
          },
          { name: 'trivial route GET /v1/health, default configuration', server: plain, target: { method: 'GET', path: '/v1/health' }, goal: 0.8 },
          { name: 'trivial route GET /livez, default configuration', server: plain, target: { method: 'GET', path: '/livez' }, goal: 0.8 },
        ];
        await throughputRatios(echo, { method: 'POST', path: '/echo', body: oneKb }, cases, options, rows);
      }
      if (runs('large')) await largeRatio(echo, plain, options, rows);
      for (const server of servers.splice(0)) await server.stop();
    }
    if (runs('workers')) await workersRatio(dir, options, rows);
    if (runs('memory')) await startupAndMemory(options, rows);
  } finally {
    for (const server of servers) await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
