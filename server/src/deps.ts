// What the HTTP layer needs from the outside world, passed explicitly into buildApp (no global
// config getter): configuration, keys, the policy set, the detector, and a clock.
import type { VeilConfig } from './config/index.js';
import type { KeyRing } from './domain/seal/index.js';
import type { CorpusKeys } from './domain/token/index.js';
import type { NerClient } from './clients/ner.js';
import type { Offload } from './services/offload.js';
import type { PolicyRegistry } from './services/policies.js';
import type { IdempotencyStore, ReplayStore, RevocationStore, SessionStore } from './stores/types.js';

/** Holds the active policy registry; a reload swaps `registry` as one immutable snapshot. */
export interface PolicyHolder {
  registry: PolicyRegistry;
}

/** The state stores, by role; `sessions` only with a server-side session backend. */
export interface AppStores {
  readonly replay: ReplayStore;
  readonly revocation: RevocationStore;
  readonly idempotency: IdempotencyStore;
  readonly sessions?: SessionStore | undefined;
  close(): Promise<void>;
}

export interface AppDeps {
  readonly config: VeilConfig;
  readonly keyRing: KeyRing;
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
}

export { NER_DEGRADED_WARNING } from './services/transform.js';

/** Key material for worker threads (same process). */
export function ringMaterial(deps: AppDeps): { currentKid: string; keys: { kid: string; key: Uint8Array }[] } {
  return { currentKid: deps.keyRing.currentKid, keys: deps.keyRing.kids.map((kid) => ({ kid, key: deps.keyRing.get(kid)! })) };
}
