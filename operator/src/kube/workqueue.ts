// A rate-limited work queue with client-go semantics: a key is queued at most once (dedup); a
// key being processed is never handed to a second worker, and if it is added meanwhile it is
// processed again afterwards (dirty); failures requeue with per-key exponential backoff that
// resets on success; `addAfter` schedules a requeue (a rotation phase waiting for a TTL).
// Shutdown stops taking keys and waits for the workers' current keys to finish.
import { systemClock, type Clock, type TimerHandle } from './clock.js';

export interface WorkQueueOptions {
  readonly clock?: Clock;
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
}

export class WorkQueue {
  readonly #clock: Clock;
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #queue: string[] = [];
  readonly #queued = new Set<string>();
  readonly #processing = new Set<string>();
  readonly #dirty = new Set<string>();
  readonly #failures = new Map<string, number>();
  readonly #delayed = new Map<string, { due: number; timer: TimerHandle }>();
  #waiters: ((key: string | undefined) => void)[] = [];
  #shuttingDown = false;
  #idleWaiters: (() => void)[] = [];

  constructor(options: WorkQueueOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#baseDelayMs = options.baseDelayMs ?? 100;
    this.#maxDelayMs = options.maxDelayMs ?? 60_000;
  }

  get length(): number {
    return this.#queue.length;
  }

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  add(key: string): void {
    if (this.#shuttingDown) return;
    if (this.#processing.has(key)) {
      this.#dirty.add(key);
      return;
    }
    if (this.#queued.has(key)) return;
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) {
      this.#processing.add(key);
      waiter(key);
      return;
    }
    this.#queued.add(key);
    this.#queue.push(key);
  }

  /** Add after a delay; an earlier pending schedule for the same key wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.#shuttingDown) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const due = this.#clock.now() + delayMs;
    const pending = this.#delayed.get(key);
    if (pending !== undefined) {
      if (pending.due <= due) return;
      this.#clock.clearTimeout(pending.timer);
    }
    const timer = this.#clock.setTimeout(() => {
      this.#delayed.delete(key);
      this.add(key);
    }, delayMs);
    this.#delayed.set(key, { due, timer });
  }

  /** Requeue after this key's next backoff step (base * 2^failures, capped). */
  addRateLimited(key: string, minimumDelayMs = 0): number {
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    const delay = Math.max(minimumDelayMs, Math.min(this.#maxDelayMs, this.#baseDelayMs * 2 ** Math.min(failures, 30)));
    this.addAfter(key, delay);
    return delay;
  }

  /** Reset the key's backoff (after a successful reconcile). */
  forget(key: string): void {
    this.#failures.delete(key);
  }

  failures(key: string): number {
    return this.#failures.get(key) ?? 0;
  }

  /** Next key, or undefined once shut down. The caller must call `done(key)`. */
  get(): Promise<string | undefined> {
    if (this.#shuttingDown) return Promise.resolve(undefined);
    const key = this.#queue.shift();
    if (key !== undefined) {
      this.#queued.delete(key);
      this.#processing.add(key);
      return Promise.resolve(key);
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  done(key: string): void {
    this.#processing.delete(key);
    if (this.#dirty.delete(key)) this.add(key);
    if (this.#processing.size === 0) for (const resolve of this.#idleWaiters.splice(0)) resolve();
  }

  /** Stop handing out keys; resolves when no key is being processed any more. */
  async shutDown(): Promise<void> {
    this.#shuttingDown = true;
    for (const pending of this.#delayed.values()) this.#clock.clearTimeout(pending.timer);
    this.#delayed.clear();
    for (const waiter of this.#waiters.splice(0)) waiter(undefined);
    this.#queue.length = 0;
    this.#queued.clear();
    this.#dirty.clear();
    if (this.#processing.size === 0) return;
    await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
  }
}
