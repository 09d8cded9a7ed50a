// An informer: a local cache of one kind kept current by list + watch. It lists, then watches
// from the list's resourceVersion; a dropped watch resumes from the last version seen; a 410
// Gone (history compacted) or any other watch failure relists; and it relists periodically
// anyway, so a missed event can never leave the cache wrong for long. Every change, and every
// object on every relist, is reported as a key only: controllers re-read the cache and never
// see the event type (level-triggered reconcile, house style rule 9).
import type { KubeClient } from './client.js';
import { systemClock, type Clock, type TimerHandle } from './clock.js';
import { objectKey, type KindName, type KubeObject } from './types.js';

export interface InformerOptions {
  readonly namespace?: string;
  readonly labelSelector?: string;
  /** E.g. `metadata.name=<name>`: one object, which RBAC can grant by resourceNames. */
  readonly fieldSelector?: string;
  /** Full relist period (resync); default 5 minutes. */
  readonly relistIntervalMs?: number;
  /** Backoff after a failed list or watch: base and cap. */
  readonly retryBaseMs?: number;
  readonly retryMaxMs?: number;
  readonly clock?: Clock;
  readonly onError?: (error: unknown, phase: 'list' | 'watch') => void;
}

export class Informer<T extends KubeObject = KubeObject> {
  readonly #client: KubeClient;
  readonly #kind: KindName;
  readonly #options: InformerOptions;
  readonly #clock: Clock;
  readonly #cache = new Map<string, T>();
  readonly #handlers: ((key: string) => void)[] = [];
  #resourceVersion = '';
  #synced = false;
  #running = false;
  #watch: { stop(): void } | undefined;
  #timer: TimerHandle | undefined;
  #relistTimer: TimerHandle | undefined;
  #failures = 0;
  #syncWaiters: (() => void)[] = [];
  /** Counters for metrics and tests. */
  readonly stats = { lists: 0, watches: 0, relistsOnGone: 0, events: 0 };

  constructor(client: KubeClient, kind: KindName, options: InformerOptions = {}) {
    this.#client = client;
    this.#kind = kind;
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
  }

  get kind(): KindName {
    return this.#kind;
  }

  /** Subscribe to changed keys (`namespace/name`). */
  onChange(handler: (key: string) => void): void {
    this.#handlers.push(handler);
  }

  get hasSynced(): boolean {
    return this.#synced;
  }

  /** Resolves after the first successful list. */
  waitForSync(): Promise<void> {
    if (this.#synced) return Promise.resolve();
    return new Promise((resolve) => this.#syncWaiters.push(resolve));
  }

  get(namespace: string, name: string): T | undefined {
    const object = this.#cache.get(objectKey(namespace, name));
    return object === undefined ? undefined : structuredClone(object);
  }

  list(namespace?: string): T[] {
    return [...this.#cache.values()].filter((object) => namespace === undefined || object.metadata.namespace === namespace).map((object) => structuredClone(object));
  }

  keys(): string[] {
    return [...this.#cache.keys()];
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    void this.#relist();
  }

  stop(): void {
    this.#running = false;
    this.#watch?.stop();
    this.#watch = undefined;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    if (this.#relistTimer !== undefined) this.#clock.clearTimeout(this.#relistTimer);
    this.#timer = undefined;
    this.#relistTimer = undefined;
  }

  /**
   * Write-through: record what a write of ours returned, so a reconcile that runs before the
   * watch delivers that write plans from it instead of from the version it replaced (which the
   * API server would refuse with 409). Handlers are not called: the watch event will be.
   * Objects of another namespace than the informer's are ignored.
   */
  observe(object: T): void {
    if (!this.#running || (this.#options.namespace !== undefined && object.metadata.namespace !== this.#options.namespace)) return;
    this.#cache.set(objectKey(object.metadata.namespace, object.metadata.name), structuredClone(object));
  }

  #selectors(): { labelSelector?: string; fieldSelector?: string } {
    return {
      ...(this.#options.labelSelector === undefined ? {} : { labelSelector: this.#options.labelSelector }),
      ...(this.#options.fieldSelector === undefined ? {} : { fieldSelector: this.#options.fieldSelector }),
    };
  }

  #notify(key: string): void {
    for (const handler of this.#handlers) handler(key);
  }

  #retryDelay(): number {
    const base = this.#options.retryBaseMs ?? 200;
    const max = this.#options.retryMaxMs ?? 30_000;
    return Math.min(max, base * 2 ** Math.min(this.#failures - 1, 20));
  }

  #schedule(action: () => Promise<void>, delayMs: number): void {
    if (!this.#running) return;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      void action();
    }, delayMs);
  }

  async #relist(): Promise<void> {
    if (!this.#running) return;
    this.#watch?.stop();
    this.#watch = undefined;
    let result;
    try {
      this.stats.lists += 1;
      result = await this.#client.list(this.#kind, this.#options.namespace, this.#selectors());
    } catch (error) {
      this.#failures += 1;
      this.#options.onError?.(error, 'list');
      this.#schedule(() => this.#relist(), this.#retryDelay());
      return;
    }
    if (!this.#running) return;
    this.#failures = 0;
    const seen = new Set<string>();
    for (const item of result.items as T[]) {
      const key = objectKey(item.metadata.namespace, item.metadata.name);
      seen.add(key);
      this.#cache.set(key, item);
    }
    const removed = [...this.#cache.keys()].filter((key) => !seen.has(key));
    for (const key of removed) this.#cache.delete(key);
    this.#resourceVersion = result.resourceVersion;
    if (!this.#synced) {
      this.#synced = true;
      for (const resolve of this.#syncWaiters.splice(0)) resolve();
    }
    // A relist reports every key (present or just removed): that is the periodic resync.
    for (const key of [...seen, ...removed]) this.#notify(key);
    if (this.#relistTimer !== undefined) this.#clock.clearTimeout(this.#relistTimer);
    this.#relistTimer = this.#clock.setTimeout(() => {
      this.#relistTimer = undefined;
      void this.#relist();
    }, this.#options.relistIntervalMs ?? 300_000);
    await this.#startWatch();
  }

  async #startWatch(): Promise<void> {
    if (!this.#running) return;
    const options = { resourceVersion: this.#resourceVersion, ...this.#selectors() };
    let handle: { stop(): void } | undefined;
    let closedEarly = false;
    try {
      this.stats.watches += 1;
      handle = await this.#client.watch(this.#kind, this.#options.namespace, options, {
        onEvent: (event) => {
          const object = event.object as T;
          if (object.metadata.resourceVersion !== undefined && object.metadata.resourceVersion !== '') {
            this.#resourceVersion = object.metadata.resourceVersion;
          }
          if (event.type === 'BOOKMARK') return;
          this.stats.events += 1;
          this.#failures = 0;
          const key = objectKey(object.metadata.namespace, object.metadata.name);
          if (event.type === 'DELETED') this.#cache.delete(key);
          else this.#cache.set(key, object);
          this.#notify(key);
        },
        onClose: (error) => {
          closedEarly = handle === undefined;
          if (this.#watch === handle) this.#watch = undefined;
          this.#afterWatchClosed(error);
        },
      });
    } catch (error) {
      this.#failures += 1;
      this.#options.onError?.(error, 'watch');
      this.#schedule(() => this.#relist(), this.#retryDelay());
      return;
    }
    if (!this.#running) {
      handle.stop();
      return;
    }
    if (!closedEarly) this.#watch = handle;
  }

  #afterWatchClosed(error: unknown): void {
    if (!this.#running) return;
    if (error === undefined) {
      // A clean close (the server's watch timeout): resume from the last version seen after
      // the base delay, so a server that closes every watch at once cannot spin us.
      this.#schedule(() => this.#startWatch(), this.#options.retryBaseMs ?? 200);
      return;
    }
    this.#failures += 1;
    this.#options.onError?.(error, 'watch');
    const gone = (error as { status?: unknown }).status === 410;
    if (gone) this.stats.relistsOnGone += 1;
    // 410: the version is compacted, only a relist recovers. Other failures (a dropped
    // connection, a 5xx) resume the watch after a backoff; a watch that then fails with 410
    // relists on the next round.
    this.#schedule(() => (gone ? this.#relist() : this.#startWatch()), gone ? 0 : this.#retryDelay());
  }
}
