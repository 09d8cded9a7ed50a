// The worker side of the cluster channel. A worker answers the primary's collection requests
// (its metrics as JSON, its diagnostics report), applies reloads other workers broadcast, and
// asks the primary for cluster-wide views: /metrics must count every worker's requests, not
// only those of the worker that happened to accept the scrape.
import type { VeilMetrics } from '../metrics/registry.js';
import type { ReloadSourceName } from '../reload/manager.js';
import { IPC_TIMEOUT_MS, isIpcMessage, PendingRequests, type IpcMessage, type WorkerReport } from './ipc.js';

/** What the rest of the server sees of the cluster (absent in single-process mode). */
export interface ClusterLink {
  readonly workerId: number;
  /** Every worker's metrics merged, in the text exposition format. */
  metricsText(): Promise<string>;
  /** Every live worker's diagnostics report. */
  reports(): Promise<WorkerReport[]>;
  /** Ask the other workers to reload `source` as this one just did. */
  broadcastReload(source: ReloadSourceName | 'all'): void;
}

type Send = (message: IpcMessage) => void;

export class WorkerLink implements ClusterLink {
  readonly workerId: number;
  readonly #send: Send;
  readonly #metrics: VeilMetrics;
  readonly #metricsRequests = new PendingRequests<string>();
  readonly #reportRequests = new PendingRequests<WorkerReport[]>();
  #reporter: () => WorkerReport;
  #onReload: (source: ReloadSourceName | 'all') => void = () => undefined;
  #onShutdown: (() => void) | undefined;
  /** A shutdown that arrived before anyone could handle it (the worker was still starting). */
  #shutdownRequested = false;

  constructor(options: { workerId: number; metrics: VeilMetrics; send: Send }) {
    this.workerId = options.workerId;
    this.#send = options.send;
    this.#metrics = options.metrics;
    this.#reporter = () => ({ worker_id: this.workerId, pid: process.pid });
  }

  setReporter(reporter: () => WorkerReport): void {
    this.#reporter = reporter;
  }

  setReloadHandler(handler: (source: ReloadSourceName | 'all') => void): void {
    this.#onReload = handler;
  }

  setShutdownHandler(handler: () => void): void {
    this.#onShutdown = handler;
    if (this.#shutdownRequested) handler();
  }

  announceListening(url: string): void {
    this.#send({ veil: 1, kind: 'listening', url });
  }

  metricsText(): Promise<string> {
    const { id, promise } = this.#metricsRequests.open(IPC_TIMEOUT_MS);
    this.#send({ veil: 1, kind: 'metrics:request', id });
    return promise;
  }

  reports(): Promise<WorkerReport[]> {
    const { id, promise } = this.#reportRequests.open(IPC_TIMEOUT_MS);
    this.#send({ veil: 1, kind: 'report:request', id });
    return promise;
  }

  broadcastReload(source: ReloadSourceName | 'all'): void {
    this.#send({ veil: 1, kind: 'reload:broadcast', source });
  }

  /** Handle one message from the primary. */
  handle(message: unknown): void {
    if (!isIpcMessage(message)) return;
    switch (message.kind) {
      case 'metrics:collect':
        void this.#metrics.registry.getMetricsAsJSON().then(
          (metrics) => this.#send({ veil: 1, kind: 'metrics:collected', id: message.id, metrics }),
          () => this.#send({ veil: 1, kind: 'metrics:collected', id: message.id, metrics: [] }),
        );
        return;
      case 'report:collect':
        this.#send({ veil: 1, kind: 'report:collected', id: message.id, report: this.#reporter() });
        return;
      case 'metrics:response':
        if (message.text !== undefined) this.#metricsRequests.resolve(message.id, message.text);
        else this.#metricsRequests.reject(message.id, new Error(message.error ?? 'metrics collection failed'));
        return;
      case 'report:response':
        if (message.reports !== undefined) this.#reportRequests.resolve(message.id, message.reports);
        else this.#reportRequests.reject(message.id, new Error(message.error ?? 'report collection failed'));
        return;
      case 'reload:apply':
        this.#onReload(message.source);
        return;
      case 'shutdown':
        this.#shutdownRequested = true;
        this.#onShutdown?.();
        return;
      default:
        return;
    }
  }
}
