// The one place audit events are emitted. Every request to an audited route gets exactly one
// event, built when its response is sent (onSend) from the facts its handler set
// (audit/facts.ts) and from the response itself (status; failure code and message from the
// error envelope), so failures (auth, scope, policy denials, rate limits, validation) are
// audited without any route doing it. Streaming routes, which hijack the reply, record their
// event just before the first byte (auditStreamStart) and a follow-up event when the stream
// fails midway (auditStreamFailure) or completes (auditStreamEnd, with the facts gathered
// while streaming).
//
// With audit.strict, a request whose event cannot be recorded is answered 503
// VEIL_AUDIT_UNAVAILABLE instead of its result; and while the sink is known to be unhealthy,
// audited requests are refused in onRequest, before any handler (and so any mutation) runs.
// Mutations (revoke, revoke/bulk, rag/delete, DELETE /v1/sessions, policy reload) are also
// write-ahead under audit.strict: the route calls recordIntent right before it changes anything,
// which records an event with phase `intent`; if that cannot be recorded the request is refused
// with 503 VEIL_AUDIT_UNAVAILABLE and nothing is applied. The outcome event follows as usual; if
// only that one fails, the client gets 503 although the mutation took effect, and the trail
// still holds its intent event (docs/operations.md "Audit").
//
// Which routes: every route is audited unless its config says otherwise; the probes are never
// audited, and health, capabilities and metrics (read-only, scraped often) only when they fail.
import { ERROR_CODES, isVeilError, VeilError, type ErrorCode } from '@veil/common';
import { errorBodyFor } from './errors.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ConfigSlice } from '../config/index.js';
import { authenticatedPrincipal } from '../auth/principal.js';
import { buildEvent, type AuditEvent } from '../audit/event.js';
import { factsOf } from '../audit/facts.js';
import type { AuditSink } from '../audit/sink.js';
import { requestSlot, routeOptionsOf } from './request-slot.js';

export type AuditMode = 'always' | 'failures' | 'never';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How the route is audited: every request (default), only failures, or never. */
    audit?: AuditMode;
  }
}

/** Built-in routes that are not audited on every request (see the header). */
const DEFAULT_MODES: Readonly<Record<string, AuditMode>> = {
  '/livez': 'never',
  '/readyz': 'never',
  '/v1/health': 'failures',
  '/v1/capabilities': 'failures',
  '/metrics': 'failures',
};

interface RequestAudit {
  readonly mode: AuditMode;
  readonly reply: FastifyReply;
  readonly sink: AuditSink;
  readonly strict: boolean;
  readonly detectorMode: string;
  /** The event was recorded (or its recording was attempted): never record twice. */
  done: boolean;
}

const audits = requestSlot<RequestAudit>('veil.audit');

/** Largest error body parsed for its code and message (envelopes are a few hundred bytes). */
const MAX_ERROR_BODY = 16 * 1024;

function modeOf(request: FastifyRequest): AuditMode {
  const url = routeOptionsOf(request).url;
  // Unmatched URLs (404/405) have no route: nothing was executed, and scanners would flood it.
  if (url === undefined) return 'never';
  // CORS preflights carry no credential and run nothing.
  if (request.method === 'OPTIONS') return 'never';
  const config = routeOptionsOf(request).config;
  // A public route (no credential, no operation on data) is never audited.
  return config.audit ?? DEFAULT_MODES[url] ?? ((config as { scope?: unknown }).scope === 'public' ? 'never' : 'always');
}

/** The error envelope's code and message; both are value-free by construction. */
function failureOf(status: number, payload: unknown): { code?: string; reason?: string } | undefined {
  if (status < 400) return undefined;
  const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined;
  if (text !== undefined && text.length <= MAX_ERROR_BODY) {
    try {
      const body = JSON.parse(text) as { code?: unknown; error?: unknown };
      if (typeof body.code === 'string' && Object.hasOwn(ERROR_CODES, body.code)) {
        // The proxy's OpenAI-shaped errors (error an object) may relay an upstream's own message:
        // the event records the code's generic message instead.
        const reason = typeof body.error === 'string' ? body.error : ERROR_CODES[body.code as ErrorCode].message;
        return { code: body.code, reason };
      }
    } catch {
      // Not an envelope: recorded by status alone.
    }
  }
  return { reason: `HTTP ${status}` };
}

function principalFields(request: FastifyRequest): { identity?: string; tenant: string | null } {
  const principal = authenticatedPrincipal(request);
  // No principal (the request failed authentication): the event says so by omission.
  return principal === undefined ? { tenant: null } : { identity: principal.identity, tenant: principal.tenant };
}

function eventOf(
  request: FastifyRequest,
  reply: FastifyReply,
  audit: RequestAudit,
  status: number | undefined,
  failure: { code?: string; reason?: string } | undefined,
  phase?: string,
): AuditEvent {
  const who = principalFields(request);
  return buildEvent(
    {
      method: request.method,
      url: routeOptionsOf(request).url ?? 'unknown',
      requestId: request.id,
      status,
      durationMs: reply.elapsedTime,
      identity: who.identity,
      tenant: who.tenant,
      detectorMode: audit.detectorMode,
      failure,
      replayed: reply.getHeader('idempotency-replayed') === 'true',
      ...(phase !== undefined ? { phase } : {}),
      nowMs: Date.now(),
    },
    factsOf(request),
  );
}

const UNAVAILABLE = 'VEIL_AUDIT_UNAVAILABLE';

export function registerAudit(app: FastifyInstance, deps: ConfigSlice<'audit' | 'detector'>, sink: AuditSink): void {
  const strict = deps.config.audit.strict;
  const detectorMode = deps.config.detector.mode;

  const start = (request: FastifyRequest, reply: FastifyReply): RequestAudit | undefined => {
    const existing = audits.get(request);
    if (existing !== undefined) return existing;
    const mode = modeOf(request);
    if (mode === 'never') return undefined;
    const audit: RequestAudit = { mode, reply, sink, strict, detectorMode, done: false };
    audits.set(request, audit);
    return audit;
  };

  // Registered before authentication, so a request refused by it still has its audit state.
  // Callback-style hooks: a request that needs no I/O here (every one while the sink is healthy)
  // goes on synchronously, without a promise per hook.
  app.addHook('onRequest', (request, reply, done) => {
    const audit = start(request, reply);
    if (audit === undefined || audit.mode !== 'always' || !strict || sink.healthy()) {
      done();
      return;
    }
    sink.probe().then(
      (healthy) => {
        if (healthy) return done();
        // Nothing can be recorded, so nothing runs: no mutation happens without its event.
        audit.done = true;
        done(new VeilError(UNAVAILABLE, undefined, 'audit sink unhealthy; refused before the handler'));
      },
      (error: unknown) => done(error as Error),
    );
  });

  const notRecorded = (request: FastifyRequest, reply: FastifyReply, event: AuditEvent, payload: unknown): unknown => {
    if (!strict) {
      request.log.warn({ event: 'audit_not_recorded', request_id: request.id, event_type: event.event_type }, 'audit_not_recorded');
      return payload;
    }
    // Strict: the result (which may hold restored values) is withheld; a streamed body is released.
    if (typeof (payload as { destroy?: unknown } | null)?.destroy === 'function') (payload as { destroy: () => void }).destroy();
    request.log.error({ request_id: request.id, error_code: UNAVAILABLE, status: 503, detail: 'audit event not recorded' }, 'request failed');
    void reply.code(503);
    reply.removeHeader('idempotency-replayed');
    reply.removeHeader('retry-after');
    reply.removeHeader('content-length');
    void reply.header('content-type', 'application/json; charset=utf-8');
    return JSON.stringify(errorBodyFor(request, UNAVAILABLE, ERROR_CODES[UNAVAILABLE].message, 503));
  };

  app.addHook('onSend', (request, reply, payload, done) => {
    // Started here when an earlier hook answered before ours ran.
    const audit = start(request, reply);
    const status = reply.statusCode;
    if (audit === undefined || audit.done || (audit.mode === 'failures' && status < 400)) {
      done(null, payload);
      return;
    }
    audit.done = true;
    const event = eventOf(request, reply, audit, status, failureOf(status, payload));
    const recorded = sink.record(event);
    // The log sink records synchronously and never fails: nothing to wait for.
    if (sink.synchronous === true) {
      done(null, payload);
      return;
    }
    recorded.then(
      () => done(null, payload),
      () => done(null, notRecorded(request, reply, event, payload)),
    );
  });
}

/**
 * Write-ahead for a mutation under audit.strict: record the event (phase `intent`, with the
 * facts set so far) before the route changes anything. Throws VEIL_AUDIT_UNAVAILABLE when it
 * cannot be recorded, so the mutation never runs unaudited. Without strict (the sink is
 * fail-open) or on an unaudited route it does nothing: the outcome event is the record.
 */
export async function recordIntent(request: FastifyRequest): Promise<void> {
  const audit = audits.get(request);
  if (audit === undefined || !audit.strict || audit.mode !== 'always') return;
  const event = eventOf(request, audit.reply, audit, undefined, undefined, 'intent');
  try {
    await audit.sink.record(event);
  } catch {
    throw new VeilError(UNAVAILABLE, undefined, 'audit intent not recorded; the mutation was not applied');
  }
}

/**
 * Record a streaming route's event before its first byte (the reply is then hijacked and
 * onSend never runs). Under audit.strict a failure throws VEIL_AUDIT_UNAVAILABLE, which the
 * route still answers as a normal JSON error.
 */
export async function auditStreamStart(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const audit = audits.get(request);
  if (audit === undefined || audit.done) return;
  audit.done = true;
  const event = eventOf(request, reply, audit, 200, undefined);
  try {
    await audit.sink.record(event);
  } catch {
    if (audit.strict) throw new VeilError(UNAVAILABLE, undefined, 'audit event not recorded before the stream');
    request.log.warn({ event: 'audit_not_recorded', request_id: request.id, event_type: event.event_type }, 'audit_not_recorded');
  }
}

/**
 * A stream that fails after its first frame: one more event with the failure (best effort:
 * the response is already committed, so there is nothing left to refuse).
 */
/**
 * A stream that ran to its end records a follow-up event (phase `completed`) with the facts
 * gathered while streaming (entity counts, whether the output guard fired on a later frame),
 * which the start event could not know. The response is already sent, so this one is
 * fail-open even under audit.strict: a failure is logged, never turned into an error.
 */
export function auditStreamEnd(request: FastifyRequest, reply: FastifyReply): void {
  const audit = audits.get(request);
  if (audit === undefined) return;
  const event = eventOf(request, reply, audit, 200, undefined, 'completed');
  audit.sink.record(event).catch(() => {
    request.log.warn({ event: 'audit_not_recorded', request_id: request.id, event_type: event.event_type }, 'audit_not_recorded');
  });
}

export function auditStreamFailure(request: FastifyRequest, reply: FastifyReply, error: unknown): void {
  const audit = audits.get(request);
  if (audit === undefined) return;
  const failure = isVeilError(error) ? { code: error.code, reason: error.message } : { code: 'VEIL_INTERNAL', reason: ERROR_CODES.VEIL_INTERNAL.message };
  const event = eventOf(request, reply, audit, 200, failure, 'stream');
  audit.sink.record(event).catch(() => {
    request.log.warn({ event: 'audit_not_recorded', request_id: request.id, event_type: event.event_type }, 'audit_not_recorded');
  });
}
