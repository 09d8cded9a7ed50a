// What the HTTP layer needs from the outside world, passed explicitly into buildApp (no global
// config getter): configuration, keys, the policy set, the detector, and a clock.
import type { AuditSink } from './audit/sink.js';
import type { Authenticator } from './auth/types.js';
import type { VeilConfig } from './config/index.js';
import type { CorpusKeys } from './domain/token/index.js';
import type { NerClient } from './clients/ner.js';
import type { FilePool } from './services/files.js';
import type { Offload } from './services/offload.js';
import type { OcrEngine } from './services/ocr.js';
import type { PolicyHolder } from './services/policies.js';
import type { AppStores } from './stores/types.js';
import type { ClusterLink } from './cluster/worker.js';
import type { RequestTracer } from './metrics/observe.js';
import type { VeilMetrics } from './metrics/registry.js';
import type { ReloadManager } from './reload/manager.js';

export interface AppDeps {
  readonly config: VeilConfig;
  // The session key rings are not a field: a blob is sealed and opened under its tenant's ring,
  // so each request's scope reads it from the reloadable rings (compose.ts scopeOf).
  readonly corpusKeys: CorpusKeys;
  readonly policies: PolicyHolder;
  readonly stores: AppStores;
  /** HMAC key for revocation digests. */
  readonly digestSecret: Buffer;
  /** The NER sidecar client when detector.advanced_url is configured. */
  readonly ner?: NerClient | undefined;
  /** Metric hook: the NER detector degraded or fell back (veil_ner_degraded_total). */
  readonly countNerDegraded: () => void;
  /** Inline fast path and the worker-thread pool for large inputs. */
  readonly offload: Offload;
  /** Milliseconds since the epoch; injected so tests control expiry. */
  readonly now: () => number;
  readonly version: string;
  readonly startedAtMs: number;
  /**
   * The audit sink: the durable file sink with audit.backend file (opened by buildDeps); absent
   * means the `log` sink on the app's logger (buildApp creates it).
   */
  readonly audit?: AuditSink | undefined;
  /** The authenticator for auth.mode; built from config when absent (tests inject one). */
  readonly authenticator?: Authenticator | undefined;
  /** The file-parsing pool; compose.ts builds one from file_upload when absent. */
  readonly files?: FilePool | undefined;
  /** The OCR engine; compose.ts builds one from `ocr` when absent (started on first use). */
  readonly ocr?: OcrEngine | undefined;
  /** This process's Prometheus metrics (metrics/registry.ts), fed by metrics/observe.ts. */
  readonly metrics: VeilMetrics;
  /** Span export when otel.traces_endpoint is set (tracing.ts). */
  readonly tracer?: RequestTracer | undefined;
  /** Reloadable sources: policy set, session key ring, API keys (reload/manager.ts). */
  readonly reload: ReloadManager;
  /** The channel to the primary when this process is one of several workers (cluster/). */
  readonly cluster?: ClusterLink | undefined;
}

export type { AppStores } from './stores/types.js';
export type { PolicyHolder } from './services/policies.js';
