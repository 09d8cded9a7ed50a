// `veil serve` started plainly (`veil serve`, `node server/bin/veil.js serve`) replaces itself,
// before it loads anything else, with the same command started with the process settings the
// server image and `make run` use: V8's young generation bounded (--max-semi-space-size), optimizing
// compiles on the main thread (--no-concurrent-recompilation) and glibc's malloc arenas capped
// (MALLOC_ARENA_MAX). A running process cannot set any of them (V8 reads the flags when the heap
// and the isolate are set up; glibc reads the variable at process start), and a launcher beside
// the server would hold memory of its own; process.execve (Node 22.15+, Linux) replaces this
// process image in place: same PID, same open standard streams, nothing left beside it, no
// signal forwarding. Measured in BENCHMARKS.md ("Session 12 (lead)") and docs/operations.md.
//
// Kept: a setting the operator chose either way (on the command line or in NODE_OPTIONS, and any
// MALLOC_ARENA_MAX); a process already started that way (EXEC_ENV), and the launcher's relaunched
// server (cli/launcher.ts) or a cluster worker, which inherit them. Where execve is missing (older
// Node, other systems) the server starts as it is.
//
// This module is imported by server/bin/veil.js before the CLI: it must stay free of imports.

/** Marks a process that replaced itself here (outside the VEIL_* namespace, configuration only). */
export const EXEC_ENV = '__VEIL_EXEC';

/** The launcher's marker (cli/launcher.ts LAUNCHED_ENV), repeated here to keep this module import-free. */
const LAUNCHED = '__VEIL_LAUNCHED';

/** V8 flags of a plainly started server, each kept out when the operator set it either way. */
const FLAGS: readonly { readonly flag: string; readonly set: RegExp }[] = [
  { flag: '--max-semi-space-size=8', set: /^--max[-_]semi[-_]space[-_]size(?:=|$)/ },
  { flag: '--no-concurrent-recompilation', set: /^--(?:no-)?concurrent[-_]recompilation(?:=|$)/ },
];

export interface ServeExec {
  /** The V8 flags to add, first on node's command line. */
  readonly flags: string[];
  /** Environment additions (the marker always; MALLOC_ARENA_MAX when it was unset). */
  readonly env: Record<string, string>;
}

/**
 * What replacing this process would add, or undefined when it should start as it is: not
 * `serve`, already replaced or relaunched, or nothing to add.
 */
export function serveExecPlan(args: readonly string[], execArgv: readonly string[], env: NodeJS.ProcessEnv): ServeExec | undefined {
  if (args[0] !== 'serve' || args.includes('--help') || args.includes('-h')) return undefined;
  if (env[EXEC_ENV] === '1' || env[LAUNCHED] !== undefined || env.NODE_UNIQUE_ID !== undefined) return undefined;
  const given = [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)];
  const flags = FLAGS.filter(({ set }) => !given.some((flag) => set.test(flag))).map(({ flag }) => flag);
  const arenas = env.MALLOC_ARENA_MAX === undefined ? { MALLOC_ARENA_MAX: '2' } : {};
  if (flags.length === 0 && Object.keys(arenas).length === 0) return undefined;
  return { flags, env: { ...arenas, [EXEC_ENV]: '1' } };
}

type Execve = (file: string, args?: readonly string[], env?: NodeJS.ProcessEnv) => never;

/**
 * Replace this process with `node <flags> <execArgv> <script> <args>` when serveExecPlan asks for
 * it and the platform can; returns (doing nothing) otherwise. A failed execve (it throws) leaves
 * this process to start as it is.
 */
export function execServe(script: string, args: readonly string[]): void {
  const execve = (process as unknown as { execve?: Execve }).execve;
  if (typeof execve !== 'function' || process.platform !== 'linux') return;
  const plan = serveExecPlan(args, process.execArgv, process.env);
  if (plan === undefined) return;
  try {
    execve.call(process, process.execPath, [process.execPath, ...plan.flags, ...process.execArgv, script, ...args], { ...process.env, ...plan.env });
  } catch {
    // Not replaced (e.g. the binary is gone): start in this process.
  }
}
