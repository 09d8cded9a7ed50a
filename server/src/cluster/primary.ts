// The primary process of `veil serve --workers N` (N > 1): forks N workers that share one
// listening socket (node:cluster), restarts a worker that dies with exponential backoff, merges
// the workers' metrics for /metrics, gathers their diagnostics, relays reload broadcasts, and
// on SIGTERM/SIGINT tells every worker to drain and waits for them (exit 0 when all drained).
//
// A worker is `starting` from its fork until it reports that it listens, then `ready`. Cluster-wide
// collections ask only ready workers (a starting one has served nothing and cannot answer yet),
// and /v1/diagnostics lists a starting worker by its pid and state, so the view never stalls on
// a worker that is still loading or has just died (gather.ts).
//
// The primary serves no HTTP itself and loads no policies; it only validated the configuration
// before forking, so a bad file fails once with exit 1 instead of N crash loops. A worker that
// dies before any worker ever listened is a startup failure: the primary stops and exits 1.
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { AggregatorRegistry, Counter, Registry } from 'prom-client';
import { capTypeLabels, LabelCap, TYPE_LABELLED } from '../metrics/registry.js';
import { Gathers } from './gather.js';
import { IPC_TIMEOUT_MS, isIpcMessage, type IpcMessage, type MetricsJson, type WorkerReport } from './ipc.js';

export interface PrimaryOptions {
  readonly workers: number;
  readonly logger: Logger;
  /** How long workers may drain on shutdown before they are killed. */
  readonly shutdownTimeoutMs: number;
  /** Fields of the single 'veil server listening' line besides the url. */
  readonly listeningFields: Record<string, unknown>;
  /** Backoff before restarting a crashed worker: base and cap. */
  readonly restartBaseMs?: number;
  readonly restartMaxMs?: number;
}

/** Environment variable carrying a worker's slot (not VEIL_*: those are configuration). */
export const WORKER_SLOT_ENV = '__VEIL_WORKER_SLOT';

/** A worker that lived this long before dying resets the backoff. */
const STABLE_WORKER_MS = 60_000;

function send(worker: Worker, message: IpcMessage): void {
  if (worker.isConnected()) worker.send(message);
}

/** Run the primary until every worker has exited; resolves to the process exit code. */
export function runPrimary(options: PrimaryOptions): Promise<number> {
  const { logger } = options;
  const restartBase = options.restartBaseMs ?? 200;
  const restartMax = options.restartMaxMs ?? 30_000;
  const registry = new Registry();
  const restarts = new Counter({ name: 'veil_worker_restarts_total', help: 'Worker processes restarted after an unexpected exit.', registers: [registry] });
  const starts = new Counter({ name: 'veil_worker_starts_total', help: 'Worker processes started.', registers: [registry] });
  const caps = new Map(TYPE_LABELLED.map((name) => [name, new LabelCap()]));
  const metricGathers = new Gathers<MetricsJson>();
  const reportGathers = new Gathers<WorkerReport>();
  /** Workers that reported listening (the rest of `live()` is starting). */
  const ready = new Set<number>();
  let everListening = false;
  let shuttingDown = false;
  let consecutiveFailures = 0;
  const startedAt = new Map<number, number>();

  return new Promise<number>((resolveExit) => {
    let exitCode = 0;
    let killTimer: NodeJS.Timeout | undefined;

    const live = (): Worker[] => Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);

    // Each worker has a stable slot (0..N-1) that its replacement inherits: per-worker files
    // (the audit chain) stay N files however often workers restart.
    const slots = new Map<number, number>();
    const fork = (slot: number): void => {
      const worker = cluster.fork({ [WORKER_SLOT_ENV]: String(slot) });
      slots.set(worker.id, slot);
      startedAt.set(worker.id, Date.now());
      starts.inc();
    };

    const readyWorkers = (): Worker[] => live().filter((worker) => ready.has(worker.id) && worker.isConnected());

    /** Ask every ready worker for its metrics JSON; undefined when a live one does not answer. */
    const collectMetrics = (): Promise<MetricsJson[] | undefined> => {
      const targets = readyWorkers();
      return metricGathers.open(
        targets.map((worker) => worker.id),
        IPC_TIMEOUT_MS,
        (id) => {
          for (const worker of targets) send(worker, { veil: 1, kind: 'metrics:collect', id });
        },
      );
    };

    const clusterMetrics = async (): Promise<string> => {
      const arrays = await collectMetrics();
      if (arrays === undefined) throw new Error('a worker did not answer the metrics collection');
      arrays.push(await registry.getMetricsAsJSON());
      // One stable first-come admission of type labels across all workers.
      for (const array of arrays) capTypeLabels(array, caps);
      return AggregatorRegistry.aggregate(arrays).metrics();
    };

    /** Every ready worker's own report, and each starting worker by its pid. */
    const collectReports = async (): Promise<WorkerReport[]> => {
      const targets = readyWorkers();
      const starting = live()
        .filter((worker) => !ready.has(worker.id))
        .map((worker): WorkerReport => ({ worker_id: worker.id, pid: worker.process.pid ?? 0, state: 'starting' }));
      const reports = await reportGathers.open(
        targets.map((worker) => worker.id),
        IPC_TIMEOUT_MS,
        (id) => {
          for (const worker of targets) send(worker, { veil: 1, kind: 'report:collect', id });
        },
      );
      if (reports === undefined) throw new Error('a worker did not answer the report collection');
      return [...reports.map((report): WorkerReport => ({ ...report, state: 'ready' })), ...starting].sort((a, b) => a.worker_id - b.worker_id);
    };

    const onMessage = (worker: Worker, message: unknown): void => {
      if (!isIpcMessage(message)) return;
      switch (message.kind) {
        case 'listening':
          ready.add(worker.id);
          if (!everListening) {
            everListening = true;
            // The one line tooling waits for (e2e/support/server.ts): logged once, here.
            logger.info({ ...options.listeningFields, url: message.url, workers: options.workers }, 'veil server listening');
          }
          return;
        case 'metrics:request':
          clusterMetrics().then(
            (text) => send(worker, { veil: 1, kind: 'metrics:response', id: message.id, text }),
            (error: unknown) => send(worker, { veil: 1, kind: 'metrics:response', id: message.id, error: error instanceof Error ? error.message : 'failed' }),
          );
          return;
        case 'metrics:collected':
          metricGathers.answer(message.id, worker.id, message.metrics);
          return;
        case 'report:request':
          collectReports().then(
            (reports) => send(worker, { veil: 1, kind: 'report:response', id: message.id, reports }),
            (error: unknown) => send(worker, { veil: 1, kind: 'report:response', id: message.id, error: error instanceof Error ? error.message : 'failed' }),
          );
          return;
        case 'report:collected':
          reportGathers.answer(message.id, worker.id, message.report);
          return;
        case 'reload:broadcast':
          for (const other of live()) if (other !== worker) send(other, { veil: 1, kind: 'reload:apply', source: message.source });
          return;
        default:
          return;
      }
    };

    const finish = (): void => {
      if (live().length > 0) return;
      if (killTimer !== undefined) clearTimeout(killTimer);
      process.off('SIGTERM', onTerm);
      process.off('SIGINT', onInt);
      process.off('SIGHUP', onHup);
      cluster.off('message', onMessage);
      cluster.off('exit', onExit);
      resolveExit(exitCode);
    };

    const shutdown = (signal: string, code: number): void => {
      if (shuttingDown) return;
      shuttingDown = true;
      exitCode = code;
      logger.info({ signal, workers: live().length }, 'shutting down');
      for (const worker of live()) send(worker, { veil: 1, kind: 'shutdown' });
      // Workers drain for at most shutdown_timeout_seconds; then they are stopped hard.
      killTimer = setTimeout(() => {
        for (const worker of live()) {
          logger.warn({ worker_id: worker.id }, 'worker did not drain in time; killing it');
          worker.process.kill('SIGKILL');
        }
        exitCode = 1;
      }, options.shutdownTimeoutMs + 5000);
      killTimer.unref();
      finish();
    };

    const onExit = (worker: Worker, code: number | null, signal: string | null): void => {
      const lived = Date.now() - (startedAt.get(worker.id) ?? Date.now());
      const slot = slots.get(worker.id) ?? 0;
      startedAt.delete(worker.id);
      slots.delete(worker.id);
      ready.delete(worker.id);
      metricGathers.gone(worker.id);
      reportGathers.gone(worker.id);
      if (shuttingDown) {
        if (code !== 0 && code !== null) exitCode = 1;
        finish();
        return;
      }
      if (!everListening) {
        logger.error({ worker_id: worker.id, code, signal }, 'worker failed during startup; stopping');
        shutdown('startup-failure', 1);
        return;
      }
      consecutiveFailures = lived >= STABLE_WORKER_MS ? 1 : consecutiveFailures + 1;
      const delay = Math.min(restartMax, restartBase * 2 ** (consecutiveFailures - 1));
      logger.error({ worker_id: worker.id, code, signal, restart_in_ms: delay }, 'worker exited unexpectedly; restarting');
      restarts.inc();
      // Not unref'd: with every worker down, this timer is what keeps the primary alive.
      setTimeout(() => {
        if (!shuttingDown) fork(slot);
      }, delay);
    };

    const onTerm = (): void => shutdown('SIGTERM', 0);
    const onInt = (): void => shutdown('SIGINT', 0);
    // SIGHUP: re-read every reloadable source (policies, key ring, API keys) in every worker.
    const onHup = (): void => {
      logger.info({ signal: 'SIGHUP' }, 'reloading every source');
      for (const worker of live()) send(worker, { veil: 1, kind: 'reload:apply', source: 'all' });
    };

    cluster.on('message', onMessage);
    cluster.on('exit', onExit);
    process.on('SIGTERM', onTerm);
    process.on('SIGINT', onInt);
    process.on('SIGHUP', onHup);
    for (let slot = 0; slot < options.workers; slot += 1) fork(slot);
  });
}
