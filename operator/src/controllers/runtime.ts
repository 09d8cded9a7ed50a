// The controller runtime: a worker loop that takes keys from a WorkQueue and reconciles them
// (success forgets the key's backoff and honours requeueAfter; a 409 from a stale cache is
// retried shortly and quietly; any other failure requeues with per-key backoff, at least the
// server's Retry-After on a 429), the server-side-apply helper that writes an owned object only
// when it differs from the desired one, the status patcher (patch only on change), and the
// event recorder. Controllers stay pure in desired.ts and use these to act.
import type { KubeClient } from '../kube/client.js';
import { deepEqual, isSubset, mergePatchFor } from '../kube/json.js';
import { KubeApiError, type KindName, type KubeObject, type ObjectMeta, type OwnerReference } from '../kube/types.js';
import { WorkQueue } from '../kube/workqueue.js';
import type { Clock } from '../kube/clock.js';
import { rfc3339 } from './conditions.js';

export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export const silentLogger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** JSON lines on stdout; callers pass names and counts, never secret values. */
export function jsonLogger(write: (line: string) => void = (line) => process.stdout.write(line)): Logger {
  const log = (level: string, message: string, fields?: Record<string, unknown>): void => {
    write(`${JSON.stringify({ time: new Date().toISOString(), level, name: 'veil-operator', msg: message, ...fields })}\n`);
  };
  return { info: (m, f) => log('info', m, f), warn: (m, f) => log('warn', m, f), error: (m, f) => log('error', m, f) };
}

export interface ReconcileResult {
  /** Reconcile this key again after this long (a phase waiting on replicas, a TTL, a schedule). */
  readonly requeueAfterMs?: number;
}

export interface Reconciler {
  readonly name: string;
  reconcile(key: string): Promise<ReconcileResult | undefined>;
}

export type ReconcileOutcome = 'success' | 'conflict' | 'error';

export interface ControllerHooks {
  onReconciled?(controller: string, result: ReconcileOutcome, seconds: number): void;
}

/** Retry delay after a 409: long enough for the watch to deliver what the cache missed. */
export const CONFLICT_RETRY_MS = 250;

/** Error text safe to log: API errors carry status and reason, anything else its message. */
export function describeError(error: unknown): string {
  if (error instanceof KubeApiError) return `${error.status} ${error.reason}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

export class ControllerLoop {
  readonly queue: WorkQueue;
  readonly #reconciler: Reconciler;
  readonly #workers: number;
  readonly #logger: Logger;
  readonly #hooks: ControllerHooks;
  readonly #clock: Clock;
  #running: Promise<void>[] = [];

  constructor(options: { reconciler: Reconciler; clock: Clock; workers?: number; logger?: Logger; hooks?: ControllerHooks; baseDelayMs?: number; maxDelayMs?: number }) {
    this.#reconciler = options.reconciler;
    this.#clock = options.clock;
    this.#workers = options.workers ?? 1;
    this.#logger = options.logger ?? silentLogger;
    this.#hooks = options.hooks ?? {};
    this.queue = new WorkQueue({ clock: options.clock, ...(options.baseDelayMs === undefined ? {} : { baseDelayMs: options.baseDelayMs }), ...(options.maxDelayMs === undefined ? {} : { maxDelayMs: options.maxDelayMs }) });
  }

  get name(): string {
    return this.#reconciler.name;
  }

  start(): void {
    for (let index = 0; index < this.#workers; index += 1) this.#running.push(this.#work());
  }

  /** Stop taking keys and wait for the ones in progress. */
  async stop(): Promise<void> {
    await this.queue.shutDown();
    await Promise.all(this.#running);
    this.#running = [];
  }

  async #work(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      const started = this.#clock.now();
      try {
        const result = await this.#reconciler.reconcile(key);
        this.queue.forget(key);
        this.#hooks.onReconciled?.(this.name, 'success', (this.#clock.now() - started) / 1000);
        if (result?.requeueAfterMs !== undefined) this.queue.addAfter(key, result.requeueAfterMs);
      } catch (error) {
        if (error instanceof KubeApiError && error.status === 409) {
          // A write refused because our cache was behind (or someone wrote in between) is the
          // normal price of optimistic concurrency, not a failure: no backoff, no warning, no
          // error metric. The watch event that made the cache stale usually requeues the key
          // already; the short retry covers the case where it came before the write.
          this.queue.forget(key);
          this.queue.addAfter(key, CONFLICT_RETRY_MS);
          this.#hooks.onReconciled?.(this.name, 'conflict', (this.#clock.now() - started) / 1000);
          continue;
        }
        const retryAfterMs = error instanceof KubeApiError && error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : 0;
        const delay = this.queue.addRateLimited(key, retryAfterMs);
        this.#hooks.onReconciled?.(this.name, 'error', (this.#clock.now() - started) / 1000);
        this.#logger.warn('reconcile failed; requeued', { controller: this.name, key, retry_in_ms: delay, error: describeError(error) });
      } finally {
        this.queue.done(key);
      }
    }
  }
}

export const MANAGED_BY_LABELS: Readonly<Record<string, string>> = Object.freeze({
  'app.kubernetes.io/managed-by': 'veil-operator',
  'app.kubernetes.io/part-of': 'veil',
});

/** How to compare one kind's payload (everything but metadata) and what of it the operator applies. */
export interface PayloadRules<T extends KubeObject> {
  /** True when `actual` already holds what `desired` asks for. */
  matches(desired: T, actual: T): boolean;
  /** The payload fields of `desired` the operator owns (its apply configuration, minus metadata). */
  payload(desired: T): Record<string, unknown>;
  /** JSON pointers of fields another manager added that must go (a stray file in a directory). */
  strays(desired: T, actual: T): string[];
}

/** RFC 6901 escaping of one JSON pointer segment. */
const pointerSegment = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** ConfigMaps and Secrets: the data must be exactly the desired data (no stray files). */
export const dataRules: PayloadRules<KubeObject> = {
  matches: (desired, actual) => deepEqual(desired.data ?? {}, actual.data ?? {}) && (desired.type === undefined || desired.type === actual.type),
  payload: (desired) => ({ data: desired.data ?? {}, ...(desired.type === undefined ? {} : { type: desired.type }) }),
  strays: (desired, actual) =>
    Object.keys((actual.data ?? {}) as Record<string, string>)
      .filter((key) => !Object.hasOwn((desired.data ?? {}) as Record<string, string>, key))
      .map((key) => `/data/${pointerSegment(key)}`),
};

/** Workloads: every desired spec field must hold (server defaults allowed); drift is re-applied. */
export const specRules: PayloadRules<KubeObject> = {
  matches: (desired, actual) => isSubset(desired.spec, actual.spec),
  payload: (desired) => ({ spec: desired.spec }),
  strays: () => [],
};

function metadataMatches(desired: ObjectMeta, actual: ObjectMeta): boolean {
  return isSubset(desired.labels ?? {}, actual.labels ?? {}) && isSubset(desired.annotations ?? {}, actual.annotations ?? {}) && ownerRefsMatch(desired.ownerReferences, actual.ownerReferences);
}

function ownerRefsMatch(desired: readonly OwnerReference[] | undefined, actual: readonly OwnerReference[] | undefined): boolean {
  return (desired ?? []).every((ref) => (actual ?? []).some((candidate) => candidate.uid === ref.uid && candidate.controller === ref.controller));
}

export type ApplyOutcome = 'created' | 'updated' | 'unchanged';

/**
 * The informer cache said an object is absent, but the API server has it: the cache is behind.
 * Handled like a 409 (a quiet retry once the watch catches up), never by writing blind.
 */
export class StaleCacheError extends KubeApiError {
  constructor(kind: KindName, name: string) {
    super(409, 'StaleCache', `${kind} ${name} exists but the informer cache has not seen it yet`);
  }
}

/**
 * Make the object look like `desired` with server-side apply under the operator's field manager
 * (FIELD_MANAGER), forcing ownership of the fields it applies: labels, annotations and owner
 * references it sets, and its payload (rules.payload). Other managers' labels, annotations and
 * owner references are kept; fields it applied before and no longer does are removed; payload
 * fields another manager added that rules.strays names are removed by a JSON patch.
 *
 * `actual` is the informer's copy, so every write is conditional on it: the apply carries its
 * resourceVersion (a stale copy gets 409 and a retry, never a write computed from old data), and
 * an object the cache does not have is created only after the API server confirms it is absent.
 * `observe` receives each object written (informer write-through).
 */
export async function applyObject<T extends KubeObject>(
  client: KubeClient,
  kind: KindName,
  desired: T,
  actual: T | undefined,
  rules: PayloadRules<KubeObject>,
  observe?: (object: T) => void,
): Promise<{ outcome: ApplyOutcome; object: T }> {
  const { name, namespace } = desired.metadata;
  if (actual !== undefined && metadataMatches(desired.metadata, actual.metadata) && rules.matches(desired, actual) && rules.strays(desired, actual).length === 0) {
    return { outcome: 'unchanged', object: actual };
  }
  if (actual === undefined && (await client.get(kind, namespace ?? '', name)) !== undefined) throw new StaleCacheError(kind, name);
  const metadata: ObjectMeta = {
    name,
    ...(namespace === undefined ? {} : { namespace }),
    ...(desired.metadata.labels === undefined ? {} : { labels: desired.metadata.labels }),
    ...(desired.metadata.annotations === undefined ? {} : { annotations: desired.metadata.annotations }),
    ...(desired.metadata.ownerReferences === undefined ? {} : { ownerReferences: desired.metadata.ownerReferences }),
    ...(actual?.metadata.resourceVersion === undefined ? {} : { resourceVersion: actual.metadata.resourceVersion }),
  };
  let written = await client.apply<T>(kind, { apiVersion: desired.apiVersion, kind: desired.kind, metadata, ...rules.payload(desired) } as unknown as T);
  const strays = rules.strays(desired, written);
  if (strays.length > 0) {
    written = await client.patch<T>(kind, namespace ?? '', name, [
      // A replace of resourceVersion makes the patch conditional: 409 if anyone wrote since.
      { op: 'replace', path: '/metadata/resourceVersion', value: written.metadata.resourceVersion },
      ...strays.map((path) => ({ op: 'remove' as const, path })),
    ]);
  }
  observe?.(written);
  return { outcome: actual === undefined ? 'created' : 'updated', object: written };
}

/**
 * Patch the status subresource only when the new status differs from the one read, with the
 * read's resourceVersion as a precondition (a status computed from a stale spec is refused).
 */
export async function patchStatusIfChanged(client: KubeClient, kind: KindName, object: KubeObject, status: object, observe?: (object: KubeObject) => void): Promise<boolean> {
  const before = (object.status ?? {}) as Record<string, unknown>;
  const patch = mergePatchFor(before, status as Record<string, unknown>);
  if (Object.keys(patch).length === 0) return false;
  observe?.(await client.patchStatus(kind, object.metadata.namespace!, object.metadata.name, patch, object.metadata.resourceVersion));
  return true;
}

/** Kubernetes Events (core/v1) about our resources. Best effort: a failed event is logged, never fatal. */
export class EventRecorder {
  constructor(
    private readonly client: KubeClient,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly instance: string,
  ) {}

  async record(object: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
    const now = rfc3339(this.clock.now());
    try {
      await this.client.create('Event', {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: '', generateName: `${object.metadata.name}.`, namespace: object.metadata.namespace! },
        involvedObject: {
          apiVersion: object.apiVersion,
          kind: object.kind,
          name: object.metadata.name,
          namespace: object.metadata.namespace,
          ...(object.metadata.uid === undefined ? {} : { uid: object.metadata.uid }),
        },
        type,
        reason,
        message,
        source: { component: 'veil-operator' },
        reportingComponent: 'veil-operator',
        reportingInstance: this.instance,
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
      });
    } catch (error) {
      this.logger.warn('event not recorded', { reason, object: object.metadata.name, error: describeError(error) });
    }
  }
}
