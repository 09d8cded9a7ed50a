// The rehydrate, in two synchronous halves around the async store checks: open the session
// (and list its revocation digests), then restore the output. Both halves run inline for small
// bodies and on a worker thread for large ones; free of Fastify.
import { randomUUID } from 'node:crypto';
import { VeilError } from '@veil/common';
import type { Caller } from '../domain/policy/index.js';
import { indexEntries, rehydrateText, type UnresolvedToken } from '../domain/rehydrate.js';
import { findTokensLenient } from '../domain/repair/index.js';
import type { RestoreTemplates } from '../domain/restore/index.js';
import { openSession, type KeyRing, type SessionPayload } from '../domain/seal/index.js';
import type { RestoreMode } from '../domain/types.js';
import type { LoadedPolicy } from './policies.js';

export interface RehydrateEnvironment {
  readonly keyRing: KeyRing;
  readonly policy: (name: string | undefined) => LoadedPolicy;
  readonly templates?: RestoreTemplates | undefined;
  readonly nowMs: number;
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
}

/** Kinds of session a rehydrate accepts. */
export const REHYDRATE_KINDS = ['transform', 'batch'] as const;

export function openForRehydrate(env: RehydrateEnvironment, sessionState: string, tenant: string | null): SessionPayload {
  return openSession(env.keyRing, sessionState, { kinds: REHYDRATE_KINDS, tenant }, Math.floor(env.nowMs / 1000));
}

export function restoreOpened(env: RehydrateEnvironment, session: SessionPayload, request: RehydrateRequest, started = performance.now()): RehydrateResponse {
  let loaded: LoadedPolicy;
  try {
    loaded = env.policy(session.policy);
  } catch {
    // The session's policy was removed: restore nothing rather than guess another policy.
    throw new VeilError('VEIL_POLICY_DENIED', "the session's policy is no longer loaded");
  }
  loaded.compiled.channelCeiling(request.channel); // validates the channel before any restore
  const revoked = request.revokedIds !== undefined && request.revokedIds.length > 0 ? new Set(request.revokedIds) : undefined;
  const result = rehydrateText({
    output: request.output,
    entries: indexEntries(session.entries),
    policy: loaded.compiled,
    language: session.language,
    caller: request.caller,
    channel: request.channel,
    requestedMode: request.restoreMode,
    tokenOverrides: request.restoreOverrides,
    templates: env.templates,
    // Token repair (decisions.md 9): spacing, type case, escaped or one lost brace are
    // tolerated; the id and cap must still match exactly.
    scan: findTokensLenient,
    ...(revoked !== undefined ? { isRevoked: (entry) => revoked.has(entry.id) } : {}),
  });
  return {
    restored_text: result.restoredText,
    tokens_resolved: result.tokensResolved,
    tokens_unresolved: result.tokensUnresolved,
    stats: { rehydrate_time_ms: Math.round((performance.now() - started) * 1000) / 1000 },
    trace_id: request.traceId ?? randomUUID(),
  };
}
