// `veil serve` re-runs itself in a child process when this process's own limits do not fit the
// configuration, since only a new process can get them (issue 16 items 2 and 3):
// - the main thread's V8 heap (--max-old-space-size) sized to the memory budget
//   (services/overload.ts: server.memory_budget_mb, else the container's limit), so V8 collects
//   garbage before the container's limit is reached instead of the kernel killing the process;
//   it is only ever lowered, never raised above V8's own default;
// - the open-file limit (`ulimit -n`) raised towards its hard limit when it is below
//   server.max_connections plus a reserve (every connection is a file descriptor).
// A relaunched server also gets a bounded young generation (--max-semi-space-size, SEMI_SPACE_MB)
// unless the operator set one: V8's default lets new space grow from 64 to 128 MiB under load,
// most of the RSS growth a pod sees (BENCHMARKS.md, "Session 7 (wave6/large)"); and TurboFan on
// the main thread (MAIN_THREAD_COMPILE) unless the operator chose either way: the memory a
// concurrent compile mallocs in its own thread's arena stays resident once freed (session 11).
// Where the platform can (process.execve: Node 22.15+, Linux) the server replaces this process
// (`replace`): the same PID, nothing beside it (a launcher process held ~140 MiB of its own, the
// application it had loaded to read the configuration), no signal to forward. Elsewhere a child
// process (`relaunch`): the launcher forwards SIGTERM, SIGINT, SIGHUP, SIGUSR1 and SIGUSR2 to the
// server and exits with its exit code; the server exits when the launcher disappears (its IPC
// channel closes), so killing either never leaves the other running. __VEIL_LAUNCHED marks the
// new server (`1` a child, `exec` a replacement): it never relaunches again. With neither limit to
// change, `veil serve` runs in its own process as before.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';
import type { VeilConfig } from '../config/index.js';
import { mainHeapMb } from '../services/overload.js';

/** Marks the relaunched server (outside the VEIL_* namespace, which is configuration only; cluster/primary.ts does the same). */
export const LAUNCHED_ENV = '__VEIL_LAUNCHED';

/** File descriptors kept beside the connections: logs, the audit file, SQLite, worker threads, pipes. */
const FILE_RESERVE = 1024;

/**
 * V8 semi-space size of the relaunched server, MiB (new space holds two). 8 keeps new space at
 * 16 MiB instead of V8's 64-128 MiB under load (session 15: RSS after 60 s of load 137-138 MiB
 * against 146-150 with 16; no consistent throughput cost in ten A/B pairs at load 13-17, ~5 %
 * more CPU per request not excluded; cli/serve-exec.ts gives a plain `veil serve` the same).
 */
export const SEMI_SPACE_MB = 8;

/**
 * V8 flag of the relaunched server: optimizing compiles run on the main thread, between requests,
 * instead of on a compiler thread. The compiler's memory (tens of MiB while the hot path is
 * optimized in the first seconds of load) is then malloc'ed in the main thread's arena, which the
 * next allocations reuse; a compiler thread's arena keeps it resident after it is freed. Measured
 * with the image's other settings: RSS after 60 s of load +18 % over a server that answered one
 * request (+27 % without), +10 % over a warm one, at 332 vs 342 µs of CPU per request
 * (BENCHMARKS.md "Session 11 (wave10/hot)"). The cost: a compile holds the event loop while it
 * runs (during warm-up only); on one core, as pinned there, the compiler thread took the same core.
 */
export const MAIN_THREAD_COMPILE = '--no-concurrent-recompilation';

const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGUSR1', 'SIGUSR2'];

/** This process's open-file limits (Linux /proc), or undefined elsewhere. */
export function openFileLimits(): { soft: number; hard: number } | undefined {
  try {
    const match = /^Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    if (match === null) return undefined;
    const parse = (value: string): number => (value === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(value));
    return { soft: parse(match[1]!), hard: parse(match[2]!) };
  } catch {
    return undefined;
  }
}

export interface LaunchPlan {
  /** V8 flags for the child (empty: the heap fits). */
  readonly execArgv: string[];
  /** The open-file soft limit to set, when it must be raised. */
  readonly files?: number;
}

/** What a relaunch would change, or undefined when this process already fits. */
export function launchPlan(config: VeilConfig, env: NodeJS.ProcessEnv, execArgv: readonly string[]): LaunchPlan | undefined {
  if (env[LAUNCHED_ENV] === '1' || env[LAUNCHED_ENV] === 'exec') return undefined;
  const flags = [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)];
  const heapSet = flags.some((flag) => flag.startsWith('--max-old-space-size'));
  const wantedHeap = mainHeapMb(config);
  const currentHeap = getHeapStatistics().heap_size_limit / (1024 * 1024);
  const execArgvOut = !heapSet && currentHeap > wantedHeap * 1.1 ? [`--max-old-space-size=${wantedHeap}`] : [];
  const limits = openFileLimits();
  const wantedFiles = config.server.max_connections + FILE_RESERVE;
  const files = limits !== undefined && limits.soft < wantedFiles && limits.soft < limits.hard && existsSync('/bin/sh') ? Math.min(wantedFiles, limits.hard) : undefined;
  if (execArgvOut.length === 0 && files === undefined) return undefined;
  // Only alongside a relaunch that happens anyway: a new process for this flag alone would add a
  // second start to every `veil serve` (NODE_OPTIONS sets it there, docs/operations.md).
  const semiSet = flags.some((flag) => flag.startsWith('--max-semi-space-size'));
  if (!semiSet) execArgvOut.push(`--max-semi-space-size=${SEMI_SPACE_MB}`);
  const compileSet = flags.some((flag) => /^--(?:no-)?concurrent[-_]recompilation(?:=|$)/.test(flag));
  if (!compileSet) execArgvOut.push(MAIN_THREAD_COMPILE);
  return { execArgv: execArgvOut, ...(files !== undefined ? { files } : {}) };
}

/** The program and arguments that run `node [flags] <script> <args>` under the plan's limits. */
function command(plan: LaunchPlan, script: string, args: readonly string[]): [string, string[]] {
  const node = [...plan.execArgv, ...process.execArgv, script, ...args];
  // `ulimit -n` in a shell that then becomes node (exec): the only way to raise a limit from Node.
  return plan.files !== undefined ? ['/bin/sh', ['-c', `ulimit -n ${plan.files} 2>/dev/null; exec "$0" "$@"`, process.execPath, ...node]] : [process.execPath, node];
}

/** A new process also gets glibc's malloc arena cap (read only at process start), unless one is set. */
function launchedEnv(marker: '1' | 'exec'): NodeJS.ProcessEnv {
  return { MALLOC_ARENA_MAX: '2', ...process.env, [LAUNCHED_ENV]: marker };
}

type Execve = (file: string, args?: readonly string[], env?: NodeJS.ProcessEnv) => never;

/**
 * Replace this process with the server under the plan's limits (process.execve); returns false,
 * having done nothing, where that is not possible (then `relaunch`).
 */
export function replace(plan: LaunchPlan, script: string, args: readonly string[]): boolean {
  const execve = (process as unknown as { execve?: Execve }).execve;
  if (typeof execve !== 'function' || process.platform !== 'linux') return false;
  const [program, argv] = command(plan, script, args);
  try {
    execve.call(process, program, [program, ...argv], launchedEnv('exec'));
  } catch {
    // Not replaced (the program is missing): a child process instead.
  }
  return false;
}

/**
 * Run `node [flags] <script> <args>` as the server and wait for it: resolves to its exit code
 * (128 + the signal number when a signal ended it).
 */
export function relaunch(plan: LaunchPlan, script: string, args: readonly string[]): Promise<number> {
  const [program, argv] = command(plan, script, args);
  const child = spawn(program, argv, { stdio: ['inherit', 'inherit', 'inherit', 'ipc'], env: launchedEnv('1') });
  const forward = (signal: NodeJS.Signals) => () => {
    child.kill(signal);
  };
  const handlers = FORWARDED_SIGNALS.map((signal) => [signal, forward(signal)] as const);
  for (const [signal, handler] of handlers) process.on(signal, handler);
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      for (const [name, handler] of handlers) process.off(name, handler);
      resolve(code ?? 128 + (signal !== null ? signalNumber(signal) : 0));
    });
    child.once('error', () => resolve(1));
  });
}

function signalNumber(signal: NodeJS.Signals): number {
  const numbers: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGUSR1: 10, SIGUSR2: 12, SIGTERM: 15 };
  return numbers[signal] ?? 0;
}

/** In the launched server: exit when the launcher is gone (nobody forwards signals any more). */
export function followLauncher(stop: () => void): void {
  if (process.env[LAUNCHED_ENV] !== '1') return;
  // Gone already (killed while this process was starting): stop now.
  if (!process.connected) {
    stop();
    return;
  }
  process.once('disconnect', stop);
}
