// The message protocol between the primary process and its workers (node:cluster IPC). Every
// message is `{veil: 1, kind, id?, ...}`; anything else on the channel (prom-client's own
// messages, for instance) is ignored. Requests carry an id and are answered once; a request
// that is not answered in time rejects, so a hung worker cannot hang /metrics.
import type { MetricObjectWithValues, MetricValue } from 'prom-client';
import type { ReloadSourceName } from '../reload/manager.js';

export type MetricsJson = MetricObjectWithValues<MetricValue<string>>[];

/** What a worker reports about itself for /v1/diagnostics. */
export interface WorkerReport {
  readonly worker_id: number;
  readonly pid: number;
  readonly [field: string]: unknown;
}

export type IpcMessage =
  /** worker -> primary: the server is listening (first one is logged by the primary). */
  | { veil: 1; kind: 'listening'; url: string }
  /** worker -> primary: aggregate every worker's metrics for me. */
  | { veil: 1; kind: 'metrics:request'; id: number }
  | { veil: 1; kind: 'metrics:response'; id: number; text?: string; error?: string }
  /** primary -> worker: send your metrics as JSON. */
  | { veil: 1; kind: 'metrics:collect'; id: number }
  | { veil: 1; kind: 'metrics:collected'; id: number; metrics: MetricsJson }
  /** worker -> primary: collect every worker's report for me. */
  | { veil: 1; kind: 'report:request'; id: number }
  | { veil: 1; kind: 'report:response'; id: number; reports?: WorkerReport[]; error?: string }
  | { veil: 1; kind: 'report:collect'; id: number }
  | { veil: 1; kind: 'report:collected'; id: number; report: WorkerReport }
  /** worker -> primary -> other workers: reload this source too. */
  | { veil: 1; kind: 'reload:broadcast'; source: ReloadSourceName | 'all' }
  | { veil: 1; kind: 'reload:apply'; source: ReloadSourceName | 'all' }
  /** primary -> worker: stop accepting, drain, exit 0. */
  | { veil: 1; kind: 'shutdown' };

export function isIpcMessage(value: unknown): value is IpcMessage {
  return typeof value === 'object' && value !== null && (value as { veil?: unknown }).veil === 1 && typeof (value as { kind?: unknown }).kind === 'string';
}

/** How long a cluster-wide collection may take before it fails. */
export const IPC_TIMEOUT_MS = 5000;

/** Pending requests by id, each settled once (answer or timeout). */
export class PendingRequests<T> {
  #next = 1;
  readonly #pending = new Map<number, { resolve: (value: T) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();

  open(timeoutMs: number): { id: number; promise: Promise<T> } {
    const id = this.#next;
    this.#next += 1;
    const promise = new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error('cluster request timed out'));
      }, timeoutMs);
      timer.unref();
      this.#pending.set(id, { resolve, reject, timer });
    });
    return { id, promise };
  }

  resolve(id: number, value: T): void {
    const entry = this.#pending.get(id);
    if (entry === undefined) return;
    this.#pending.delete(id);
    clearTimeout(entry.timer);
    entry.resolve(value);
  }

  reject(id: number, error: Error): void {
    const entry = this.#pending.get(id);
    if (entry === undefined) return;
    this.#pending.delete(id);
    clearTimeout(entry.timer);
    entry.reject(error);
  }
}
