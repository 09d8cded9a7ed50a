// Memory a busy server took back once it has gone quiet. Under load V8 grows its heap: the young
// generation to its bound (--max-semi-space-size, cli/serve-exec.ts), the old generation by the
// garbage waiting for the next mark-compact, code space by the optimized hot path. V8's own
// memory reducer gives most of it back after a few seconds of quiet, but not reliably: it acts
// after a mark-compact, and once a round of it found little to free it waits until the heap has
// grown again, so a server that went quiet right after load kept its loaded size (measured:
// RSS unchanged 30 s after the load in 2 of 3 runs, BENCHMARKS.md "Session 15 (wave14/mem)").
//
// Here a timer (unref'd: it never keeps the process alive) looks every `intervalMs` at this
// process's CPU time and V8's committed heap. When an interval in which the process was busy is
// followed by a quiet one (CPU under `quietCpuFraction` of one core) and the heap is still
// `growthBytes` or more above what it was when quiet before, it runs one memory-reducing full
// collection: V8's "last resort" collection (all garbage, the young generation shrunk to its
// start size, pooled pages returned to the system; bytecode kept, see below). A plain major
// collection was measured to give nothing back (RSS 146.4 MiB before and after). The next busy
// interval re-arms it; the heap's size after it is the new reference. Bounded both ways: never while requests keep the
// process busy, at most once per busy-then-quiet transition and at most once a minute.
//
// Reaching that collection from JavaScript: Node exposes no memory-pressure or low-memory
// notification, and glibc's malloc_trim is not callable without a native addon (none is added;
// the malloc side is bounded by MALLOC_ARENA_MAX instead, cli/serve-exec.ts). What is reachable
// is V8's gc extension: `globalThis.gc` when node was started with --expose-gc, otherwise one
// function taken from a fresh context created while the flag is set for that moment (and unset
// again at once, so no other context sees it). Where neither works the release is off.
import { cpuUsage } from 'node:process';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** How often the process is looked at. */
export const IDLE_RELEASE_INTERVAL_MS = 5000;
/** CPU time under which an interval counts as quiet, as a fraction of one core (2 %: 100 ms per 5 s). */
export const QUIET_CPU_FRACTION = 0.02;
/**
 * Heap growth over the reference that is worth a collection (V8's committed heap, bytes). Small on
 * purpose: the young generation is already at its bound when the server starts, so a loaded
 * server's heap is only ~6-9 MiB above its start, but the collection gives back ~20 MiB of RSS
 * (the young generation shrunk, the old generation compacted).
 */
export const RELEASE_GROWTH_BYTES = 4 * 1024 * 1024;
/** Looks (intervals) that must pass after a release before the next one: at most one a minute. */
export const RELEASE_GAP_INTERVALS = 12;

/** One look at the process: CPU time used since the previous look, committed heap now. */
export interface IdleSample {
  readonly cpuMicros: number;
  readonly intervalMs: number;
  readonly heapBytes: number;
}

export interface IdleState {
  /** The smallest committed heap seen since the last release (or since start). */
  readonly reference: number | undefined;
  /** The previous interval was busy. */
  readonly busy: boolean;
  /** Intervals since the last release (counted up to RELEASE_GAP_INTERVALS). */
  readonly sinceRelease: number;
}

export const INITIAL_IDLE_STATE: IdleState = { reference: undefined, busy: false, sinceRelease: RELEASE_GAP_INTERVALS };

export interface IdleDecision {
  readonly state: IdleState;
  readonly release: boolean;
}

/**
 * The pure part: given the state and a new sample, whether to release now and the next state.
 * A release's caller reports the heap after it with `afterRelease`.
 */
export function idleStep(state: IdleState, sample: IdleSample, quietFraction = QUIET_CPU_FRACTION, growthBytes = RELEASE_GROWTH_BYTES): IdleDecision {
  const sinceRelease = Math.min(RELEASE_GAP_INTERVALS, state.sinceRelease + 1);
  // The reference follows the heap down, never up: the smallest heap seen since the last
  // release (or since start, busy or not: a server loaded right after its start has no quiet
  // sample before the load).
  const reference = Math.min(state.reference ?? sample.heapBytes, sample.heapBytes);
  const quiet = sample.cpuMicros <= sample.intervalMs * 1000 * quietFraction;
  if (!quiet) return { state: { reference, busy: true, sinceRelease }, release: false };
  const release = state.busy && sinceRelease >= RELEASE_GAP_INTERVALS && sample.heapBytes - reference >= growthBytes;
  return { state: { reference, busy: false, sinceRelease }, release };
}

/** The state after a release: the heap it left is the new reference. */
export function afterRelease(heapBytes: number): IdleState {
  return { reference: heapBytes, busy: false, sinceRelease: 0 };
}

type Gc = (options?: { type?: string; execution?: string; flavor?: string }) => unknown;

/** V8's memory-reducing full collection, or undefined where it cannot be reached. */
export function memoryReducingCollection(): (() => void) | undefined {
  let gc = (globalThis as { gc?: unknown }).gc;
  if (typeof gc !== 'function') {
    try {
      setFlagsFromString('--expose-gc');
      try {
        gc = runInNewContext('gc') as unknown;
      } finally {
        setFlagsFromString('--no-expose-gc');
      }
    } catch {
      return undefined;
    }
  }
  if (typeof gc !== 'function') return undefined;
  const collect = gc as Gc;
  return () => {
    // The last-resort collection runs several mark-compacts in a row, and V8 flushes the
    // bytecode of a function that has not run for six of them (--bytecode-old-age): the whole
    // hot path would be compiled again by the next request. Bytecode flushing is read at each
    // collection, so it is off for this one only.
    setFlagsFromString('--no-flush-bytecode');
    try {
      collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    } finally {
      setFlagsFromString('--flush-bytecode');
    }
  };
}

export interface IdleReleaseOptions {
  readonly intervalMs?: number;
  /** Called after each release with the committed heap before and after, bytes (a log line, a metric). */
  readonly onRelease?: (before: number, after: number) => void;
  /** The collection to run (tests); default memoryReducingCollection(). */
  readonly collect?: () => void;
  /** Committed heap, bytes (tests); default V8's total_physical_size. */
  readonly heapBytes?: () => number;
  /** CPU time of the process, µs (tests); default process.cpuUsage(). */
  readonly cpuMicros?: () => number;
}

export interface IdleRelease {
  /** One look at the process now, as the timer does (tests call it directly). */
  tick(): void;
  stop(): void;
}

/** Start looking every `intervalMs`; undefined when no collection can be reached. */
export function startIdleRelease(options: IdleReleaseOptions = {}): IdleRelease | undefined {
  const collect = options.collect ?? memoryReducingCollection();
  if (collect === undefined) return undefined;
  const intervalMs = options.intervalMs ?? IDLE_RELEASE_INTERVAL_MS;
  const heapBytes = options.heapBytes ?? (() => getHeapStatistics().total_physical_size);
  const cpuMicros =
    options.cpuMicros ??
    (() => {
      const used = cpuUsage();
      return used.user + used.system;
    });
  let state = INITIAL_IDLE_STATE;
  let lastCpu = cpuMicros();
  const tick = (): void => {
    const cpu = cpuMicros();
    const decision = idleStep(state, { cpuMicros: cpu - lastCpu, intervalMs, heapBytes: heapBytes() });
    state = decision.state;
    if (decision.release) {
      const before = heapBytes();
      collect();
      const after = heapBytes();
      state = afterRelease(after);
      options.onRelease?.(before, after);
    }
    // The collection's own CPU is not the next interval's load.
    lastCpu = cpuMicros();
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return { tick, stop: () => clearInterval(timer) };
}
