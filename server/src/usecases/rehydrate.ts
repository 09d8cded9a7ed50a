// The rehydrate use case: the whole sequence of a restoring request, written once for
// /v1/rehydrate (output and output_json), /v1/rehydrate/stream (whole and incremental),
// /v1/rehydrate/file, the OpenAI-compatible proxy and RAG answers:
//   1. the incoming session is resolved (a blob, or a server-side id),
//   2. the blob is opened under the tenant's ring (on a worker when large, once),
//   3. the store checks: the session is not denied or too old, and the revoked entries named,
//   4. the output is restored (inline or on a worker) and its audit facts recorded.
// Free of Fastify: the route adapts HTTP to a RehydrateCommand and the answer back.
import { VeilError } from '@veil/common';
import { recordingRefusal, type FactSink } from '../audit/facts.js';
import type { Caller } from '../domain/policy/index.js';
import type { RestoreMode } from '../domain/types.js';
import type { RehydrateRequest } from '../services/rehydrate.js';
import { partitionsFor, revokedIdsOf, type EntryDigest } from '../services/revocation.js';
import { assertNotDenied, incomingSession, type StateDeps } from '../services/state.js';
import type { RevocationStore } from '../stores/types.js';
import type { DeferredSource } from '../workers/offload-worker.js';
import { jsonCost } from '../services/offload.js';
import type { Executor, OpenedHere, RehydrateRun, SessionChecks } from './executor.js';
import type { UseCaseCall } from './transform.js';

/** What the rehydrate use case needs: the executor and the session stores. */
export interface RehydrateDeps {
  readonly executor: Executor;
  readonly state: StateDeps;
}

/** A restore request as the use case takes it (the route resolved the caller from the credential). */
export interface RehydrateCommand {
  readonly sessionState?: string | undefined;
  readonly sessionId?: string | undefined;
  readonly restoreMode?: RestoreMode | undefined;
  readonly restoreOverrides?: Readonly<Record<string, RestoreMode>> | undefined;
  readonly channel: string;
  readonly caller: Caller;
  readonly traceId: string;
}

/**
 * The revoked entries of an opened session: none, without computing a digest, when the store
 * answers in process that the caller's partitions hold no revocation (RevocationStore.holdsAny,
 * the memory store); otherwise every digest is computed and looked up (services/revocation.ts).
 */
export function revokedIn(store: RevocationStore, tenant: string | null, digests: () => readonly EntryDigest[]): Promise<string[]> {
  if (store.holdsAny?.(partitionsFor(tenant)) === false) return Promise.resolve([]);
  return revokedIdsOf(store, tenant, digests());
}

/** A rehydrate refused by the output guard (action block) still records that it triggered. */
export function recordingBlock<T>(facts: FactSink, run: () => Promise<T>): Promise<T> {
  return recordingRefusal(facts, 'VEIL_OUTPUT_BLOCKED', 'output_guard', run);
}

/** The facts of a finished restore (restored tokens, output guard), wherever it ran. */
function restoreFacts(run: RehydrateRun): { entity_count: number; output_guard?: boolean } {
  const [resolved, guard] = run.where === 'worker' ? [run.result.tokensResolved, run.result.outputGuardTriggered] : [run.response.tokens_resolved, run.response.output_guard?.triggered];
  return { entity_count: resolved, ...(guard !== undefined ? { output_guard: guard } : {}) };
}

export class RehydrateUseCase {
  readonly #deps: RehydrateDeps;

  constructor(deps: RehydrateDeps) {
    this.#deps = deps;
  }

  /** Step 1: the incoming session and the caller as a restore request for `output`. */
  async request(call: UseCaseCall, command: RehydrateCommand, output: string): Promise<RehydrateRequest> {
    const sessionState = await incomingSession(this.#deps.state, command.sessionId, command.sessionState);
    if (sessionState === undefined) throw new VeilError('VEIL_VALIDATION_FAILED', 'session_state: is required');
    return {
      output,
      sessionState,
      restoreMode: command.restoreMode,
      restoreOverrides: command.restoreOverrides,
      channel: command.channel,
      caller: command.caller,
      tenant: call.scope.tenant,
      traceId: command.traceId,
    };
  }

  /** Step 3 as the executor runs it: the session's facts recorded before it is checked, so a refused request's event names it. */
  checks(facts: FactSink, traceId: string | undefined): SessionChecks {
    const state = this.#deps.state;
    return {
      admit: async (blob) => {
        facts({ session_id: blob.sid, trace_id: traceId ?? '', ...(blob.policy !== undefined ? { policy: blob.policy } : {}) });
        await assertNotDenied(state, blob);
      },
      revoked: (tenant, digests) => revokedIn(state.stores.revocation, tenant, digests),
    };
  }

  /** Steps 2-3 on the event loop: for restores that stay here (an incremental stream, a file, the proxy). */
  openHere(call: UseCaseCall, base: RehydrateRequest): Promise<OpenedHere> {
    return this.#deps.executor.openHere(call.scope, base.sessionState, this.checks(call.facts, base.traceId));
  }

  /** Steps 2-4 for a text output (`segments`: a large output is cut for the stream on its worker). */
  async text(call: UseCaseCall, base: RehydrateRequest, options: { readonly segments?: boolean } = {}): Promise<RehydrateRun> {
    return recordingBlock(call.facts, async () => {
      const run = await this.#deps.executor.rehydrate(call.scope, base, this.checks(call.facts, base.traceId), {
        cost: Math.max(base.output.length, base.sessionState.length),
        ...(options.segments === true ? { shape: 'segments' } : {}),
      });
      call.facts(restoreFacts(run));
      return run;
    });
  }

  /** Steps 2-4 for output_json: every string of the document (keys included) restored on its own; a raw (large) document on a worker. */
  async json(call: UseCaseCall, base: RehydrateRequest, document: { readonly value: unknown } | { readonly source: DeferredSource }): Promise<RehydrateRun> {
    return recordingBlock(call.facts, async () => {
      const executor = this.#deps.executor;
      const cost = 'source' in document ? document.source.raw.length : Math.max(jsonCost(document.value, executor.threshold), base.sessionState.length);
      const run = await executor.rehydrate(call.scope, base, this.checks(call.facts, base.traceId), { cost, document });
      call.facts(restoreFacts(run));
      return run;
    });
  }
}
