// Time and timers as parameters (house style rule 6): the work queue, informers, leader election
// and the rotation trigger take a Clock, so tests drive time by hand instead of sleeping.

export type TimerHandle = object;

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  setTimeout(callback: () => void, delayMs: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** The process clock. Timers are unref'd so a pending retry never keeps the process alive. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, delayMs) => {
    const timer = setTimeout(callback, Math.max(0, delayMs));
    timer.unref();
    return timer;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

interface PendingTimer {
  readonly handle: TimerHandle;
  readonly due: number;
  readonly seq: number;
  readonly callback: () => void;
}

/** A manual clock for tests: time moves only through `advance`, which fires due timers in order. */
export class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  #timers: PendingTimer[] = [];

  constructor(startMs = Date.UTC(2025, 0, 1)) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, delayMs: number): TimerHandle {
    const handle = {};
    this.#timers.push({ handle, due: this.#now + Math.max(0, delayMs), seq: this.#seq++, callback });
    return handle;
  }

  clearTimeout(handle: TimerHandle): void {
    this.#timers = this.#timers.filter((timer) => timer.handle !== handle);
  }

  /** Number of timers not yet fired. */
  get pending(): number {
    return this.#timers.length;
  }

  /** Move time forward, firing every timer that falls due (including ones scheduled meanwhile). */
  advance(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      const next = this.#timers.filter((timer) => timer.due <= target).sort((a, b) => a.due - b.due || a.seq - b.seq)[0];
      if (next === undefined) break;
      this.#timers = this.#timers.filter((timer) => timer !== next);
      this.#now = Math.max(this.#now, next.due);
      next.callback();
    }
    this.#now = target;
  }
}
