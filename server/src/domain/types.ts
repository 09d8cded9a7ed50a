// Shared domain types: the contract between detection, policy, tokenization, sealing and restore.
// Pure types only: no framework, no I/O. Every module in domain/ speaks these shapes.

export {
  PROTECTION_LEVELS,
  RESTORE_MODES,
  POLICY_ACTIONS,
  BUILTIN_CHANNELS,
  LABEL_PATTERN,
} from '@veil/common';
export type { ProtectionLevel, RestoreMode, PolicyAction, BuiltinChannel } from '@veil/common';
import type { RestoreMode } from '@veil/common';

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
  /**
   * How the value is written when not as read: `reversed`, backwards (detect/reversed-words.ts).
   * Tokenization keys the token by the forward value and records it in the entry's wholes, so
   * revoking the forward value erases this spelling; restore gives back the text as written.
   */
  readonly reading?: 'reversed';
  // Optional entity metadata (interface.md 2.3), filled by detect/metadata.ts inferMetadata() and
  // exposed only when the policy's metadata_policy allows it. Declared labels, never raw values.
  /** `female` or `male`, from a salutation or a gendered greeting before a person. */
  readonly gender?: 'female' | 'male';
  /** `formal` (Mr, Frau, Dear, Sehr geehrte) or `informal` (Hi, Hallo, Salut) address. */
  readonly formality?: 'formal' | 'informal';
  /** ISO 639-1 language of the text the entity was found in (the request hint). */
  readonly language?: string;
  /** A policy-declared role label (metadata_policy.roles, e.g. `patient`) found next to a person. */
  readonly role?: string;
  /** Index (in the same detections array) of the person this email, phone or id belongs to. */
  readonly belongs_to?: number;
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
  /**
   * The request context destination the value was first tokenized for, when it was not the
   * default `external_llm`. Rehydrate re-decides caller-dependent policy rules for the
   * rehydrating caller with it (domain/policy/engine.ts resolveRestore).
   */
  readonly destination?: string;
  /**
   * RAG context sessions only: the classification label (rag.classification_levels) of the
   * least restricted material the value came from. /v1/rag/answer restores it only for a caller
   * cleared to that level; context entries without one count as the most restrictive level.
   */
  readonly classification?: string;
  /**
   * A part of a value split across JSON members (structured/joins.ts): the whole values (same
   * type) it is a part of, so revoking a whole erases its parts (services/revocation.ts
   * entryDigests) in every session that holds them, also those made before the revocation.
   */
  readonly wholes?: readonly string[];
}
