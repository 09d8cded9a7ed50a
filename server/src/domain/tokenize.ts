// Text tokenization: apply policy decisions to detections and build the safe text plus the
// session's new token entries. Pure: detection, policy, allocation and clocks are passed in.
import { VeilError } from '@veil/common';
import { DEFAULT_DESTINATION, type CompiledPolicy, type Decision } from './policy/index.js';
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

/**
 * Decide every detection first so that a deny anywhere refuses the whole request before any
 * token is allocated; then rewrite the text in one left-to-right pass.
 */
export function tokenizeText(input: TokenizeInput): TokenizeResult {
  const { text, detections, policy, context, allocator } = input;
  const decisions: Decision[] = detections.map((detection) => policy.decide(detection.type, context, detection.value));
  const denied = decisions.find((decision) => decision.action === 'deny');
  if (denied !== undefined) {
    throw new VeilError(
      'VEIL_POLICY_DENIED',
      `request denied by policy rule '${denied.rule_matched}' for entity type '${denied.entity_type}'`,
    );
  }

  const parts: string[] = [];
  const entities: TokenizedEntity[] = [];
  const newEntries: TokenEntry[] = [];
  let cursor = 0;
  let blocked = 0;
  let transformed = 0;
  for (let index = 0; index < detections.length; index += 1) {
    const detection = detections[index]!;
    const decision = decisions[index]!;
    if (decision.action === 'allow') continue;
    parts.push(text.slice(cursor, detection.start));
    cursor = detection.end;
    if (decision.action === 'redact') {
      parts.push(REDACTED);
      blocked += 1;
      entities.push(entityOf(detection, decision, REDACTED, 'redact'));
      continue;
    }
    const { id, cap, isNew } = allocator.allocate(detection.type, detection.value);
    const token = renderToken({ type: detection.type, id, cap });
    parts.push(token);
    transformed += 1;
    entities.push(entityOf(detection, decision, token, 'tokenize'));
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
        // Rehydrate re-decides caller-dependent rules for this destination (engine.ts resolveRestore).
        ...(context.destination !== undefined && context.destination !== DEFAULT_DESTINATION ? { destination: context.destination } : {}),
      });
    }
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
