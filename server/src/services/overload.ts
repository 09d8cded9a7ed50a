// Load shedding, per process (issue 16 item 2): a bounded number of requests with large bodies in
// progress, a bounded number of incremental streams, and a memory gate that refuses new large
// work while the process is close to its memory budget. What does not fit is refused at once
// with 503 VEIL_OVERLOADED and Retry-After; nothing waits in an unbounded queue. The memory
// budget (server.memory_budget_mb, else the container's limit, else the machine's memory) also
// sizes the V8 heaps (cli/launcher.ts for the main thread, services/offload.ts for the workers).
import { totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { VeilError } from '@veil/common';
import type { VeilConfig } from '../config/index.js';

/** 503 VEIL_OVERLOADED; the error handler sends Retry-After (whole seconds). */
export class OverloadedError extends VeilError {
  readonly retryAfterSeconds: number;

  /** `reason` is internal (logged as the error's detail), never a value. */
  constructor(reason: string, retryAfterSeconds = 1) {
    super('VEIL_OVERLOADED', undefined, reason);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

const MiB = 1024 * 1024;

/**
 * The process's memory budget in MiB: configured, else the cgroup limit the process runs under
 * (a container's), else the machine's memory.
 */
export function memoryBudgetMb(config: Pick<VeilConfig, 'server'>): number {
  if (config.server.memory_budget_mb !== undefined) return config.server.memory_budget_mb;
  const machine = totalmem();
  const constrained = process.constrainedMemory();
  const limit = constrained > 0 && constrained < machine ? constrained : machine;
  return Math.floor(limit / MiB);
}

/** Fraction of the budget the main thread's V8 heap may use (the rest: buffers, worker threads, code). */
export const MAIN_HEAP_SHARE = 0.5;
/** Fraction of the budget each offload worker thread's heap may use (at least 128 MiB). */
export const WORKER_HEAP_SHARE = 0.15;
/** Past this fraction of the budget (resident) or of the heap limit (used), large work is refused. */
export const HIGH_WATER = 0.85;

/** The old-generation heap of one offload worker thread, MiB. */
export function workerHeapMb(config: Pick<VeilConfig, 'server'>): number {
  return Math.max(128, Math.floor(memoryBudgetMb(config) * WORKER_HEAP_SHARE));
}

/** The main thread's old-generation heap for the budget, MiB (cli/launcher.ts sets it). */
export function mainHeapMb(config: Pick<VeilConfig, 'server'>): number {
  return Math.max(256, Math.floor(memoryBudgetMb(config) * MAIN_HEAP_SHARE));
}

export interface MemoryReading {
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  readonly heapLimitBytes: number;
}

function readMemory(): MemoryReading {
  const heap = getHeapStatistics();
  return { rssBytes: process.memoryUsage.rss(), heapUsedBytes: heap.used_heap_size, heapLimitBytes: heap.heap_size_limit };
}

export interface AdmissionOptions {
  readonly maxLarge: number;
  readonly maxStreams: number;
  readonly budgetMb: number;
  /** Injected in tests. */
  readonly memory?: () => MemoryReading;
}

/** A slot to give back exactly once (when the response ends or the connection closes). */
export type Release = () => void;

export class Admission {
  readonly #options: AdmissionOptions;
  readonly #memory: () => MemoryReading;
  #large = 0;
  #streams = 0;

  constructor(options: AdmissionOptions) {
    this.#options = options;
    this.#memory = options.memory ?? readMemory;
  }

  /** Large requests and streams in progress (diagnostics, tests). */
  get inFlight(): { large: number; streams: number } {
    return { large: this.#large, streams: this.#streams };
  }

  /**
   * Why new large work would be refused now (the process is near its memory budget or its heap
   * limit), or undefined when it may go ahead.
   */
  pressure(): string | undefined {
    const reading = this.#memory();
    if (reading.rssBytes > this.#options.budgetMb * MiB * HIGH_WATER) return 'resident memory near server.memory_budget_mb';
    if (reading.heapUsedBytes > reading.heapLimitBytes * HIGH_WATER) return 'heap near its limit';
    return undefined;
  }

  /** A slot for a request with a large body, or OverloadedError (503). */
  admitLarge(): Release {
    if (this.#large >= this.#options.maxLarge) throw new OverloadedError('limits.max_large_requests reached');
    this.#checkMemory();
    this.#large += 1;
    return once(() => {
      this.#large -= 1;
    });
  }

  /** A slot for an incremental stream, or OverloadedError (503). */
  admitStream(): Release {
    if (this.#streams >= this.#options.maxStreams) throw new OverloadedError('limits.max_streams reached');
    this.#checkMemory();
    this.#streams += 1;
    return once(() => {
      this.#streams -= 1;
    });
  }

  #checkMemory(): void {
    const reason = this.pressure();
    if (reason !== undefined) throw new OverloadedError(reason, 5);
  }
}

function once(release: () => void): Release {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    release();
  };
}
