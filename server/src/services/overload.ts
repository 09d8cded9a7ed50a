// Load shedding, per process (issue 16 item 2): a bounded number of requests with large bodies in
// progress, a bounded number of incremental streams, and two memory gates. Each admitted large
// request or stream is charged the resident memory it will need (RSS_PER_BODY_BYTE times its
// body) against the budget until it ends, so a burst of large requests is refused by what it
// will cost before any of it shows in the RSS; and new large work is refused while the process
// is already close to its budget. What does not fit is refused at once with 503 VEIL_OVERLOADED
// and Retry-After; nothing waits in an unbounded queue; a body that could never fit is 413. The memory
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

/**
 * Resident memory a large request costs per byte of its body, measured: one 9.0 MB
 * /v1/rehydrate/stream restore whose client never reads raised the server's peak RSS by 489 MiB
 * (57 bytes per body byte: the body's bytes, its copy to a worker, the decoded and parsed text,
 * the restored text and its segments, the frames, and the worker heaps growing for them); four
 * at once by 1,201 MiB (300 MiB each). Node 24, memory_budget_mb 1024, 2 cores
 * (docs/operations.md, "Memory budget", has the command). Every large request is charged at this
 * rate: the restore is the most expensive per byte of the large paths, so the others are
 * over-charged, never under-charged.
 */
export const RSS_PER_BODY_BYTE = 57;

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
  /** Resident bytes charged per body byte (RSS_PER_BODY_BYTE unless a test sets it). */
  readonly rssPerBodyByte?: number;
  /** Injected in tests. */
  readonly memory?: () => MemoryReading;
}

/** An admitted request's slot and memory charge. */
export interface Ticket {
  /** Give the slot and the charge back; only the first call counts (response ended or connection closed). */
  release(): void;
  /**
   * The body turned out to be `bodyBytes` long (a chunked body, charged provisionally when
   * admitted): charge that instead. Throws 413 VEIL_PAYLOAD_TOO_LARGE or 503 VEIL_OVERLOADED
   * (the charge unchanged) when the real size needs more than there is room for.
   */
  settle(bodyBytes: number): void;
}

export class Admission {
  readonly #options: AdmissionOptions;
  readonly #memory: () => MemoryReading;
  readonly #rssPerByte: number;
  #large = 0;
  #streams = 0;
  /** Resident bytes charged to the work in progress. */
  #charged = 0;
  /** The lowest RSS seen when nothing was charged: what the process needs with no large work. */
  #restingRss = Number.POSITIVE_INFINITY;

  constructor(options: AdmissionOptions) {
    this.#options = options;
    this.#memory = options.memory ?? readMemory;
    this.#rssPerByte = options.rssPerBodyByte ?? RSS_PER_BODY_BYTE;
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
    return this.#pressureOf(this.#memory());
  }

  #pressureOf(reading: MemoryReading): string | undefined {
    if (reading.rssBytes > this.#options.budgetMb * MiB * HIGH_WATER) return 'resident memory near server.memory_budget_mb';
    if (reading.heapUsedBytes > reading.heapLimitBytes * HIGH_WATER) return 'heap near its limit';
    return undefined;
  }

  /** Resident bytes charged to the large requests and streams in progress. */
  get charged(): number {
    return this.#charged;
  }

  /**
   * A slot and memory charge for a request with a large body of `bodyBytes`, or OverloadedError
   * (503). `provisional`: the length is unknown (chunked) and `bodyBytes` is the most it may be;
   * the charge is then at most what the process at rest has room for (never a 413 for a body
   * that may turn out small), and settle() corrects it once the body has been read.
   */
  admitLarge(bodyBytes: number, provisional = false): Ticket {
    if (this.#large >= this.#options.maxLarge) throw new OverloadedError('limits.max_large_requests reached');
    const ticket = this.#charge(bodyBytes, provisional);
    this.#large += 1;
    return ticket.onRelease(() => {
      this.#large -= 1;
    });
  }

  /** A slot and memory charge for an incremental stream of (about) `bodyBytes`, or OverloadedError (503). */
  admitStream(bodyBytes: number): Ticket {
    if (this.#streams >= this.#options.maxStreams) throw new OverloadedError('limits.max_streams reached');
    const ticket = this.#charge(bodyBytes, false);
    this.#streams += 1;
    return ticket.onRelease(() => {
      this.#streams -= 1;
    });
  }

  /**
   * The memory gates: refused while the process is near its budget, or when what is charged to
   * the work in progress plus this request's cost would pass the high-water mark. The charges
   * are counted on top of the process at rest (the lowest RSS seen when nothing was charged),
   * not of the current RSS: that already holds part of the charges, and after large work it
   * stays high with memory the heaps reuse (freed memory is not returned to the system at once),
   * which would refuse large requests long after the work ended. Memory that is really held
   * still closes the first gate.
   */
  #charge(bodyBytes: number, provisional: boolean): ChargeTicket {
    const reading = this.#memory();
    const reason = this.#pressureOf(reading);
    if (reason !== undefined) throw new OverloadedError(reason, 5);
    if (this.#charged === 0) this.#restingRss = Math.min(this.#restingRss, reading.rssBytes);
    let cost = this.#costOf(bodyBytes);
    if (provisional) cost = Math.min(cost, Math.max(0, this.#ceiling - this.#restingRss));
    this.#check(cost, 0);
    this.#charged += cost;
    return new ChargeTicket(cost, (bytes) => this.#costOf(bytes), (from, to) => {
      if (to > from) this.#check(to, from);
      this.#charged += to - from;
    });
  }

  get #ceiling(): number {
    return this.#options.budgetMb * MiB * HIGH_WATER;
  }

  #costOf(bodyBytes: number): number {
    return Math.ceil(bodyBytes * this.#rssPerByte);
  }

  /** Whether a charge may grow from `current` to `cost`: 413 if no idle process could take it, 503 if not now. */
  #check(cost: number, current: number): void {
    if (this.#restingRss + cost > this.#ceiling) {
      // Not even an idle process could take it: waiting would not help.
      throw new VeilError('VEIL_PAYLOAD_TOO_LARGE', 'request body needs more memory than server.memory_budget_mb allows', `estimated ${Math.round(cost / MiB)} MiB`);
    }
    if (this.#restingRss + this.#charged - current + cost > this.#ceiling) {
      throw new OverloadedError('memory charged to large work in progress near server.memory_budget_mb', 5);
    }
  }
}

/** A charge given back once; settle() moves it to the body's real size. */
class ChargeTicket implements Ticket {
  #cost: number;
  #released = false;
  readonly #costOf: (bodyBytes: number) => number;
  /** Moves the process's total charge from one cost to another (throws when a larger one does not fit). */
  readonly #move: (from: number, to: number) => void;
  readonly #onRelease: (() => void)[] = [];

  constructor(cost: number, costOf: (bodyBytes: number) => number, move: (from: number, to: number) => void) {
    this.#cost = cost;
    this.#costOf = costOf;
    this.#move = move;
  }

  onRelease(action: () => void): this {
    this.#onRelease.push(action);
    return this;
  }

  settle(bodyBytes: number): void {
    if (this.#released) return;
    const cost = this.#costOf(bodyBytes);
    this.#move(this.#cost, cost);
    this.#cost = cost;
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.#move(this.#cost, 0);
    for (const action of this.#onRelease) action();
  }
}
