// Debounced change detection for mounted directories. fs.watch on the directory sees both an
// in-place edit and a Kubernetes `..data` symlink swap (a rename in that directory); a slow poll
// of the source's stamp backs it up, because inotify events can be lost (an overflowing queue,
// the watched directory replaced, network filesystems). Any signal (re)starts one quiet-period
// timer; when it fires the source is reloaded once. Timers and the watch function are
// injectable so tests drive the debounce without sleeping.
import { watch as fsWatch, type FSWatcher } from 'node:fs';

export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  setInterval(callback: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

export const REAL_TIMERS: Timers = {
  setTimeout: (callback, ms) => {
    const handle = setTimeout(callback, ms);
    handle.unref();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
  setInterval: (callback, ms) => {
    const handle = setInterval(callback, ms);
    handle.unref();
    return handle;
  },
  clearInterval: (handle) => clearInterval(handle as NodeJS.Timeout),
};

export type WatchFunction = (path: string, listener: () => void, onError: (error: unknown) => void) => { close(): void };

/** fs.watch on a directory; any event counts (names are not trusted: a swap renames `..data`). */
export const FS_WATCH: WatchFunction = (path, listener, onError) => {
  const watcher: FSWatcher = fsWatch(path, { persistent: false }, () => listener());
  watcher.on('error', onError);
  return watcher;
};

export interface ChangeWatcherOptions {
  /** For logs: `policies`, `keyring`, `api_keys`. */
  readonly name: string;
  /** Directories to watch. */
  readonly paths: readonly string[];
  /** Quiet period after the last change before reloading. */
  readonly debounceMs: number;
  /** Poll interval of `stamp` (0 disables the poll). */
  readonly pollMs: number;
  /** A cheap fingerprint of the source; a different value means it changed. */
  readonly stamp: () => string;
  /** Reload the source. Errors are reported to onError, never thrown into a timer. */
  readonly reload: () => void | Promise<void>;
  readonly onError: (error: unknown) => void;
  readonly timers?: Timers;
  readonly watch?: WatchFunction;
}

export class ChangeWatcher {
  readonly name: string;
  readonly #options: ChangeWatcherOptions;
  readonly #timers: Timers;
  #watchers: { close(): void }[] = [];
  #poll: unknown;
  #pending: unknown;
  #running = false;
  #again = false;
  #closed = false;
  #lastStamp = '';

  constructor(options: ChangeWatcherOptions) {
    this.name = options.name;
    this.#options = options;
    this.#timers = options.timers ?? REAL_TIMERS;
  }

  start(): void {
    this.#lastStamp = this.#options.stamp();
    const watch = this.#options.watch ?? FS_WATCH;
    for (const path of this.#options.paths) {
      try {
        this.#watchers.push(watch(path, () => this.notify(), (error) => this.#options.onError(error)));
      } catch (error) {
        // The poll still notices changes; say that the fast path is missing.
        this.#options.onError(error);
      }
    }
    if (this.#options.pollMs > 0) {
      this.#poll = this.#timers.setInterval(() => {
        if (this.#options.stamp() !== this.#lastStamp) this.notify();
      }, this.#options.pollMs);
    }
  }

  /** True while a reload is scheduled and waiting for its quiet period. */
  get pending(): boolean {
    return this.#pending !== undefined;
  }

  /** A change was seen: (re)start the quiet-period timer. */
  notify(): void {
    if (this.#closed) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    if (this.#pending !== undefined) this.#timers.clearTimeout(this.#pending);
    this.#pending = this.#timers.setTimeout(() => {
      this.#pending = undefined;
      void this.#fire();
    }, this.#options.debounceMs);
  }

  async #fire(): Promise<void> {
    if (this.#closed) return;
    this.#running = true;
    try {
      this.#lastStamp = this.#options.stamp();
      await this.#options.reload();
    } catch (error) {
      this.#options.onError(error);
    } finally {
      this.#running = false;
    }
    // Changes that arrived during the reload get their own, later reload.
    if (this.#again) {
      this.#again = false;
      this.notify();
    }
  }

  close(): void {
    this.#closed = true;
    for (const watcher of this.#watchers) watcher.close();
    this.#watchers = [];
    if (this.#poll !== undefined) this.#timers.clearInterval(this.#poll);
    if (this.#pending !== undefined) this.#timers.clearTimeout(this.#pending);
    this.#poll = undefined;
    this.#pending = undefined;
  }
}
