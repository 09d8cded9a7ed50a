// Text tokenization: apply policy decisions to detections and build the safe text plus the
// session's new token entries. Pure: detection, policy, allocation and clocks are passed in.
import { VeilError } from '@veil/common';
import { DEFAULT_DESTINATION, type CompiledPolicy, type Decision } from './policy/index.js';
import { reverseText } from './detect/reversed-words.js';
import { renderToken, type ValueAllocator } from './token/index.js';
import type { Detection, RequestContext, RestoreMode, TokenEntry } from './types.js';

export const REDACTED = '[REDACTED]';

/** One entity as reported by transform (UTF-16 offsets; the HTTP edge converts to code points). */
export interface TokenizedEntity {
  readonly token: string;
  readonly type: string;
  readonly protection_level: string;
  readonly action_applied: 'tokenize' | 'redact';
  readonly confidence: number;
  readonly detector: string;
  readonly start: number;
  readonly end: number;
}

export interface TokenizeResult {
  readonly safeText: string;
  readonly entities: TokenizedEntity[];
  /** Entries created by this call (values first seen in this session). */
  readonly newEntries: TokenEntry[];
  readonly blocked: number;
  readonly transformed: number;
}

export interface TokenizeInput {
  readonly text: string;
  /** Sorted, non-overlapping detections over `text`. */
  readonly detections: readonly Detection[];
  readonly policy: CompiledPolicy;
  readonly context: RequestContext;
  /** Random scheme (TokenAllocator) or corpus scheme (CorpusAllocator). */
  readonly allocator: ValueAllocator;
  /** Transform request protection_overrides: entity type -> restore mode (tighten only). */
  readonly protectionOverrides?: Readonly<Record<string, RestoreMode>> | undefined;
}

/** What one distinct (type, value) of a call was given: its decision, and its token once allocated. */
interface ValueOutcome {
  readonly decision: Decision;
  token: string | undefined;
}

/**
 * Decide every detection first so that a deny anywhere refuses the whole request before any
 * token is allocated; then rewrite the text in one left-to-right pass.
 *
 * A value repeated in the text (the same type and the same characters) is decided, normalized,
 * allocated and rendered once per call: the policy's decision depends on the type, the request
 * context and the value only, and an allocator gives the same id and cap for the same (type,
 * value) (ValueAllocator's contract), so the later occurrences take the first one's outcome
 * (a 100 KB text mentioning seven values 398 times made 398 normalizations and 398 token
 * renderings; BENCHMARKS.md "Session 11 (wave10/hot)").
 */
export function tokenizeText(input: TokenizeInput): TokenizeResult {
  const { text, detections, policy, context, allocator } = input;
  // By type, then by value: the value string is the key itself (its hash is computed once and
  // kept by the engine), so a text of distinct values pays a lookup, not a new key string each.
  const byType = new Map<string, Map<string, ValueOutcome>>();
  const perDetection: ValueOutcome[] = [];
  for (const detection of detections) {
    let outcomes = byType.get(detection.type);
    if (outcomes === undefined) {
      outcomes = new Map();
      byType.set(detection.type, outcomes);
    }
    let outcome = outcomes.get(detection.value);
    if (outcome === undefined) {
      const decision = policy.decide(detection.type, context, detection.value);
      if (decision.action === 'deny') {
        throw new VeilError(
          'VEIL_POLICY_DENIED',
          `request denied by policy rule '${decision.rule_matched}' for entity type '${decision.entity_type}'`,
        );
      }
      // One object shape from the start (the token is filled in by the second pass).
      outcome = { decision, token: undefined };
      outcomes.set(detection.value, outcome);
    }
    perDetection.push(outcome);
  }

  const parts: string[] = [];
  const entities: TokenizedEntity[] = [];
  const newEntries: TokenEntry[] = [];
  let cursor = 0;
  let blocked = 0;
  let transformed = 0;
  for (let index = 0; index < detections.length; index += 1) {
    const detection = detections[index]!;
    const outcome = perDetection[index]!;
    const decision = outcome.decision;
    if (decision.action === 'allow') continue;
    parts.push(text.slice(cursor, detection.start));
    cursor = detection.end;
    if (decision.action === 'redact') {
      parts.push(REDACTED);
      blocked += 1;
      entities.push(entityOf(detection, decision, REDACTED, 'redact'));
      continue;
    }
    let token = outcome.token;
    if (token === undefined) {
      // A value written backwards (detect/reversed-words.ts) is the forward value: one token with
      // it, and revoking it (the entry's wholes) erases this spelling; restore gives back the text as written.
      const forward = detection.reading === 'reversed' ? reverseText(detection.value) : undefined;
      const { id, cap, isNew } = allocator.allocate(detection.type, forward ?? detection.value);
      token = renderToken({ type: detection.type, id, cap });
      outcome.token = token;
      if (isNew) {
        const override = input.protectionOverrides?.[detection.type];
        newEntries.push({
          id,
          type: detection.type,
          cap,
          value: detection.value,
          mode: decision.restore_mode,
          ...(decision.restore_strategy !== undefined ? { strategy: decision.restore_strategy } : {}),
          ...(override !== undefined ? { override } : {}),
          ...(forward !== undefined ? { wholes: [forward] } : {}),
          // Rehydrate re-decides caller-dependent rules for this destination (engine.ts resolveRestore).
          ...(context.destination !== undefined && context.destination !== DEFAULT_DESTINATION ? { destination: context.destination } : {}),
        });
      }
    }
    parts.push(token);
    transformed += 1;
    entities.push(entityOf(detection, decision, token, 'tokenize'));
  }
  parts.push(text.slice(cursor));
  return { safeText: parts.join(''), entities, newEntries, blocked, transformed };
}

function entityOf(
  detection: Detection,
  decision: Decision,
  token: string,
  action: 'tokenize' | 'redact',
): TokenizedEntity {
  return {
    token,
    type: detection.type,
    protection_level: decision.protection_level,
    action_applied: action,
    confidence: detection.confidence,
    detector: detection.detector,
    start: detection.start,
    end: detection.end,
  };
}
