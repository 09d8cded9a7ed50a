// One place that owns every reloadable source (policy set, session key rings: the platform ring
// and the per-tenant rings of session.keyring_directory, API keys, tenant settings), their
// watchers, and what happens after a reload attempt: each outcome becomes one ReloadEvent for
// the listeners (the log line, the audit event, the metrics). Triggers: the admin API, a watched
// change, SIGHUP, or another worker process of the same server (cluster broadcast).
import type { PolicyChange, PolicyIssueView, PolicyReloader, ReloadResult } from './policies.js';
import type { ApiKeySource } from './api-keys.js';
import type { KeyRingSource } from './keyring.js';
import type { KeyRing } from '../domain/seal/index.js';
import { keyRingsGeneration, type TenantKeyRingSource } from './tenant-keyrings.js';
import type { TenantSettingsSource } from './tenant-settings.js';
import { ChangeWatcher, type Timers, type WatchFunction } from './watcher.js';

export type ReloadSourceName = 'policies' | 'keyring' | 'api_keys' | 'tenants';
export type ReloadTrigger = 'api' | 'watch' | 'signal' | 'cluster';

/** The value-free record of one reload attempt. */
export interface ReloadEvent {
  readonly source: ReloadSourceName;
  readonly trigger: ReloadTrigger;
  readonly ok: boolean;
  /** The running state changed (a swap happened). */
  readonly changed: boolean;
  /** policies only. */
  readonly changes?: readonly PolicyChange[];
  /** Why a failed attempt failed (file, field and rule; never contents). */
  readonly errors: readonly (string | PolicyIssueView)[];
  /** What is loaded after the attempt (set hash, ring or key-list generation). */
  readonly generation: string;
}

export type ReloadListener = (event: ReloadEvent) => void;

/** Default poll of watched sources' stamps, behind fs.watch. */
export const DEFAULT_POLL_MS = 10_000;

export interface ReloadManagerOptions {
  readonly policies: PolicyReloader;
  readonly keyRing: KeyRingSource;
  /** session.keyring_directory (absent: no tenant has a ring of its own). */
  readonly tenantKeyRings?: TenantKeyRingSource;
  readonly apiKeys: ApiKeySource;
  /** tenants_directory (absent: no tenant settings files). */
  readonly tenants?: TenantSettingsSource;
  /** policy.watch. Key-ring and API-key files are always watched when configured. */
  readonly watchPolicies: boolean;
  readonly debounceMs: number;
  readonly pollMs?: number;
  readonly timers?: Timers;
  readonly watch?: WatchFunction;
  /** Identity of the running policy set (for events). */
  readonly policySetHash: () => string;
  /** Milliseconds since the epoch (outcome times). */
  readonly now?: () => number;
}

/** The last reload attempt of a source, for health and diagnostics. */
export interface ReloadOutcome {
  readonly ok: boolean;
  readonly at_unix: number;
  readonly trigger: ReloadTrigger;
}

export class ReloadManager {
  readonly policies: PolicyReloader;
  readonly keyRing: KeyRingSource;
  readonly tenantKeyRings: TenantKeyRingSource | undefined;
  readonly apiKeys: ApiKeySource;
  readonly tenants: TenantSettingsSource | undefined;
  readonly #options: ReloadManagerOptions;
  readonly #listeners: ReloadListener[] = [];
  #watchers: ChangeWatcher[] = [];
  /** Called after a reload requested through this process (API, signal) so other workers follow. */
  #broadcast: ((source: ReloadSourceName | 'all') => void) | undefined;

  constructor(options: ReloadManagerOptions) {
    this.#options = options;
    this.policies = options.policies;
    this.keyRing = options.keyRing;
    this.tenantKeyRings = options.tenantKeyRings;
    this.apiKeys = options.apiKeys;
    this.tenants = options.tenants;
  }

  /**
   * The session key ring for a caller: the tenant's own ring (session.keyring_directory) when it
   * has one, else the platform ring (see tenant-keyrings.ts for why the fallback is safe). Read
   * it once per operation.
   */
  keyRingFor(tenant: string | null): KeyRing {
    return (tenant === null ? undefined : this.tenantKeyRings?.ringOf(tenant)) ?? this.keyRing.ring;
  }

  onReload(listener: ReloadListener): () => void {
    this.#listeners.push(listener);
    return () => {
      const index = this.#listeners.indexOf(listener);
      if (index >= 0) this.#listeners.splice(index, 1);
    };
  }

  /** Set by the cluster worker wiring: forward API and signal reloads to the other workers. */
  setBroadcast(broadcast: (source: ReloadSourceName | 'all') => void): void {
    this.#broadcast = broadcast;
  }

  readonly #last = new Map<ReloadSourceName, ReloadOutcome>();

  /** The last attempt to reload `source` (undefined when none was made). */
  lastOutcome(source: ReloadSourceName): ReloadOutcome | undefined {
    return this.#last.get(source);
  }

  #emit(event: ReloadEvent): void {
    this.#last.set(event.source, { ok: event.ok, at_unix: Math.floor((this.#options.now ?? Date.now)() / 1000), trigger: event.trigger });
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch {
        // A failing listener (a log or audit problem) must not undo or block a reload.
      }
    }
  }

  #forward(source: ReloadSourceName | 'all', trigger: ReloadTrigger): void {
    if (trigger === 'api' || trigger === 'signal') this.#broadcast?.(source);
  }

  reloadPolicies(trigger: ReloadTrigger): ReloadResult {
    const result = this.#reloadPolicies(trigger);
    this.#forward('policies', trigger);
    return result;
  }

  reloadKeyRing(trigger: ReloadTrigger): void {
    this.reload('keyring', trigger);
  }

  reloadTenants(trigger: ReloadTrigger): void {
    this.reload('tenants', trigger);
  }

  reloadApiKeys(trigger: ReloadTrigger): void {
    this.reload('api_keys', trigger);
  }

  /**
   * Whether `source` has files to reload. Reloading a source that has none is a no-op, not a
   * failure: no event, no metric, and the last outcome (health, diagnostics) stays as it was.
   */
  configured(source: ReloadSourceName): boolean {
    switch (source) {
      case 'policies':
        return this.policies.directory !== undefined;
      case 'keyring':
        return this.keyRing.file !== undefined || this.tenantKeyRings !== undefined;
      case 'api_keys':
        return this.apiKeys.reloadable;
      case 'tenants':
        return this.tenants !== undefined;
    }
  }

  /** Reload one source, or every configured one (SIGHUP, cluster broadcast); see configured(). */
  reload(source: ReloadSourceName | 'all', trigger: ReloadTrigger): void {
    const wanted = (name: ReloadSourceName): boolean => (source === 'all' || source === name) && this.configured(name);
    if (wanted('policies')) this.#reloadPolicies(trigger);
    if (wanted('keyring')) this.#reloadKeyRing(trigger);
    if (wanted('api_keys')) this.#reloadApiKeys(trigger);
    if (wanted('tenants')) this.#reloadTenants(trigger);
    this.#forward(source, trigger);
  }

  #reloadPolicies(trigger: ReloadTrigger): ReloadResult {
    const result = this.policies.reload();
    // No directory: the answer says so (reloaded: false, naming the setting), nothing happened.
    if (!this.configured('policies')) return result;
    this.#emit({
      source: 'policies',
      trigger,
      ok: result.reloaded,
      changed: result.reloaded && result.changes.length > 0,
      changes: result.changes,
      errors: result.errors,
      generation: this.#options.policySetHash(),
    });
    return result;
  }

  /**
   * `part`: which rings to re-read: the platform file, the tenant directory, or (API, signal,
   * cluster) every configured one. One `keyring` event either way.
   */
  #reloadKeyRing(trigger: ReloadTrigger, part: 'platform' | 'tenants' | 'all' = 'all'): void {
    const tenants = this.tenantKeyRings;
    const results: { ok: boolean; changed: boolean; errors: readonly string[] }[] = [];
    // Without any tenant directory the platform ring is reloaded even when it has no file, so
    // the "is not configured" answer stays what it was.
    if (part !== 'tenants' && (this.keyRing.file !== undefined || tenants === undefined)) {
      const result = this.keyRing.reload();
      results.push({ ok: result.reloaded, changed: result.changed, errors: result.errors });
    }
    if (part !== 'platform' && tenants !== undefined) results.push(tenants.reload());
    this.#emit({
      source: 'keyring',
      trigger,
      ok: results.every((result) => result.ok),
      changed: results.some((result) => result.changed),
      errors: results.flatMap((result) => result.errors),
      generation: keyRingsGeneration(this.keyRing.generation, tenants?.generation ?? ''),
    });
  }

  #reloadTenants(trigger: ReloadTrigger): void {
    const tenants = this.tenants;
    const result = tenants?.reload() ?? { ok: false, changed: false, errors: ['tenants_directory: is not configured'] };
    this.#emit({ source: 'tenants', trigger, ok: result.ok, changed: result.changed, errors: result.errors, generation: tenants?.generation ?? '' });
  }

  #reloadApiKeys(trigger: ReloadTrigger): void {
    const result = this.apiKeys.reload();
    this.#emit({ source: 'api_keys', trigger, ok: result.reloaded, changed: result.changed, errors: result.errors, generation: result.generation });
  }

  /** Start watching: policy.directory when policy.watch, key-ring and API-key files always. */
  start(onError: (source: ReloadSourceName, error: unknown) => void, overrides: { timers?: Timers; pollMs?: number } = {}): void {
    if (this.#watchers.length > 0) return;
    const timers = overrides.timers ?? this.#options.timers;
    const common = {
      debounceMs: this.#options.debounceMs,
      pollMs: overrides.pollMs ?? this.#options.pollMs ?? DEFAULT_POLL_MS,
      ...(timers !== undefined ? { timers } : {}),
      ...(this.#options.watch !== undefined ? { watch: this.#options.watch } : {}),
    };
    const directory = this.policies.directory;
    if (this.#options.watchPolicies && directory !== undefined) {
      this.#watchers.push(
        new ChangeWatcher({
          ...common,
          name: 'policies',
          paths: [directory],
          stamp: () => this.policies.stamp(),
          reload: () => void this.reloadPolicies('watch'),
          onError: (error) => onError('policies', error),
        }),
      );
    }
    if (this.keyRing.file !== undefined) {
      this.#watchers.push(
        new ChangeWatcher({
          ...common,
          name: 'keyring',
          paths: this.keyRing.watchPaths(),
          stamp: () => this.keyRing.stamp(),
          reload: () => this.#reloadKeyRing('watch', 'platform'),
          onError: (error) => onError('keyring', error),
        }),
      );
    }
    const tenantKeyRings = this.tenantKeyRings;
    if (tenantKeyRings !== undefined) {
      this.#watchers.push(
        new ChangeWatcher({
          ...common,
          name: 'keyring',
          paths: tenantKeyRings.watchPaths(),
          stamp: () => tenantKeyRings.stamp(),
          reload: () => this.#reloadKeyRing('watch', 'tenants'),
          onError: (error) => onError('keyring', error),
        }),
      );
    }
    const tenants = this.tenants;
    if (tenants !== undefined) {
      this.#watchers.push(
        new ChangeWatcher({
          ...common,
          name: 'tenants',
          paths: tenants.watchPaths(),
          stamp: () => tenants.stamp(),
          reload: () => this.#reloadTenants('watch'),
          onError: (error) => onError('tenants', error),
        }),
      );
    }
    if (this.apiKeys.reloadable) {
      this.#watchers.push(
        new ChangeWatcher({
          ...common,
          name: 'api_keys',
          paths: this.apiKeys.watchPaths(),
          stamp: () => this.apiKeys.stamp(),
          reload: () => this.reloadApiKeys('watch'),
          onError: (error) => onError('api_keys', error),
        }),
      );
    }
    for (const watcher of this.#watchers) watcher.start();
  }

  /** The watchers (tests inspect `pending`). */
  get watchers(): readonly ChangeWatcher[] {
    return this.#watchers;
  }

  close(): void {
    for (const watcher of this.#watchers) watcher.close();
    this.#watchers = [];
  }
}
