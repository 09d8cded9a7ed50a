// The operator's Prometheus metrics (prom-client, its own registry): reconciles by controller
// and result, reconcile latency, work-queue depth, leadership, informer list/watch counts and
// relists on 410, and each tenant's rotation phase. Labels carry resource names, never values.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Informer } from './kube/informer.js';
import type { WorkQueue } from './kube/workqueue.js';
import { ROTATION_PHASES } from '@veil/common';

export class OperatorMetrics {
  readonly registry = new Registry();
  readonly reconciles: Counter<'controller' | 'result'>;
  readonly reconcileSeconds: Histogram<'controller'>;
  readonly leader: Gauge;
  readonly rotationPhase: Gauge<'tenant' | 'phase'>;
  #queues = new Map<string, WorkQueue>();
  #informers: Informer[] = [];

  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics === true) collectDefaultMetrics({ register: this.registry, prefix: 'veil_operator_' });
    this.reconciles = new Counter({ name: 'veil_operator_reconcile_total', help: 'Reconciles by controller and result', labelNames: ['controller', 'result'], registers: [this.registry] });
    this.reconcileSeconds = new Histogram({
      name: 'veil_operator_reconcile_duration_seconds',
      help: 'Reconcile latency',
      labelNames: ['controller'],
      buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 15],
      registers: [this.registry],
    });
    this.leader = new Gauge({ name: 'veil_operator_leader', help: '1 while this instance holds the leader lease', registers: [this.registry] });
    this.rotationPhase = new Gauge({ name: 'veil_operator_rotation_phase', help: 'Current session-key rotation phase per tenant (1 = in that phase)', labelNames: ['tenant', 'phase'], registers: [this.registry] });
    const queues = this.#queues;
    new Gauge({
      name: 'veil_operator_workqueue_depth',
      help: 'Keys waiting in each controller queue',
      labelNames: ['controller'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [name, queue] of queues) this.set({ controller: name }, queue.length);
      },
    });
    const informers = (): Informer[] => this.#informers;
    for (const [metric, field, help] of [
      ['veil_operator_informer_lists_total', 'lists', 'Full lists by kind (start, periodic resync, recovery)'],
      ['veil_operator_informer_watches_total', 'watches', 'Watch requests by kind'],
      ['veil_operator_informer_relists_on_gone_total', 'relistsOnGone', 'Relists forced by 410 Gone'],
    ] as const) {
      new Gauge({
        name: metric,
        help,
        labelNames: ['kind'],
        registers: [this.registry],
        collect() {
          this.reset();
          for (const informer of informers()) this.inc({ kind: informer.kind }, informer.stats[field]);
        },
      });
    }
  }

  observeReconcile(controller: string, result: 'success' | 'conflict' | 'error', seconds: number): void {
    this.reconciles.inc({ controller, result });
    this.reconcileSeconds.observe({ controller }, seconds);
  }

  setPhase(tenant: string, phase: string): void {
    for (const candidate of ROTATION_PHASES) this.rotationPhase.set({ tenant, phase: candidate }, candidate === phase ? 1 : 0);
  }

  /** Track the queues and informers of the current leadership term. */
  track(queues: ReadonlyMap<string, WorkQueue>, informers: readonly Informer[]): void {
    this.#queues = new Map(queues);
    this.#informers = [...informers];
  }
}
