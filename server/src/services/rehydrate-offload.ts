// The two halves of a large rehydrate on worker threads, around the store checks on the event
// loop: open the blob and list its revocation digests on a worker, check the deny list and the
// revocations here, then restore on a worker (a /v1/rehydrate output, an output_json document,
// a stream's segments, a RAG answer). Used by routes/rehydrate.ts and services/rag.ts so every
// large restore applies the deny list and revocations exactly as the inline path does.
import { NO_FACTS, type FactSink } from '../audit/facts.js';
import { policiesFor, ringMaterial, type AppDeps } from '../deps.js';
import type { Clearance } from '../domain/rag/classification.js';
import type { SessionKind } from '../domain/seal/index.js';
import type { DeferredSource, OffloadedRehydrate, RehydrateShape } from '../workers/offload-worker.js';
import { outputProtectionSettings } from './output-guard.js';
import type { RehydrateRequest } from './rehydrate.js';
import { partitionsFor, withStore } from './revocation.js';
import { assertNotDenied } from './state.js';

/**
 * Open a large blob on a worker (its digests computed there), then check the deny list and the
 * revocations on the event loop: the revoked token ids, for the restore that follows on a worker.
 */
export async function openOffloaded(
  deps: AppDeps,
  base: RehydrateRequest,
  facts: FactSink = NO_FACTS,
  kinds?: readonly SessionKind[],
): Promise<{ revokedIds: string[]; sid: string; policy?: string | undefined }> {
  const opened = await deps.offload.run({
    op: 'rehydrate-open',
    sessionState: base.sessionState,
    tenant: base.tenant,
    ring: ringMaterial(deps, base.tenant),
    digestKey: deps.digestSecret,
    defaultRegion: deps.config.detector.default_region,
    nowMs: deps.now(),
    ...(kinds !== undefined ? { kinds } : {}),
  });
  facts({ session_id: opened.sid, trace_id: base.traceId ?? '', ...(opened.policy !== undefined ? { policy: opened.policy } : {}) });
  await assertNotDenied(deps, opened);
  const digests = opened.digests.map((item) => item.digest);
  const revoked = digests.length === 0 ? new Set<string>() : await withStore(() => deps.stores.revocation.revoked(partitionsFor(base.tenant), digests));
  // A value has several digests (its revocation forms): each id once.
  const revokedIds = [...new Set(opened.digests.filter((item) => revoked.has(item.digest)).map((item) => item.id))];
  return { revokedIds, sid: opened.sid, policy: opened.policy };
}

/** The restore on a worker, its facts recorded here. */
export async function restoreOffloaded(
  deps: AppDeps,
  base: RehydrateRequest,
  revokedIds: readonly string[],
  facts: FactSink,
  extra: {
    document?: { value: unknown } | { source: DeferredSource };
    shape?: RehydrateShape;
    kinds?: readonly SessionKind[];
    clearance?: Clearance;
  } = {},
): Promise<OffloadedRehydrate> {
  const done = await deps.offload.run({
    op: 'rehydrate',
    request: { ...base, revokedIds },
    ring: ringMaterial(deps, base.tenant),
    policies: policiesFor(deps, base.tenant).snapshot(),
    templates: deps.config.restore_templates,
    outputProtection: outputProtectionSettings(deps.config),
    nowMs: deps.now(),
    ...extra,
  });
  facts({ entity_count: done.tokensResolved, ...(done.outputGuardTriggered !== undefined ? { output_guard: done.outputGuardTriggered } : {}) });
  return done;
}

