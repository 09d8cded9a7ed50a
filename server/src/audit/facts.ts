// Request-scoped audit facts (interface.md 6.1). Route handlers and hooks say what happened
// (policy, entity types and counts, session, guards) with `auditFacts(request, {...})`; one
// central hook (plugins/audit.ts) turns the facts into the request's audit event when the
// response is sent, so no route writes audit records itself. Facts never carry values: the
// session id and trace id are given raw here and fingerprinted when the event is built.
import { isVeilError } from '@veil/common';
import type { FastifyRequest } from 'fastify';
import { requestSlot } from '../plugins/request-slot.js';

/** What a route knows about its operation. Every field is optional; set what applies. */
export interface AuditFacts {
  /** Overrides the event type derived from the route (e.g. 'policy_reloaded'). */
  readonly event_type?: string;
  /** Name of the policy applied. */
  readonly policy?: string;
  /** Raw session id: recorded only as a 16-hex SHA-256 fingerprint. */
  readonly session_id?: string;
  /** Raw trace id (client-supplied or generated): recorded only as a fingerprint. */
  readonly trace_id?: string;
  /** Entity types seen (unioned across calls). Also counted per type for the metrics unless
   * type_counts is given: pass every entity's type (duplicates included) to count exactly. */
  readonly entity_types?: Iterable<string>;
  /**
   * Entities per type (added across calls); feeds veil_entities_detected_total{type}. A Map is
   * what the collected facts keep, so entityFacts builds one (no record to convert per request).
   */
  readonly type_counts?: Readonly<Record<string, number>> | ReadonlyMap<string, number>;
  /** Redacted entities per type (added across calls); feeds veil_entities_blocked_total{type}. */
  readonly blocked_type_counts?: Readonly<Record<string, number>> | ReadonlyMap<string, number>;
  /** Counts: added across calls, so batch items can report one by one. */
  readonly entity_count?: number;
  readonly entities_blocked?: number;
  readonly entities_tokenized?: number;
  /** Items processed and failed by a batch route (added across calls). */
  readonly item_count?: number;
  readonly items_failed?: number;
  /** Configured detector mode (`builtin`, `both`, `advanced`); defaulted for detecting routes. */
  readonly detector_mode?: string;
  /**
   * An outcome that failed although the response is a 200 (a policy reload answered
   * `reloaded: false`): recorded as the event's failure when the response carries none.
   */
  readonly failure_code?: string;
  readonly failure_reason?: string;
  /** Whether the output guard / prompt security triggered (OR-ed across calls). */
  readonly output_guard?: boolean;
  readonly prompt_security?: boolean;
}

/** The accumulated facts of one request. */
export interface CollectedFacts {
  event_type?: string;
  policy?: string;
  session_id?: string;
  trace_id?: string;
  entity_types?: Set<string>;
  /** Per-type counts for the metrics (metrics/observe.ts); not part of the audit event. */
  type_counts?: Map<string, number>;
  blocked_type_counts?: Map<string, number>;
  entity_count?: number;
  entities_blocked?: number;
  entities_tokenized?: number;
  item_count?: number;
  items_failed?: number;
  detector_mode?: string;
  failure_code?: string;
  failure_reason?: string;
  output_guard?: boolean;
  prompt_security?: boolean;
}

const collected = requestSlot<CollectedFacts>('veil.facts');

const COUNTS = ['entity_count', 'entities_blocked', 'entities_tokenized', 'item_count', 'items_failed'] as const;
const STRINGS = ['event_type', 'policy', 'session_id', 'trace_id', 'detector_mode', 'failure_code', 'failure_reason'] as const;
const FLAGS = ['output_guard', 'prompt_security'] as const;

function addCounts(into: Map<string, number> | undefined, counts: Readonly<Record<string, number>> | ReadonlyMap<string, number>): Map<string, number> {
  const merged = into ?? new Map<string, number>();
  const pairs: Iterable<readonly [string, number]> = counts instanceof Map ? (counts as ReadonlyMap<string, number>) : Object.entries(counts);
  for (const [type, count] of pairs) {
    if (Number.isFinite(count) && count > 0) merged.set(type, (merged.get(type) ?? 0) + count);
  }
  return merged;
}

/** Merge `facts` into `into`: strings replace, counts add, types union, guard flags OR. */
export function mergeFacts(into: CollectedFacts, facts: AuditFacts): CollectedFacts {
  for (const key of STRINGS) {
    const value = facts[key];
    if (value !== undefined) into[key] = value;
  }
  for (const key of COUNTS) {
    const value = facts[key];
    if (value !== undefined && Number.isFinite(value)) into[key] = (into[key] ?? 0) + value;
  }
  for (const key of FLAGS) {
    const value = facts[key];
    if (value !== undefined) into[key] = (into[key] ?? false) || value;
  }
  if (facts.entity_types !== undefined) {
    const types = into.entity_types ?? new Set<string>();
    const counts = facts.type_counts === undefined ? (into.type_counts ?? new Map<string, number>()) : undefined;
    for (const type of facts.entity_types) {
      types.add(type);
      counts?.set(type, (counts.get(type) ?? 0) + 1);
    }
    into.entity_types = types;
    if (counts !== undefined) into.type_counts = counts;
  }
  if (facts.type_counts !== undefined) into.type_counts = addCounts(into.type_counts, facts.type_counts);
  if (facts.blocked_type_counts !== undefined) into.blocked_type_counts = addCounts(into.blocked_type_counts, facts.blocked_type_counts);
  return into;
}

/**
 * Record facts about the current request for its audit event. Safe to call any number of
 * times from handlers and hooks (see mergeFacts for how calls combine); never throws.
 */
export function auditFacts(request: FastifyRequest, facts: AuditFacts): void {
  const current = collected.get(request) ?? {};
  collected.set(request, mergeFacts(current, facts));
}

/** The facts collected so far for a request (empty when none were set). */
export function factsOf(request: FastifyRequest): CollectedFacts {
  return collected.get(request) ?? {};
}

/** A callback form of auditFacts, for services that must not see the request. */
export type FactSink = (facts: AuditFacts) => void;

/**
 * Runs `run`; when it is refused with `code` (the output guard's block, prompt security's
 * rejection), the audit event still records that `flag` triggered, then the refusal goes on.
 */
export async function recordingRefusal<T>(facts: FactSink, code: string, flag: (typeof FLAGS)[number], run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isVeilError(error) && error.code === code) facts({ [flag]: true });
    throw error;
  }
}

/** A sink that drops facts (the default where no request is in scope). */
export const NO_FACTS: FactSink = () => undefined;

export function factSink(request: FastifyRequest): FactSink {
  return (facts) => auditFacts(request, facts);
}

/** An entity as responses report it: only the type and the action are read, never a value. */
export interface EntityLike {
  readonly type: string;
  readonly action_applied?: string;
}

/** The facts entityFacts gives: every field set. */
export interface EntityFacts extends AuditFacts {
  readonly entity_types: ReadonlySet<string>;
  readonly type_counts: ReadonlyMap<string, number>;
  readonly blocked_type_counts: ReadonlyMap<string, number>;
  readonly entity_count: number;
  readonly entities_blocked: number;
  readonly entities_tokenized: number;
}

/**
 * Facts for a list of detected or transformed entities: the distinct types, the count, and how
 * many were tokenized and how many redacted (`entities_blocked`; a deny refuses the whole
 * request and is recorded as policy_denied instead).
 */
export function entityFacts(entities: readonly EntityLike[]): EntityFacts {
  let blocked = 0;
  let tokenized = 0;
  const types = new Set<string>();
  // Maps, as the collected facts keep them (mergeFacts then adds them without converting).
  const typeCounts = new Map<string, number>();
  const blockedCounts = new Map<string, number>();
  for (const entity of entities) {
    types.add(entity.type);
    typeCounts.set(entity.type, (typeCounts.get(entity.type) ?? 0) + 1);
    if (entity.action_applied === 'tokenize') tokenized += 1;
    else if (entity.action_applied === 'redact') {
      blocked += 1;
      blockedCounts.set(entity.type, (blockedCounts.get(entity.type) ?? 0) + 1);
    }
  }
  return {
    entity_types: types,
    type_counts: typeCounts,
    blocked_type_counts: blockedCounts,
    entity_count: entities.length,
    entities_blocked: blocked,
    entities_tokenized: tokenized,
  };
}

/** A transform response's stats: detections (allowed ones included), tokenized and redacted. */
export interface TransformLike {
  readonly entities: readonly EntityLike[];
  readonly stats: { readonly entities_detected: number; readonly entities_transformed?: number; readonly entities_blocked?: number };
}

/** Facts for one transform result (inline, worker or batch item alike). */
export function transformFacts(response: TransformLike): AuditFacts {
  const fromEntities = entityFacts(response.entities);
  const stats = response.stats;
  return {
    entity_types: fromEntities.entity_types,
    type_counts: fromEntities.type_counts,
    blocked_type_counts: fromEntities.blocked_type_counts,
    entity_count: stats.entities_detected,
    entities_blocked: stats.entities_blocked ?? fromEntities.entities_blocked,
    entities_tokenized: stats.entities_transformed ?? fromEntities.entities_tokenized,
  };
}
