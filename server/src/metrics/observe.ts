// The one place request metrics and trace spans come from. When a response is finished
// (onResponse, which also fires for hijacked streaming replies) the request is summarized
// once, from the same facts the audit event is built from (audit/facts.ts: entity types and
// per-type counts, guard flags, policy, trace id) plus the route, status, duration and the
// error code the envelope carried, and that one observation feeds the Prometheus counters and
// the tracer. No route increments a metric itself.
import { routeOptionsOf } from '../plugins/request-slot.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { operationOf } from '../audit/event.js';
import { factsOf, type CollectedFacts } from '../audit/facts.js';
import { authenticatedPrincipal } from '../auth/principal.js';
import { errorCodeOf } from '../plugins/errors.js';
import type { VeilMetrics } from './registry.js';

export type OperationKind = 'transform' | 'rehydrate' | 'detect' | 'rag' | 'other';

/** A finished request, as metrics and traces see it. Never holds a value. */
export interface RequestObservation {
  readonly method: string;
  /** The route pattern (`/v1/transform`), undefined when no route matched. */
  readonly route: string | undefined;
  readonly operation: string;
  readonly kind: OperationKind;
  readonly status: number;
  readonly durationMs: number;
  readonly requestId: string;
  /** Undefined when the request was not authenticated (public route, failed auth). */
  readonly tenant: string | null | undefined;
  readonly facts: CollectedFacts;
  /** The error envelope's code; `unknown` for an error status answered by other means. */
  readonly errorCode: string | undefined;
  /** Operations the request performed (batch items that succeeded; 1 otherwise). */
  readonly performed: number;
  readonly sessionsCreated: number;
  /** An incoming W3C traceparent header (ids only), so spans join the caller's trace. */
  readonly traceparent?: string;
}

/** Turns an observation into spans (tracing.ts); absent when tracing is off. */
export interface RequestTracer {
  record(observation: RequestObservation): void;
  close(): Promise<void>;
}

// The proxy's routes tokenize (and chat completions restore): counted as transforms, and
// chat completions as rehydrates too (countObservation).
const TRANSFORMS = new Set(['transform', 'transform_stream', 'transform_file', 'transform_image', 'batch_transform', 'proxy_chat_completions', 'proxy_embeddings']);
const PROXY_RESTORES = new Set(['proxy_chat_completions']);
const REHYDRATES = new Set(['rehydrate', 'rehydrate_stream', 'rehydrate_file']);
const DETECTS = new Set(['detect', 'batch_detect']);
/** Single-request transforms: their latency is veil_transform_duration_seconds. */
const TIMED_TRANSFORMS = new Set(['transform', 'transform_stream', 'transform_file', 'transform_image']);

function kindOf(operation: string): OperationKind {
  if (TRANSFORMS.has(operation)) return 'transform';
  if (REHYDRATES.has(operation)) return 'rehydrate';
  if (DETECTS.has(operation)) return 'detect';
  if (operation.startsWith('rag_')) return 'rag';
  return 'other';
}

/** Whether the request body named a session to continue (then no session was created). */
function continuesSession(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const record = body as Record<string, unknown>;
  return record.session_state !== undefined || record.session_id !== undefined;
}

export function observe(request: FastifyRequest, status: number, durationMs: number): RequestObservation {
  const route = routeOptionsOf(request).url;
  const operation = route === undefined ? 'unmatched' : operationOf(request.method, route);
  const kind = kindOf(operation);
  const facts = factsOf(request);
  const ok = status < 400;
  const errorCode = ok ? undefined : (errorCodeOf(request) ?? 'unknown');
  const batch = operation === 'batch_transform' || operation === 'batch_detect';
  const performed = !ok ? 0 : batch ? Math.max(0, (facts.item_count ?? 0) - (facts.items_failed ?? 0)) : 1;
  let sessionsCreated = 0;
  if (ok && kind === 'transform') {
    if (operation === 'batch_transform') {
      const shared = (request.body as { session_mode?: unknown } | undefined)?.session_mode === 'shared';
      sessionsCreated = shared ? (performed > 0 && !continuesSession(request.body) ? 1 : 0) : performed;
    } else if (operation.startsWith('proxy_')) {
      // The proxy carries its session in headers.
      if (request.headers['x-veil-session-state'] === undefined && request.headers['x-veil-session-id'] === undefined) sessionsCreated = 1;
    } else if (!continuesSession(request.body)) sessionsCreated = 1;
  }
  const traceparent = request.headers.traceparent;
  return {
    ...(typeof traceparent === 'string' && traceparent.length <= 128 ? { traceparent } : {}),
    method: request.method,
    route,
    operation,
    kind,
    status,
    durationMs,
    requestId: request.id,
    tenant: authenticatedPrincipal(request)?.tenant,
    facts,
    errorCode,
    performed,
    sessionsCreated,
  };
}

/** Feed one observation into the counters and histograms. */
export function countObservation(metrics: VeilMetrics, observation: RequestObservation): void {
  const { facts, kind, operation } = observation;
  if (observation.errorCode !== undefined) {
    metrics.errors.inc();
    metrics.errorsByCode.inc({ code: observation.errorCode });
    if (observation.errorCode === 'VEIL_RATE_LIMITED') metrics.rateLimitRejections.inc();
  }
  if (facts.prompt_security === true) metrics.promptSecurityTriggers.inc();
  if (facts.output_guard === true) metrics.outputGuardTriggers.inc();
  if (observation.performed > 0) {
    if (kind === 'transform') metrics.transforms.inc(observation.performed);
    if (PROXY_RESTORES.has(operation)) metrics.rehydrates.inc(observation.performed);
    else if (kind === 'rehydrate') metrics.rehydrates.inc(observation.performed);
    else if (kind === 'detect') metrics.detections.inc(observation.performed);
    else if (kind === 'rag') metrics.ragOperations.inc();
  }
  if (observation.sessionsCreated > 0) metrics.sessionsCreated.inc(observation.sessionsCreated);
  // Entities are counted for operations that detect (transform, detect, RAG ingest), not for
  // rehydrate, whose entity count is the number of restored tokens.
  if (kind === 'transform' || kind === 'detect' || operation.startsWith('rag_ingest')) {
    for (const [type, count] of facts.type_counts ?? []) metrics.countType(metrics.entitiesDetected, type, count);
    for (const [type, count] of facts.blocked_type_counts ?? []) metrics.countType(metrics.entitiesBlocked, type, count);
  }
  const seconds = observation.durationMs / 1000;
  if (TIMED_TRANSFORMS.has(operation)) metrics.transformDuration.observe(seconds);
  else if (kind === 'rehydrate') metrics.rehydrateDuration.observe(seconds);
}

/** Register the onResponse hook that observes every request once. */
export function registerObservability(app: FastifyInstance, deps: { readonly metrics: VeilMetrics; readonly tracer?: RequestTracer | undefined }): void {
  const metrics = deps.metrics;
  const tracer = deps.tracer;
  app.addHook('onResponse', (request, reply, done) => {
    try {
      const observation = observe(request, reply.statusCode, reply.elapsedTime);
      countObservation(metrics, observation);
      tracer?.record(observation);
    } catch (error) {
      // Observability must never fail a request that has already been answered.
      request.log.warn({ event: 'observe_failed', error_type: error instanceof Error ? error.name : typeof error }, 'observe_failed');
    }
    done();
  });
}
