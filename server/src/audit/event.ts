// The audit event (interface.md 6.1) and how one is built from a request's facts. An event
// names what happened, to which tenant, under which policy and with how many entities of which
// types; it never carries a detected value, a raw session id or a raw trace id (both appear
// only as 16-hex SHA-256 fingerprints). Caller-influenced strings are length-capped here and
// escaped by the sinks' JSON encoding (threats.md 18).
import { hash } from 'node:crypto';
import { isoTime } from '../iso-time.js';
import type { CollectedFacts } from './facts.js';

/**
 * One audit event. Optional fields that do not apply are omitted from the record; an event from
 * buildEvent holds them as undefined (one fixed shape), which serializes the same.
 */
export interface AuditEvent {
  /** Operation (transform, rehydrate, ...) or security event (auth_failed, policy_denied, ...). */
  readonly event_type: string;
  /** When the event was built (ISO 8601, UTC). */
  readonly timestamp: string;
  readonly request_id?: string | undefined;
  /** `METHOD /route/pattern` (the route's pattern, never the raw URL). */
  readonly route?: string | undefined;
  readonly status?: number | undefined;
  readonly identity?: string | undefined;
  readonly tenant_id: string | null;
  /** Fingerprint of the session id. */
  readonly session_id?: string | undefined;
  readonly policy?: string | undefined;
  readonly entity_types?: readonly string[] | undefined;
  readonly entity_count?: number | undefined;
  readonly entities_blocked?: number | undefined;
  readonly entities_tokenized?: number | undefined;
  readonly item_count?: number | undefined;
  readonly items_failed?: number | undefined;
  readonly duration_ms?: number | undefined;
  readonly detector_mode?: string | undefined;
  readonly output_guard?: boolean | undefined;
  readonly prompt_security?: boolean | undefined;
  /** Fingerprint of the trace id. */
  readonly trace_id?: string | undefined;
  /** The request was answered from the idempotency store without running again. */
  readonly idempotency_replayed?: boolean | undefined;
  /**
   * `intent`: a mutation's write-ahead record under audit.strict (no status yet); `stream`: a
   * streamed response failed after its first frame; `completed`: a stream ran to its end.
   */
  readonly phase?: string | undefined;
  readonly failure_code?: string | undefined;
  readonly failure_reason?: string | undefined;
  /** Sink lifecycle events only: bytes of a torn last record removed on open or recovery. */
  readonly recovered_bytes?: number | undefined;
  /** Sink lifecycle events only: events that could not be recorded during an outage. */
  readonly lost_events?: number | undefined;
  /** Sink lifecycle events only: fingerprint of the HMAC key the chain is written with. */
  readonly key_fingerprint?: string | undefined;
  /** Sink lifecycle events only: the chain continued an existing file. */
  readonly resumed?: boolean | undefined;
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
  return routeOf(method, url).operation;
}

/** What an event needs of its route, derived once per route (method, then pattern) rather than per request. */
interface RouteFacts {
  /** `METHOD /route/pattern`, the event's `route`. */
  readonly route: string;
  readonly operation: string;
  readonly kind: OperationKind;
}

/** Route facts already derived. Keys are route patterns (a fixed set), so the maps stay small; bounded all the same. */
const routes = new Map<string, Map<string, RouteFacts>>();
let routeCount = 0;

function routeOf(method: string, url: string): RouteFacts {
  let byUrl = routes.get(method);
  const known = byUrl?.get(url);
  if (known !== undefined) return known;
  const operation = deriveOperation(method, url);
  const facts: RouteFacts = { route: `${method} ${url}`, operation, kind: kindOf(operation) };
  if (routeCount < 1024) {
    if (byUrl === undefined) routes.set(method, (byUrl = new Map<string, RouteFacts>()));
    byUrl.set(url, facts);
    routeCount += 1;
  }
  return facts;
}

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

/** Which of the three an operation is (derived once per route, and per event_type a route reports). */
interface OperationKind {
  readonly detecting: boolean;
  readonly transforming: boolean;
  readonly rehydrating: boolean;
}

const kinds = new Map<string, OperationKind>();

function kindOf(operation: string): OperationKind {
  let kind = kinds.get(operation);
  if (kind === undefined) {
    kind = { detecting: DETECTING.test(operation), transforming: TRANSFORMING.test(operation), rehydrating: REHYDRATING.test(operation) };
    // Operations are route names and the event types routes report (a fixed set); bounded all the same.
    if (kinds.size < 1024) kinds.set(operation, kind);
  }
  return kind;
}

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
  const route = routeOf(context.method, context.url);
  const operation = facts.event_type ?? route.operation;
  const kind = facts.event_type === undefined ? route.kind : kindOf(operation);
  // A failure the response carries wins; else one a route reported for a 200 outcome.
  const failure = context.failure ?? (facts.failure_code !== undefined ? { code: facts.failure_code, reason: facts.failure_reason } : undefined);
  const failureCode = failure?.code;
  const securityEvent = failureCode !== undefined ? SECURITY_EVENTS[failureCode] : undefined;
  const detecting = kind.detecting || facts.entity_count !== undefined;
  // One object literal with every field, in the order of the serialized record: every event
  // has the one hidden class of this literal. Adding the fields that apply one by one gave each
  // combination its own chain of map transitions, and in some runs the process spent 5-7 % of a
  // request's CPU on those stores (profiles in BENCHMARKS.md, session 7). A field that does not
  // apply is undefined, which JSON.stringify and the log writers omit: the line is unchanged.
  return {
    event_type: securityEvent ?? operation,
    timestamp: isoTime(context.nowMs),
    request_id: context.requestId,
    route: route.route,
    status: context.status,
    identity: context.identity === undefined ? undefined : capped(context.identity),
    tenant_id: context.tenant === null ? null : capped(context.tenant),
    session_id: facts.session_id === undefined ? undefined : fingerprint(facts.session_id),
    policy: facts.policy === undefined ? undefined : capped(facts.policy),
    entity_types: facts.entity_types === undefined ? undefined : entityTypes(facts.entity_types),
    entity_count: facts.entity_count,
    entities_blocked: facts.entities_blocked,
    entities_tokenized: facts.entities_tokenized,
    item_count: facts.item_count,
    items_failed: facts.items_failed,
    duration_ms: Math.round(context.durationMs * 1000) / 1000,
    detector_mode: detecting ? (facts.detector_mode ?? context.detectorMode) : undefined,
    // "Did the guard trigger" is answered (false) wherever the guard applies.
    output_guard: facts.output_guard !== undefined || kind.rehydrating ? (facts.output_guard ?? false) : undefined,
    prompt_security: facts.prompt_security !== undefined || kind.transforming ? (facts.prompt_security ?? false) : undefined,
    trace_id: facts.trace_id === undefined ? undefined : fingerprint(facts.trace_id),
    idempotency_replayed: context.replayed === true ? true : undefined,
    phase: context.phase,
    failure_code: failureCode === undefined ? undefined : capped(failureCode, 64),
    failure_reason: failure?.reason === undefined ? undefined : capped(failure.reason, 512),
  };
}

/** The event's entity types: sorted, at most MAX_ENTITY_TYPES, each capped. */
function entityTypes(seen: ReadonlySet<string>): string[] {
  const types = [...seen].sort();
  if (types.length > MAX_ENTITY_TYPES) types.length = MAX_ENTITY_TYPES;
  for (let index = 0; index < types.length; index += 1) types[index] = capped(types[index]!, 80);
  return types;
}

/**
 * An event that no request carries (a policy reload by the directory watcher, a sink
 * lifecycle record): give it to the sink's record() directly.
 */
export function systemEvent(eventType: string, fields: Omit<Partial<AuditEvent>, 'event_type' | 'timestamp'> = {}, nowMs = Date.now()): AuditEvent {
  return { tenant_id: null, ...fields, event_type: eventType, timestamp: new Date(nowMs).toISOString() };
}
