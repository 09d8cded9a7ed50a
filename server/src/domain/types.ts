// Shared domain types: the contract between detection, policy, tokenization, sealing and restore.
// Pure types only: no framework, no I/O. Every module in domain/ speaks these shapes.

/** Protection levels, least to most sensitive. */
export const PROTECTION_LEVELS = ['low', 'medium', 'high', 'critical'] as const;
export type ProtectionLevel = (typeof PROTECTION_LEVELS)[number];

/** Restore modes (interface.md 2.8). */
export const RESTORE_MODES = ['full', 'partial', 'masked', 'formatted', 'abstract', 'none'] as const;
export type RestoreMode = (typeof RESTORE_MODES)[number];

/** Policy actions (decisions.md section 7). */
export const POLICY_ACTIONS = ['tokenize', 'redact', 'allow', 'deny'] as const;
export type PolicyAction = (typeof POLICY_ACTIONS)[number];

/** Built-in output channels (interface.md 2.9). */
export const BUILTIN_CHANNELS = [
  'user_output',
  'internal_summary',
  'customer_email',
  'tool_payload',
  'export',
  'log_safe',
] as const;
export type BuiltinChannel = (typeof BUILTIN_CHANNELS)[number];

/** Name of a detector that produced a match. */
export type DetectorName = 'builtin_regex' | 'python_ner' | 'custom_pattern';

/**
 * One detected value. Offsets are UTF-16 code-unit indices into the scanned JS string
 * (what RegExp and String#slice use); conversion to code points happens once at the HTTP edge
 * (see domain/text/codepoints.ts), so the hot path never converts.
 */
export interface Detection {
  /** Entity type: a built-in type name (`email`) or `custom:<name>` for caller/policy patterns. */
  readonly type: string;
  readonly start: number;
  readonly end: number;
  /** The matched text, exactly `text.slice(start, end)`. */
  readonly value: string;
  /** 0.0 to 1.0. */
  readonly confidence: number;
  readonly detector: DetectorName;
}

/** A caller- or policy-supplied pattern (interface.md 2.12). */
export interface CustomPattern {
  /** Bare name, e.g. `ticket_id`; rendered as `custom:ticket_id`. */
  readonly entity_type: string;
  readonly pattern: string;
  readonly confidence?: number;
  readonly context_words?: readonly string[];
}

/** Request context (interface.md 2.10). */
export interface RequestContext {
  readonly destination?: string;
  readonly provider?: string;
  readonly caller_role?: string;
  readonly caller_purpose?: string;
}

/** A parsed token `{{type:id:cap}}`. */
export interface Token {
  readonly type: string;
  readonly id: string;
  readonly cap: string;
}

/**
 * One entry of a session's token map: everything rehydrate needs to restore one value.
 * Stored inside the sealed session_state; never logged.
 */
export interface TokenEntry {
  readonly id: string;
  readonly type: string;
  readonly cap: string;
  readonly value: string;
  /** Restore mode resolved from the policy rule at transform time (the policy floor). */
  readonly mode: RestoreMode;
  /** Name of the policy restore strategy for partial mode, if the rule named one. */
  readonly strategy?: string;
  /** Tightening from the transform request's protection_overrides, if any. */
  readonly override?: RestoreMode;
}
