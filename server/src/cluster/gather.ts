// The primary's cluster-wide collections (every worker's metrics, every worker's diagnostics
// report). A collection asks a set of workers and completes when each of them has answered or
// has exited: a worker killed mid-collection no longer holds /metrics or /v1/diagnostics until
// the timeout. Only a worker that is alive and does not answer in time fails the collection.

interface Open<T> {
  readonly waiting: Set<number>;
  readonly parts: T[];
  readonly timer: NodeJS.Timeout;
  readonly resolve: (parts: T[] | undefined) => void;
}

export class Gathers<T> {
  #next = 1;
  readonly #open = new Map<number, Open<T>>();

  /**
   * Ask `targets` (worker ids) with `ask(id)`; resolves to their answers, or undefined when a
   * target that is still alive has not answered within `timeoutMs`.
   */
  open(targets: readonly number[], timeoutMs: number, ask: (id: number) => void): Promise<T[] | undefined> {
    const id = this.#next;
    this.#next += 1;
    if (targets.length === 0) return Promise.resolve([]);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#open.delete(id);
        resolve(undefined);
      }, timeoutMs);
      timer.unref();
      this.#open.set(id, { waiting: new Set(targets), parts: [], timer, resolve });
      ask(id);
    });
  }

  /** `workerId` answered collection `id` (answers from workers not asked, or twice, are ignored). */
  answer(id: number, workerId: number, part: T): void {
    const open = this.#open.get(id);
    if (open === undefined || !open.waiting.delete(workerId)) return;
    open.parts.push(part);
    this.#settleIfDone(id, open);
  }

  /** `workerId` exited: no open collection waits for it any longer. */
  gone(workerId: number): void {
    for (const [id, open] of this.#open) if (open.waiting.delete(workerId)) this.#settleIfDone(id, open);
  }

  #settleIfDone(id: number, open: Open<T>): void {
    if (open.waiting.size > 0) return;
    clearTimeout(open.timer);
    this.#open.delete(id);
    open.resolve(open.parts);
  }
}
