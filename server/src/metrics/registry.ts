// The Prometheus metric catalog (interface.md 6.4, `veil_` prefix) on one prom-client Registry
// per app (never the global one, so several apps in one test process do not share counters).
//
// Labelled counters carry only an entity `type` label and admit at most TYPE_LABEL_LIMIT
// distinct values, `other` included: the first 63 types seen keep their own series, every later
// type is counted under `type="other"`. Entity types are a bounded catalog plus custom names a
// caller may choose, so the cap is what keeps a caller from growing the series count. The same
// cap is applied again when worker processes' metrics are merged (cluster.ts).
import { Counter, Histogram, Registry, type MetricObjectWithValues, type MetricValue } from 'prom-client';

/** Distinct `type` values per labelled counter, `other` included (interface.md section 8). */
export const TYPE_LABEL_LIMIT = 64;
export const OTHER_TYPE = 'other';
/** Names of the two labelled counters. */
export const TYPE_LABELLED = ['veil_entities_detected_total', 'veil_entities_blocked_total'] as const;
/** Duration buckets, 1 ms to 10 s. */
export const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** First-come admission of label values, capped; later values map to `other`. */
export class LabelCap {
  readonly #admitted = new Set<string>();
  readonly #limit: number;

  constructor(limit = TYPE_LABEL_LIMIT) {
    // One slot is reserved for `other` itself.
    this.#limit = limit - 1;
  }

  label(value: string): string {
    if (value === OTHER_TYPE || this.#admitted.has(value)) return value;
    if (this.#admitted.size < this.#limit) {
      this.#admitted.add(value);
      return value;
    }
    return OTHER_TYPE;
  }
}

/**
 * Fold series of the labelled counters whose `type` the cap does not admit into `type="other"`.
 * Used on merged worker metrics: each worker caps on its own, so together they could exceed
 * the limit; the merging process admits types in a stable first-come order of its own.
 */
export function capTypeLabels(metrics: MetricObjectWithValues<MetricValue<string>>[], caps: ReadonlyMap<string, LabelCap>): void {
  for (const metric of metrics) {
    const cap = caps.get(metric.name);
    if (cap === undefined) continue;
    const folded = new Map<string, MetricValue<string>>();
    for (const value of metric.values) {
      const raw = value.labels.type;
      const type = cap.label(typeof raw === 'string' ? raw : OTHER_TYPE);
      const existing = folded.get(type);
      if (existing === undefined) folded.set(type, { ...value, labels: { ...value.labels, type } });
      else folded.set(type, { ...existing, value: existing.value + value.value });
    }
    metric.values = [...folded.values()];
  }
}

export class VeilMetrics {
  readonly registry = new Registry();
  readonly transforms: Counter;
  readonly rehydrates: Counter;
  readonly detections: Counter;
  readonly errors: Counter;
  readonly errorsByCode: Counter<'code'>;
  readonly promptSecurityTriggers: Counter;
  readonly outputGuardTriggers: Counter;
  readonly sessionsCreated: Counter;
  readonly rateLimitRejections: Counter;
  readonly ragOperations: Counter;
  readonly nerDegraded: Counter;
  readonly entitiesDetected: Counter<'type'>;
  readonly entitiesBlocked: Counter<'type'>;
  readonly transformDuration: Histogram;
  readonly rehydrateDuration: Histogram;
  readonly reloads: Counter<'source' | 'result'>;
  readonly #caps = new Map<Counter<'type'>, LabelCap>();
  /** Per-type amounts counted since the counter was last read (typeCounter). */
  readonly #pending = new Map<Counter<'type'>, Map<string, number>>();

  constructor() {
    const registers = [this.registry];
    const counter = (name: string, help: string): Counter => new Counter({ name, help, registers });
    this.transforms = counter('veil_transforms_total', 'Transforms performed (batch items counted one by one).');
    this.rehydrates = counter('veil_rehydrates_total', 'Rehydrates performed.');
    this.detections = counter('veil_detections_total', 'Detect operations performed (batch items counted one by one).');
    this.errors = counter('veil_errors_total', 'Requests answered with an error envelope.');
    this.errorsByCode = new Counter({ name: 'veil_errors_by_code_total', help: 'Error responses by error code.', labelNames: ['code'], registers });
    this.promptSecurityTriggers = counter('veil_prompt_security_triggers_total', 'Requests whose input triggered prompt security.');
    this.outputGuardTriggers = counter('veil_output_guard_triggers_total', 'Rehydrates whose model output triggered the output guard.');
    this.sessionsCreated = counter('veil_sessions_created_total', 'New sessions started by transforms.');
    this.rateLimitRejections = counter('veil_rate_limit_rejections_total', 'Requests rejected by the rate limiter.');
    this.ragOperations = counter('veil_rag_operations_total', 'Successful RAG operations.');
    this.nerDegraded = counter('veil_ner_degraded_total', 'Requests where the NER detector was degraded or unavailable.');
    // Counted per request into a plain Map and added to the counter when it is read (collect runs
    // on every scrape, JSON export and get()): prom-client hashes a label set on every inc, which
    // a transform would pay once per entity type it found, on every request.
    const typeCounter = (name: string, help: string): Counter<'type'> => {
      const pending = new Map<string, number>();
      const created: Counter<'type'> = new Counter({
        name,
        help,
        labelNames: ['type'],
        registers,
        collect() {
          for (const [type, amount] of pending) created.inc({ type }, amount);
          pending.clear();
        },
      });
      this.#pending.set(created, pending);
      this.#caps.set(created, new LabelCap());
      return created;
    };
    this.entitiesDetected = typeCounter('veil_entities_detected_total', 'Entities detected, by type.');
    this.entitiesBlocked = typeCounter('veil_entities_blocked_total', 'Entities redacted irreversibly, by type.');
    this.transformDuration = new Histogram({
      name: 'veil_transform_duration_seconds',
      help: 'Transform request duration.',
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.rehydrateDuration = new Histogram({
      name: 'veil_rehydrate_duration_seconds',
      help: 'Rehydrate request duration.',
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.reloads = new Counter({
      name: 'veil_reloads_total',
      help: 'Reload attempts of policies, key ring and API keys, by source and result.',
      labelNames: ['source', 'result'],
      registers,
    });
  }

  /** Count `amount` entities of `type` on a labelled counter, under the cardinality cap. */
  countType(counter: Counter<'type'>, type: string, amount: number): void {
    // A non-finite amount would make the counter's inc throw when it is read (on the scrape).
    if (!(amount > 0) || !Number.isFinite(amount)) return;
    const cap = this.#caps.get(counter);
    const label = cap === undefined ? OTHER_TYPE : cap.label(type);
    const pending = this.#pending.get(counter);
    if (pending === undefined) counter.inc({ type: label }, amount);
    else pending.set(label, (pending.get(label) ?? 0) + amount);
  }

  /** This process's metrics in the text exposition format. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
