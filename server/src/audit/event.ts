// The audit event (interface.md 6.1) and how one is built from a request's facts. An event
// names what happened, to which tenant, under which policy and with how many entities of which
// types; it never carries a detected value, a raw session id or a raw trace id (both appear
// only as 16-hex SHA-256 fingerprints). Caller-influenced strings are length-capped here and
// escaped by the sinks' JSON encoding (threats.md 18).
import { hash } from 'node:crypto';
import { isoTime } from '../iso-time.js';
import type { CollectedFacts } from './facts.js';

/** One audit event. Optional fields are omitted when they do not apply. */
export interface AuditEvent {
  /** Operation (transform, rehydrate, ...) or security event (auth_failed, policy_denied, ...). */
  readonly event_type: string;
  /** When the event was built (ISO 8601, UTC). */
  readonly timestamp: string;
  readonly request_id?: string;
  /** `METHOD /route/pattern` (the route's pattern, never the raw URL). */
  readonly route?: string;
  readonly status?: number;
  readonly identity?: string;
  readonly tenant_id: string | null;
  /** Fingerprint of the session id. */
  readonly session_id?: string;
  readonly policy?: string;
  readonly entity_types?: readonly string[];
  readonly entity_count?: number;
  readonly entities_blocked?: number;
  readonly entities_tokenized?: number;
  readonly item_count?: number;
  readonly items_failed?: number;
  readonly duration_ms?: number;
  readonly detector_mode?: string;
  readonly output_guard?: boolean;
  readonly prompt_security?: boolean;
  /** Fingerprint of the trace id. */
  readonly trace_id?: string;
  /** The request was answered from the idempotency store without running again. */
  readonly idempotency_replayed?: boolean;
  /**
   * `intent`: a mutation's write-ahead record under audit.strict (no status yet); `stream`: a
   * streamed response failed after its first frame; `completed`: a stream ran to its end.
   */
  readonly phase?: string;
  readonly failure_code?: string;
  readonly failure_reason?: string;
  /** Sink lifecycle events only: bytes of a torn last record removed on open or recovery. */
  readonly recovered_bytes?: number;
  /** Sink lifecycle events only: events that could not be recorded during an outage. */
  readonly lost_events?: number;
  /** Sink lifecycle events only: fingerprint of the HMAC key the chain is written with. */
  readonly key_fingerprint?: string;
  /** Sink lifecycle events only: the chain continued an existing file. */
  readonly resumed?: boolean;
}

/** Longest caller-influenced string kept in an event (identity, policy, reasons). */
export const MAX_FIELD_LENGTH = 256;
/** Most entity types listed in one event; the count still covers all of them. */
export const MAX_ENTITY_TYPES = 128;

/** 16 hex characters of SHA-256: correlates ids across events without recording them. */
export function fingerprint(value: string): string {
  return hash('sha256', value, 'hex').slice(0, 16);
}

/** Cap a string's length (in UTF-16 units, never splitting a surrogate pair). */
export function capped(value: string, max = MAX_FIELD_LENGTH): string {
  if (value.length <= max) return value;
  let end = max;
  const code = value.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${value.slice(0, end)}…`;
}

/** Failure codes that are security events in their own right, and the event type each gets. */
const SECURITY_EVENTS: Readonly<Record<string, string>> = {
  VEIL_AUTH_REQUIRED: 'auth_failed',
  VEIL_AUTH_INVALID: 'auth_failed',
  VEIL_SCOPE_DENIED: 'scope_denied',
  VEIL_POLICY_DENIED: 'policy_denied',
  VEIL_RATE_LIMITED: 'rate_limited',
  VEIL_QUOTA_EXCEEDED: 'quota_exceeded',
  VEIL_SESSION_REPLAY: 'session_replay',
  VEIL_PROMPT_REJECTED: 'prompt_rejected',
  VEIL_OUTPUT_BLOCKED: 'output_blocked',
  VEIL_AUDIT_UNAVAILABLE: 'audit_unavailable',
};

/** Operation names of the known routes; others derive one from the path (see eventTypeOf). */
const ROUTE_EVENTS: Readonly<Record<string, string>> = {
  'POST /v1/transform': 'transform',
  'POST /v1/transform/stream': 'transform_stream',
  'POST /v1/rehydrate': 'rehydrate',
  'POST /v1/rehydrate/stream': 'rehydrate_stream',
  'POST /v1/detect': 'detect',
  'POST /v1/evaluate-policy': 'evaluate_policy',
  'POST /v1/batch/transform': 'batch_transform',
  'POST /v1/batch/detect': 'batch_detect',
  'POST /v1/revoke': 'revoke',
  'POST /v1/revoke/bulk': 'revoke_bulk',
  'GET /v1/revocations/count': 'revocations_count',
  'POST /v1/sessions/status': 'session_status',
  'DELETE /v1/sessions': 'session_delete',
  'POST /v1/entity-types': 'entity_type_validate',
  'POST /v1/patterns': 'pattern_validate',
  'POST /v1/admin/policy/validate': 'policy_validate',
  'POST /v1/admin/policy/reload': 'policy_reloaded',
  'POST /openai/v1/chat/completions': 'proxy_chat_completions',
  'POST /openai/v1/embeddings': 'proxy_embeddings',
};

/**
 * The operation a route performs: from the table, else the path without `/v1/` with separators
 * as underscores (`POST /v1/rag/ingest` -> `rag_ingest`), so a new route is audited under a
 * readable name without touching this file.
 */
export function operationOf(method: string, url: string): string {
  const key = `${method} ${url}`;
  let operation = operations.get(key);
  if (operation === undefined) {
    operation = deriveOperation(method, url);
    // Keys are route patterns (a fixed set), so the map stays small; bounded all the same.
    if (operations.size < 1024) operations.set(key, operation);
  }
  return operation;
}

/** Operation names already derived, by `METHOD pattern`. */
const operations = new Map<string, string>();

function deriveOperation(method: string, url: string): string {
  const known = ROUTE_EVENTS[`${method} ${url}`];
  if (known !== undefined) return known;
  const name = url
    .replace(/^\/v1\//, '')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
  return name === '' ? 'request' : name;
}

/** Operations that run detection, so their events name the configured detector mode. */
const DETECTING = /^(transform|transform_stream|transform_file|transform_image|redact_image|detect|batch_transform|batch_detect|rag_ingest.*|proxy_.*)$/;
const TRANSFORMING = /^(transform|transform_stream|transform_file|transform_image|redact_image|batch_transform|rag_ingest.*|proxy_.*)$/;
const REHYDRATING = /^(rehydrate|rehydrate_stream|rehydrate_file|rag_answer|proxy_chat_completions)$/;

export interface EventContext {
  readonly method: string;
  readonly url: string;
  readonly requestId: string;
  /** The response status; absent for a write-ahead (`intent`) event, recorded before there is one. */
  readonly status?: number | undefined;
  readonly durationMs: number;
  readonly identity?: string | undefined;
  readonly tenant: string | null;
  readonly detectorMode: string;
  readonly failure?: { readonly code?: string | undefined; readonly reason?: string | undefined } | undefined;
  readonly replayed?: boolean;
  readonly phase?: string;
  readonly nowMs: number;
}

/** Build the event of one request from its collected facts and what the response says. */
export function buildEvent(context: EventContext, facts: CollectedFacts): AuditEvent {
  const operation = facts.event_type ?? operationOf(context.method, context.url);
  // A failure the response carries wins; else one a route reported for a 200 outcome.
  const failure = context.failure ?? (facts.failure_code !== undefined ? { code: facts.failure_code, reason: facts.failure_reason } : undefined);
  const failureCode = failure?.code;
  const securityEvent = failureCode !== undefined ? SECURITY_EVENTS[failureCode] : undefined;
  const detecting = DETECTING.test(operation) || facts.entity_count !== undefined;
  // Fields are set in a fixed order (the order of the serialized record); absent ones are omitted.
  const event: Record<string, unknown> = {
    event_type: securityEvent ?? operation,
    timestamp: isoTime(context.nowMs),
    request_id: context.requestId,
    route: `${context.method} ${context.url}`,
  };
  if (context.status !== undefined) event.status = context.status;
  if (context.identity !== undefined) event.identity = capped(context.identity);
  event.tenant_id = context.tenant === null ? null : capped(context.tenant);
  if (facts.session_id !== undefined) event.session_id = fingerprint(facts.session_id);
  if (facts.policy !== undefined) event.policy = capped(facts.policy);
  if (facts.entity_types !== undefined) {
    const types = [...facts.entity_types].sort();
    if (types.length > MAX_ENTITY_TYPES) types.length = MAX_ENTITY_TYPES;
    for (let index = 0; index < types.length; index += 1) types[index] = capped(types[index]!, 80);
    event.entity_types = types;
  }
  if (facts.entity_count !== undefined) event.entity_count = facts.entity_count;
  if (facts.entities_blocked !== undefined) event.entities_blocked = facts.entities_blocked;
  if (facts.entities_tokenized !== undefined) event.entities_tokenized = facts.entities_tokenized;
  if (facts.item_count !== undefined) event.item_count = facts.item_count;
  if (facts.items_failed !== undefined) event.items_failed = facts.items_failed;
  event.duration_ms = Math.round(context.durationMs * 1000) / 1000;
  if (detecting) event.detector_mode = facts.detector_mode ?? context.detectorMode;
  // "Did the guard trigger" is answered (false) wherever the guard applies.
  if (facts.output_guard !== undefined || REHYDRATING.test(operation)) event.output_guard = facts.output_guard ?? false;
  if (facts.prompt_security !== undefined || TRANSFORMING.test(operation)) event.prompt_security = facts.prompt_security ?? false;
  if (facts.trace_id !== undefined) event.trace_id = fingerprint(facts.trace_id);
  if (context.replayed === true) event.idempotency_replayed = true;
  if (context.phase !== undefined) event.phase = context.phase;
  if (failureCode !== undefined) event.failure_code = capped(failureCode, 64);
  if (failure?.reason !== undefined) event.failure_reason = capped(failure.reason, 512);
  return event as unknown as AuditEvent;
}

/**
 * An event that no request carries (a policy reload by the directory watcher, a sink
 * lifecycle record): give it to the sink's record() directly.
 */
export function systemEvent(eventType: string, fields: Omit<Partial<AuditEvent>, 'event_type' | 'timestamp'> = {}, nowMs = Date.now()): AuditEvent {
  return { tenant_id: null, ...fields, event_type: eventType, timestamp: new Date(nowMs).toISOString() };
}
