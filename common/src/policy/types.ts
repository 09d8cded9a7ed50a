// TypeScript shape of one policy file (decisions.md section 7). These types mirror
// policies/schema.json exactly; parsePolicy only ever returns values that passed that schema
// and the semantic checks, deep-frozen, so every field here is readonly.
import type { PolicyAction, ProtectionLevel, RestoreMode } from '../vocabulary.js';

/** Conditions of one rule; every key given must match, an empty match matches everything. */
export interface PolicyMatch {
  /** A built-in type (`email`) or a custom type, written `ticket_id` or `custom:ticket_id`. */
  readonly entity_type?: string;
  readonly entity_types?: readonly string[];
  /** Request context destination (interface.md 2.10). */
  readonly destination?: string;
  /** The entity type's catalog protection level. */
  readonly protection_level?: ProtectionLevel;
  readonly caller_role?: string;
  readonly caller_purpose?: string;
  /**
   * Unanchored regular expression over the detected value (RE2 subset of JavaScript syntax,
   * optional leading `(?i)`). Evaluated without a value, the rule only counts as "might match".
   */
  readonly value_pattern?: string;
}

export interface PolicyRule {
  readonly name: string;
  readonly match: PolicyMatch;
  readonly action: PolicyAction;
  /** Overrides the catalog protection level of matched entities. */
  readonly protection_level?: ProtectionLevel;
  /** Restore floor for tokenized values; default `full`. */
  readonly restore_mode?: RestoreMode;
  /** Name of an entry of `restore_strategies`, used when the resolved mode is `partial`. */
  readonly restore_strategy?: string;
  /** Free text returned as the decision's `reason`. */
  readonly reason?: string;
}

export interface RevealLastNStrategy {
  readonly kind: 'reveal_last_n';
  readonly n: number;
  readonly mask_char?: string;
}

export interface RevealFirstNStrategy {
  readonly kind: 'reveal_first_n';
  readonly n: number;
  readonly mask_char?: string;
}

export interface RevealRangeStrategy {
  readonly kind: 'reveal_range';
  /** 0-based, in Unicode code points. */
  readonly start: number;
  readonly len: number;
  readonly mask_char?: string;
}

export interface MaskStrategy {
  readonly kind: 'mask';
}

export interface BucketRange {
  /** Inclusive lower bound; omitted only on the first range. */
  readonly min?: number;
  /** Exclusive upper bound; omitted only on the last range. */
  readonly max?: number;
  readonly label: string;
}

export interface BucketStrategy {
  readonly kind: 'bucket';
  readonly ranges: readonly BucketRange[];
}

/** A partial-restore strategy (interface.md 2.7). */
export type RestoreStrategy =
  | RevealLastNStrategy
  | RevealFirstNStrategy
  | RevealRangeStrategy
  | MaskStrategy
  | BucketStrategy;

export type RestoreStrategyKind = RestoreStrategy['kind'];

export interface ChannelRule {
  readonly max_restore_mode: RestoreMode;
  /**
   * Ceiling for tokens inside a URL, a link or image target, or an HTML tag on this channel
   * (default `abstract`, modes.ts DEFAULT_URL_RESTORE_MODE). Set it to restore more there, e.g.
   * for a channel whose output is never rendered; it never exceeds max_restore_mode.
   */
  readonly url_restore_mode?: RestoreMode;
}

/** Caller-gated restore mode, re-resolved against the rehydrate caller (interface.md 4.3). */
export interface RestoreModeOverride {
  readonly caller_role?: string;
  readonly caller_purpose?: string;
  readonly entity_types?: readonly string[];
  readonly restore_mode: RestoreMode;
}

/** A policy-defined detection pattern (interface.md 2.12); `entity_type` is the bare name. */
export interface PolicyCustomPattern {
  readonly entity_type: string;
  readonly pattern: string;
  readonly confidence?: number;
  readonly context_words?: readonly string[];
}

export interface MetadataPolicy {
  readonly expose_gender?: boolean;
  readonly expose_formality?: boolean;
  readonly expose_language?: boolean;
  readonly expose_role?: boolean;
  readonly expose_belongs_to?: boolean;
  readonly roles?: readonly string[];
}

export interface DetectionPolicy {
  /** NER labels requested from the sidecar for this policy. */
  readonly ner_labels?: readonly string[];
  /** Entity types whose detection must not degrade: without NER the request fails closed. */
  readonly required_for?: readonly string[];
  /**
   * Classes of values that identify no one and stay unprotected (docs/detection.md). Absent
   * (or a type left out): special-purpose and private addresses, public URLs. `[]` protects all.
   */
  readonly non_identifying?: {
    readonly ip_address?: readonly ('special_purpose' | 'private')[];
    readonly url?: readonly 'public'[];
  };
}

/** One policy file. */
export interface Policy {
  readonly name: string;
  readonly version: string;
  readonly description?: string;
  readonly rules: readonly PolicyRule[];
  readonly restore_strategies?: Readonly<Record<string, RestoreStrategy>>;
  readonly channel_rules?: Readonly<Record<string, ChannelRule>>;
  readonly override_restore_mode?: readonly RestoreModeOverride[];
  readonly custom_patterns?: readonly PolicyCustomPattern[];
  readonly metadata_policy?: MetadataPolicy;
  readonly detection?: DetectionPolicy;
}

/** One problem found in a policy file; `field` is a path such as `rules[2].restore_mode`. */
export interface PolicyIssue {
  readonly file: string;
  /** 1-based line in the file, when the problem has a position. */
  readonly line?: number;
  readonly field: string;
  readonly message: string;
}
