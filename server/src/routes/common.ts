// Helpers shared by route handlers: caller identity, trace ids, custom-pattern assembly,
// detector selection and span conversion to code points.
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { factSink } from '../audit/facts.js';
import { principalOf, type Principal } from '../auth/principal.js';
import type { UseCases } from '../compose.js';
import type { UseCaseCall } from '../usecases/transform.js';
import type { ConfigSlice } from '../config/index.js';
import { compileCustomPatterns, type CompiledPattern } from '../domain/detect/index.js';
import { DEFAULT_DESTINATION, type Caller } from '../domain/policy/index.js';
import { utf16ToCodePoints } from '../domain/text/codepoints.js';
import type { CustomPattern, RequestContext } from '../domain/types.js';
import type { LoadedPolicy, PolicyHolder } from '../services/policies.js';
import { jsonPayload, type JsonText } from '../services/json-text.js';

// The principal comes from the auth layer's root onRequest hook (plugins/auth.ts).
export { ALL_SCOPES, principalOf, type Principal } from '../auth/principal.js';

export type { ConfigSlice } from '../config/index.js';

/**
 * What every adapter that turns a body into a command reads: the auth mode (in dev mode caller
 * fields come from the body) and the policy set in force (a policy name is recorded only when
 * it is loaded).
 */
export interface CallerDeps extends ConfigSlice<'auth'> {
  readonly policies: PolicyHolder;
}

/** In dev mode the caller role and purpose come from the body; otherwise from the credential. */
export function callerOf(deps: ConfigSlice<'auth'>, principal: Principal, context: RequestContext | undefined): Caller {
  if (deps.config.auth.mode === 'dev') {
    return {
      ...(context?.caller_role !== undefined ? { role: context.caller_role } : {}),
      ...(context?.caller_purpose !== undefined ? { purpose: context.caller_purpose } : {}),
    };
  }
  return {
    ...(principal.role !== undefined ? { role: principal.role } : {}),
    ...(principal.purpose !== undefined ? { purpose: principal.purpose } : {}),
  };
}

/** The request context with caller fields taken from the credential outside dev mode. */
export function effectiveContext(deps: ConfigSlice<'auth'>, principal: Principal, context: RequestContext | undefined): RequestContext {
  const caller = callerOf(deps, principal, context);
  return {
    // A caller that omits the destination is treated as sending to an external model, so
    // destination-gated deny rules cannot be bypassed by leaving the field out.
    destination: context?.destination ?? DEFAULT_DESTINATION,
    ...(context?.provider !== undefined ? { provider: context.provider } : {}),
    ...(caller.role !== undefined ? { caller_role: caller.role } : {}),
    ...(caller.purpose !== undefined ? { caller_purpose: caller.purpose } : {}),
  };
}

export function traceIdOf(supplied: string | undefined): string {
  return supplied ?? randomUUID();
}

/** Traces are logged only as a fingerprint (interface.md 6.2): the audit events' fingerprint. */
export { fingerprint } from '../audit/event.js';

/**
 * A route's completion event (`transform_completed`, ...) at debug: its fields (a trace-id
 * fingerprint is a SHA-256) are built only when the logger writes debug, so a server at the
 * default level pays nothing for a line it drops.
 */
export function logCompleted(log: Pick<FastifyBaseLogger, 'level' | 'debug'>, event: string, fields: () => Record<string, unknown>): void {
  if (DEBUG_LEVELS.has(log.level)) log.debug({ event, ...fields() }, event);
}

/** The levels (pino's names) at which a logger writes debug records. */
const DEBUG_LEVELS: ReadonlySet<string> = new Set(['trace', 'debug']);

export interface PatternSet {
  readonly compiled: CompiledPattern[];
  readonly raw: CustomPattern[];
}

/** The policy's patterns plus the request's (validated here; additive only). */
export function patternSet(policy: LoadedPolicy | undefined, requested: readonly CustomPattern[] | undefined): PatternSet {
  const compiled: CompiledPattern[] = [...(policy?.patterns ?? [])];
  const raw: CustomPattern[] = [...(policy?.rawPatterns ?? [])];
  if (requested !== undefined && requested.length > 0) {
    compiled.push(...compileCustomPatterns(requested, 'custom_patterns'));
    raw.push(...requested);
  }
  return { compiled, raw };
}

export function ms(start: number): number {
  return Math.round((performance.now() - start) * 1000) / 1000;
}

/** Convert UTF-16 spans to code-point spans in one pass. */
export function codePointSpans(text: string, spans: readonly { start: number; end: number }[]): { start: number; end: number }[] {
  const flat: number[] = [];
  for (const span of spans) flat.push(span.start, span.end);
  const converted = utf16ToCodePoints(text, flat);
  const out: { start: number; end: number }[] = [];
  for (let index = 0; index < spans.length; index += 1) {
    out.push({ start: converted[index * 2]!, end: converted[index * 2 + 1]! });
  }
  return out;
}

/**
 * The policy name a request named, as audit events and spans may record it: a loaded policy's
 * name, or `<unknown>`. An unknown name is raw caller input (it could be anything, a value
 * included), so it is never recorded.
 */
export function policyFact(deps: Pick<CallerDeps, 'policies'>, name: string | undefined): { policy?: string } {
  if (name === undefined) return {};
  return { policy: deps.policies.registry.has(name) ? name : '<unknown>' };
}

/** A use case call for this request: the caller's scope (read once), its audit facts, its logger. */
export function callOf(useCases: Pick<UseCases, 'scopeOf'>, request: FastifyRequest): UseCaseCall & { readonly log: FastifyBaseLogger } {
  return { scope: useCases.scopeOf(principalOf(request).tenant), facts: factSink(request), log: request.log };
}

/** Send an answer already serialized (in parts, some of them bytes a worker moved here: services/json-text.ts). */
export function sendJson(reply: FastifyReply, parts: readonly JsonText[]): FastifyReply {
  const payload = jsonPayload(parts);
  void reply.type('application/json; charset=utf-8');
  if (payload.length !== undefined) void reply.header('content-length', payload.length);
  return reply.send(payload.body);
}
