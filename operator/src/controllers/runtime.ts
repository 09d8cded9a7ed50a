// The controller runtime: a worker loop that takes keys from a WorkQueue and reconciles them
// (success forgets the key's backoff and honours requeueAfter; failure requeues with per-key
// backoff, at least the server's Retry-After on a 429), the apply helper that writes an owned
// object only when it differs from the desired one, the status patcher (patch only on
// change), and the event recorder. Controllers stay pure in desired.ts and use these to act.
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

export interface ControllerHooks {
  onReconciled?(controller: string, result: 'success' | 'error', seconds: number): void;
}

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
        const retryAfterMs = error instanceof KubeApiError && error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : 0;
        const delay = this.queue.addRateLimited(key, retryAfterMs);
        this.#hooks.onReconciled?.(this.name, 'error', (this.#clock.now() - started) / 1000);
        // A conflict is the normal outcome of a stale cache, not worth a warning.
        const fields = { controller: this.name, key, retry_in_ms: delay, error: describeError(error) };
        if (error instanceof KubeApiError && error.status === 409) this.#logger.info('reconcile conflict; requeued', fields);
        else this.#logger.warn('reconcile failed; requeued', fields);
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

/** How to compare and merge one kind's payload (everything but metadata). */
export interface PayloadRules<T extends KubeObject> {
  /** True when `actual` already holds what `desired` asks for. */
  matches(desired: T, actual: T): boolean;
  /** The object to write: `actual`'s identity with `desired`'s payload. */
  merge(desired: T, actual: T): T;
}

/** ConfigMaps and Secrets: the data must be exactly the desired data (no stray files). */
export const dataRules: PayloadRules<KubeObject> = {
  matches: (desired, actual) => deepEqual(desired.data ?? {}, actual.data ?? {}) && (desired.type === undefined || desired.type === actual.type),
  merge: (desired, actual) => ({ ...actual, data: desired.data, ...(desired.type === undefined ? {} : { type: desired.type }) }),
};

/** Workloads: every desired spec field must hold (server defaults allowed); drift is replaced. */
export const specRules: PayloadRules<KubeObject> = {
  matches: (desired, actual) => isSubset(desired.spec, actual.spec),
  merge: (desired, actual) => ({ ...actual, spec: desired.spec }),
};

function metadataMatches(desired: ObjectMeta, actual: ObjectMeta): boolean {
  return isSubset(desired.labels ?? {}, actual.labels ?? {}) && isSubset(desired.annotations ?? {}, actual.annotations ?? {}) && ownerRefsMatch(desired.ownerReferences, actual.ownerReferences);
}

function ownerRefsMatch(desired: readonly OwnerReference[] | undefined, actual: readonly OwnerReference[] | undefined): boolean {
  return (desired ?? []).every((ref) => (actual ?? []).some((candidate) => candidate.uid === ref.uid && candidate.controller === ref.controller));
}

function mergeOwnerRefs(desired: readonly OwnerReference[] | undefined, actual: readonly OwnerReference[] | undefined): OwnerReference[] | undefined {
  const result = [...(actual ?? []).filter((ref) => !(desired ?? []).some((wanted) => wanted.uid === ref.uid))];
  result.push(...(desired ?? []));
  return result.length === 0 ? undefined : result;
}

export type ApplyOutcome = 'created' | 'updated' | 'unchanged';

/**
 * Make the object look like `desired`: create it when absent, replace it (optimistically, on
 * the version read) when it differs, leave it alone otherwise. Labels, annotations and owner
 * references of others are kept. A concurrent writer shows up as a 409 and a retry.
 */
export async function applyObject<T extends KubeObject>(client: KubeClient, kind: KindName, desired: T, actual: T | undefined, rules: PayloadRules<KubeObject>): Promise<{ outcome: ApplyOutcome; object: T }> {
  if (actual === undefined) return { outcome: 'created', object: await client.create(kind, desired) };
  if (metadataMatches(desired.metadata, actual.metadata) && rules.matches(desired, actual)) return { outcome: 'unchanged', object: actual };
  const merged = rules.merge(desired, actual) as T;
  const ownerReferences = mergeOwnerRefs(desired.metadata.ownerReferences, actual.metadata.ownerReferences);
  merged.metadata = {
    ...actual.metadata,
    labels: { ...actual.metadata.labels, ...desired.metadata.labels },
    annotations: { ...actual.metadata.annotations, ...desired.metadata.annotations },
    ...(ownerReferences === undefined ? {} : { ownerReferences }),
  };
  return { outcome: 'updated', object: await client.replace(kind, merged) };
}

/**
 * Patch the status subresource only when the new status differs from the one read, with the
 * read's resourceVersion as a precondition (a status computed from a stale spec is refused).
 */
export async function patchStatusIfChanged(client: KubeClient, kind: KindName, object: KubeObject, status: object): Promise<boolean> {
  const before = (object.status ?? {}) as Record<string, unknown>;
  const patch = mergePatchFor(before, status as Record<string, unknown>);
  if (Object.keys(patch).length === 0) return false;
  await client.patchStatus(kind, object.metadata.namespace!, object.metadata.name, patch, object.metadata.resourceVersion);
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
