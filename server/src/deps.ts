// What the HTTP layer needs from the outside world, passed explicitly into buildApp (no global
// config getter): configuration, keys, the policy set, the detector, and a clock.
import type { VeilConfig } from './config/index.js';
import type { KeyRing } from './domain/seal/index.js';
import type { CorpusKeys } from './domain/token/index.js';
import type { DetectorService } from './services/detector.js';
import type { PolicyRegistry } from './services/policies.js';

/** Holds the active policy registry; a reload swaps `registry` as one immutable snapshot. */
export interface PolicyHolder {
  registry: PolicyRegistry;
}

export interface AppDeps {
  readonly config: VeilConfig;
  readonly keyRing: KeyRing;
  readonly corpusKeys: CorpusKeys;
  readonly policies: PolicyHolder;
  readonly detector: DetectorService;
  /** Milliseconds since the epoch; injected so tests control expiry. */
  readonly now: () => number;
  readonly version: string;
  readonly startedAtMs: number;
}

export const NER_DEGRADED_WARNING =
  'degraded detection coverage: the NER detector is not active, so person, organization and location names may pass through undetected';
