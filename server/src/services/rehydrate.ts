// The rehydrate, in two synchronous halves around the async store checks: open the session
// (and list its revocation digests), then restore the output. Both halves run inline for small
// bodies and on a worker thread for large ones; free of Fastify.
import { randomUUID } from 'node:crypto';
import { isVeilError, VeilError } from '@veil/common';
import { guardJsonValue, outputGuardWarning, type JsonScans, type OutputGuard, type OutputGuardSummary } from '../domain/guard/index.js';
import type { Caller } from '../domain/policy/index.js';
import { indexEntries, rehydrateText, type RehydrateResult, type UnresolvedToken } from '../domain/rehydrate.js';
import { findTokensLenient } from '../domain/repair/index.js';
import type { MarkupContext, RestoreTemplates } from '../domain/restore/index.js';
import { openSession, type KeyRing, type SessionKind, type SessionPayload } from '../domain/seal/index.js';
import { restoreJsonValue } from '../domain/structured/index.js';
import type { TokenCandidate } from '../domain/token/index.js';
import type { RestoreMode } from '../domain/types.js';
import { createOutputGuard, type OutputProtectionSettings } from './output-guard.js';
import type { LoadedPolicy } from './policies.js';

export interface RehydrateEnvironment {
  readonly keyRing: KeyRing;
  readonly policy: (name: string | undefined) => LoadedPolicy;
  readonly templates?: RestoreTemplates | undefined;
  readonly nowMs: number;
  /** The output guard's settings; undefined when output_protection is disabled. */
  readonly outputProtection?: OutputProtectionSettings | undefined;
}

export interface RehydrateRequest {
  readonly output: string;
  readonly sessionState: string;
  readonly restoreMode?: RestoreMode | undefined;
  readonly restoreOverrides?: Readonly<Record<string, RestoreMode>> | undefined;
  readonly channel: string;
  readonly caller: Caller;
  readonly tenant: string | null;
  readonly traceId?: string | undefined;
  /** Token ids whose values are revoked (restored as [DELETED]). */
  readonly revokedIds?: readonly string[] | undefined;
}

export interface RehydrateResponse {
  restored_text: string;
  tokens_resolved: number;
  tokens_unresolved: UnresolvedToken[];
  stats: { rehydrate_time_ms: number };
  trace_id: string;
  /** Present when the output guard is enabled (counts only, never values). */
  output_guard?: OutputGuardSummary;
  warnings?: string[];
}

/** Kinds of session a rehydrate accepts. */
export const REHYDRATE_KINDS = ['transform', 'batch'] as const;

export function openForRehydrate(env: RehydrateEnvironment, sessionState: string, tenant: string | null, kinds: readonly SessionKind[] = REHYDRATE_KINDS): SessionPayload {
  return openSession(env.keyRing, sessionState, { kinds, tenant }, Math.floor(env.nowMs / 1000));
}

/**
 * Restores one text. Pieces of one rendered whole (a stream's deltas, a paragraph's runs) pass
 * one MarkupContext, in order, so a URL or tag opened in an earlier piece still counts; without
 * one, the text is its own whole.
 */
export type Restorer = (text: string, markup?: MarkupContext, scanned?: readonly TokenCandidate[]) => RehydrateResult;

/**
 * One restore context (policy, channel, caller, revocations, indexed entries) for many texts:
 * /v1/rehydrate/file restores a document piece by piece (JSON strings, DOCX runs) and the
 * incremental stream delta by delta, under the same rules as one /v1/rehydrate call.
 * `request.output` is not read.
 */
export function createRestorer(env: RehydrateEnvironment, session: SessionPayload, request: RehydrateRequest): Restorer {
  const loaded = sessionPolicy(env, session);
  loaded.compiled.channelCeiling(request.channel); // validates the channel before any restore
  const isRevoked = liveRevocations(request.revokedIds);
  const entries = indexEntries(session.entries);
  // `scanned`: findTokensLenient(text) already run by the output guard (guardScanned).
  return (text, markup, scanned) =>
    rehydrateText({
      output: text,
      markup,
      entries,
      policy: loaded.compiled,
      language: session.language,
      caller: request.caller,
      channel: request.channel,
      requestedMode: request.restoreMode,
      tokenOverrides: request.restoreOverrides,
      templates: env.templates,
      scan: scanned !== undefined ? () => scanned : findTokensLenient,
      ...(isRevoked !== undefined ? { isRevoked } : {}),
    });
}

/**
 * Reads `ids` on every call, not once: an open incremental stream appends the ids its live
 * check finds revoked (services/stream-check.ts) to the very array it gave the restorer, and
 * the next piece must restore them as [DELETED]. The set is rebuilt only when the list grew.
 */
function liveRevocations(ids: readonly string[] | undefined): ((entry: { id: string }) => boolean) | undefined {
  if (ids === undefined) return undefined;
  let known = new Set<string>(ids);
  return (entry) => {
    if (known.size !== ids.length) known = new Set(ids);
    return known.has(entry.id);
  };
}

/**
 * The session's policy; a policy that was removed refuses (restore nothing, guess nothing), and
 * so does one the caller's tenant may no longer use (its own 403, which names `policy`).
 */
export function sessionPolicy(env: RehydrateEnvironment, session: SessionPayload): LoadedPolicy {
  try {
    return env.policy(session.policy);
  } catch (error) {
    if (isVeilError(error) && error.code === 'VEIL_POLICY_DENIED') throw error;
    throw new VeilError('VEIL_POLICY_DENIED', "the session's policy is no longer loaded");
  }
}

/** The output guard for one rehydrate of `session`, or undefined when disabled. */
export function outputGuardFor(env: RehydrateEnvironment, session: SessionPayload, caller: Caller): OutputGuard | undefined {
  if (env.outputProtection === undefined) return undefined;
  return createOutputGuard(env.outputProtection, { policy: sessionPolicy(env, session), language: session.language, caller, entries: session.entries });
}

/**
 * Restore one output. The output guard runs first, on the output as the model wrote it (so a
 * restored value is never flagged): `guard` undefined guards this output with a guard of its
 * own and reports it in the response; null skips the guard (the caller guarded the text
 * already: stream pieces, JSON documents); an OutputGuard is used as given and reported by the
 * caller.
 */
export function restoreOpened(
  env: RehydrateEnvironment,
  session: SessionPayload,
  request: RehydrateRequest,
  started = performance.now(),
  guard?: OutputGuard | null,
): RehydrateResponse {
  // Token repair (decisions.md 9): spacing, type case, escaped or one lost brace are
  // tolerated; the id and cap must still match exactly (createRestorer scans leniently).
  const restorer = createRestorer(env, session, request);
  const ownGuard = guard === undefined ? outputGuardFor(env, session, request.caller) : undefined;
  const active = guard ?? ownGuard;
  // The guard's token scan of the output, when it left the output as it was, is the restore's.
  const guarded = active !== undefined ? active.guardScanned(request.output) : { text: request.output };
  const result = restorer(guarded.text, undefined, guarded.candidates);
  const response: RehydrateResponse = {
    restored_text: result.restoredText,
    tokens_resolved: result.tokensResolved,
    tokens_unresolved: result.tokensUnresolved,
    stats: { rehydrate_time_ms: Math.round((performance.now() - started) * 1000) / 1000 },
    trace_id: request.traceId ?? randomUUID(),
  };
  if (ownGuard !== undefined) withOutputGuard(response, ownGuard.summary());
  return response;
}

/** Attach the guard's summary (and its warning when it triggered) to a response. */
export function withOutputGuard<T extends { output_guard?: OutputGuardSummary; warnings?: string[] }>(response: T, summary: OutputGuardSummary): T {
  response.output_guard = summary;
  const warning = outputGuardWarning(summary);
  if (warning !== undefined) response.warnings = [...(response.warnings ?? []), warning];
  return response;
}

/** The response of an output_json rehydrate. */
export interface RehydrateJsonResponse extends RehydrateResponse {
  restored_json: unknown;
}

/**
 * output_json: restore every string of the document (keys included) on its own, after the output
 * guard saw every string as the model wrote it. The same on the event loop and on a worker.
 */
export function restoreJsonOpened(env: RehydrateEnvironment, session: SessionPayload, request: RehydrateRequest, document: unknown, started = performance.now()): RehydrateJsonResponse {
  let traceId = request.traceId ?? '';
  const guard = outputGuardFor(env, session, request.caller);
  // The guard's token scan of each string it left as it was is the restore's (one scan a string).
  const scans: JsonScans = new Map();
  const guarded = guard !== undefined ? guardJsonValue(document, guard, undefined, scans) : document;
  // One restorer for every string, made at the first string that holds a `{` (as before: a
  // document without one validates nothing and restores nothing).
  let restorer: Restorer | undefined;
  const restored = restoreJsonValue(guarded, (text) => {
    restorer ??= createRestorer(env, session, request);
    const one = restorer(text, undefined, scans.get(text));
    traceId = request.traceId ?? randomUUID();
    return one;
  });
  const response: RehydrateJsonResponse = {
    restored_text: JSON.stringify(restored.value),
    restored_json: restored.value,
    tokens_resolved: restored.tokensResolved,
    tokens_unresolved: restored.tokensUnresolved,
    stats: { rehydrate_time_ms: Math.round((performance.now() - started) * 1000) / 1000 },
    trace_id: traceId,
  };
  return guard !== undefined ? withOutputGuard(response, guard.summary()) : response;
}

/** A /v1/rag/answer body: the restore of the answer under the context session. */
export interface AnswerResponse {
  restored_answer: string;
  tokens_resolved: number;
  tokens_unresolved: UnresolvedToken[];
  /** Present when the output guard is enabled (counts only, never values). */
  output_guard?: OutputGuardSummary;
  warnings?: string[];
}

export function answerOf(restored: RehydrateResponse): AnswerResponse {
  const response: AnswerResponse = { restored_answer: restored.restored_text, tokens_resolved: restored.tokens_resolved, tokens_unresolved: restored.tokens_unresolved };
  if (restored.output_guard !== undefined) response.output_guard = restored.output_guard;
  if (restored.warnings !== undefined) response.warnings = restored.warnings;
  return response;
}
