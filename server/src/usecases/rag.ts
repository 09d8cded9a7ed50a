// The RAG use case (interface.md 4.9 to 4.14): ingest, query, context, answer and delete, each
// run as one sequence: resolve the caller's scope, screen and plan detection (the NER sidecar),
// open and check the sessions a request brings (deny list, revocations), run the flow's pure
// core through the executor (inline or on a worker: usecases/executor.ts), and write the
// erasure. The pure cores (chunking, tokenizing, sealing) are services/rag.ts. Free of Fastify:
// routes/rag.ts validates, resolves the caller and shapes the reply.
import { VeilError } from '@veil/common';
import { resolveSizes } from '../domain/rag/chunking.js';
import { ClassificationLattice, lowerRank } from '../domain/rag/classification.js';
import { SessionMerger } from '../domain/rag/merge.js';
import { openSession, type SessionPayload } from '../domain/seal/index.js';
import { isCorpusEntryOwned, type CorpusKeys } from '../domain/token/index.js';
import type { RequestContext, TokenEntry } from '../domain/types.js';
import { nerWillRun, planDetectionForTexts, type NerDeps, type NerLog } from '../services/ner.js';
import type { LoadedPolicy, PolicyRegistry } from '../services/policies.js';
import type { PromptSecuritySettings } from '../services/prompt-security.js';
import {
  MAX_CONTEXT_CHUNKS,
  type AnsweredRag,
  type AnswerRequest,
  type ContextRequest,
  type ContextResponse,
  type DeleteResponse,
  type IngestRequest,
  type IngestResponse,
  type Prepared,
  type QueryRequest,
  type QueryResponse,
  type RagCore,
  type RagCoreMaterial,
  type RagFlows,
  type RagScope,
  type ScreenedTexts,
  type Sealed,
} from '../services/rag.js';
import type { RehydrateRequest } from '../services/rehydrate.js';
import { partitionOf, revocationDigests, revocationRegions, withStore } from '../services/revocation.js';
import { assertNotDenied, denySession, incomingSession, outgoingHandle, type StateDeps } from '../services/state.js';
import { StoreUnavailableError } from '../stores/types.js';
import { ringMaterialOf, type Executor, type RequestScope, type SessionChecks } from './executor.js';
import type { SessionHandle } from './transform.js';
import { revokedIn } from './rehydrate.js';

/** What the RAG use case needs: the executor, detection planning, the session stores, the corpus keys, prompt security, the request scope. */
export interface RagDeps {
  readonly executor: Executor;
  readonly ner: NerDeps;
  readonly state: StateDeps;
  readonly corpusKeys: CorpusKeys;
  readonly promptSecurity: PromptSecuritySettings | undefined;
  readonly scopeOf: (tenant: string | null) => RequestScope;
}

function nowSeconds(deps: RagDeps): number {
  return Math.floor(deps.state.now() / 1000);
}

function lattice(deps: RagDeps): ClassificationLattice {
  return new ClassificationLattice(deps.state.config.rag.classification_levels);
}

function documentTtl(deps: RagDeps): number {
  return deps.state.config.rag.document_ttl_seconds ?? deps.state.config.session.ttl_seconds;
}

/** The core of a request on the event loop. */
function coreOf(deps: RagDeps, tenant: string | null, policy: LoadedPolicy, language: string, context: RequestContext): RagCore {
  return {
    keyRing: deps.state.reload.keyRingFor(tenant),
    policy,
    corpusKeys: deps.corpusKeys,
    promptSecurity: deps.promptSecurity,
    tenant,
    context,
    language,
    defaultRegion: deps.state.config.detector.default_region,
    nowMs: deps.state.now(),
  };
}

function materialOf(core: RagCore, registry: PolicyRegistry): RagCoreMaterial {
  return {
    ring: ringMaterialOf(core.keyRing),
    policies: registry.snapshot(),
    policyName: core.policy.compiled.name,
    corpusKeys: { idKey: core.corpusKeys.idKey, capKey: core.corpusKeys.capKey },
    promptSecurity: core.promptSecurity,
    tenant: core.tenant,
    context: core.context,
    language: core.language,
    defaultRegion: core.defaultRegion,
    nowMs: core.nowMs,
  };
}

/**
 * Screen texts for prompt security where NER must see them cleaned: on the event loop when
 * small, on a worker when large. `own` are the tokens the caller may legitimately send back.
 */
async function screenTexts(deps: RagDeps, core: RagCore, registry: PolicyRegistry, texts: readonly { field: string; text: string }[], own: readonly TokenEntry[]): Promise<ScreenedTexts> {
  const total = texts.reduce((sum, item) => sum + item.text.length, 0);
  return deps.executor.rag('screen', core, () => materialOf(core, registry), total, { texts, own });
}

/** Screen (when NER will see the texts) and plan detection: the texts ready for a flow's core. */
async function prepareTexts(
  deps: RagDeps,
  core: RagCore,
  registry: PolicyRegistry,
  texts: readonly { field: string; text: string }[],
  own: readonly TokenEntry[],
  log: NerLog | undefined,
): Promise<Prepared> {
  const screened = nerWillRun(deps.ner, undefined) ? await screenTexts(deps, core, registry, texts, own) : undefined;
  const ready = screened?.texts ?? texts.map((item) => item.text);
  const { perText, used: _used, ...plan } = await planDetectionForTexts(deps.ner, ready, core.language, undefined, core.policy.compiled.policy, log);
  return { texts: ready, ...(screened !== undefined ? { screened } : {}), plan, perText };
}

/** Run a flow's pure core inline (small) or on a worker (large; the executor decides, the worker serializes the response). */
function runCore<K extends keyof RagFlows>(deps: RagDeps, core: RagCore, registry: PolicyRegistry, cost: number, flow: K, input: RagFlows[K]['input']): Promise<RagFlows[K]['output']> {
  return deps.executor.rag(flow, core, () => materialOf(core, registry), cost, input);
}

export async function ingestDocument(deps: RagDeps, request: IngestRequest, scope: RagScope): Promise<Sealed<IngestResponse>> {
  resolveSizes({ strategy: request.strategy, chunkSize: request.chunkSize, chunkOverlap: request.chunkOverlap });
  const classification = request.metadata?.classification;
  if (classification !== undefined && !lattice(deps).has(classification)) {
    throw new VeilError('VEIL_VALIDATION_FAILED', 'document_metadata.classification: must be one of rag.classification_levels');
  }
  const registry = deps.scopeOf(scope.tenant).registry;
  const core = coreOf(deps, scope.tenant, registry.get(request.policy), request.language ?? deps.state.config.detector.default_language, scope.context);
  const { texts, ...prepared } = await prepareTexts(deps, core, registry, [{ field: 'text', text: request.text }], [], scope.log);
  return runCore(deps, core, registry, scope.offload === true ? Number.POSITIVE_INFINITY : request.text.length, 'ingest', {
    prepared: { ...prepared, text: texts[0]! },
    strategy: request.strategy,
    chunkSize: request.chunkSize,
    chunkOverlap: request.chunkOverlap,
    classification,
    metadata: request.metadata,
    corpusId: request.corpusId,
    ttlSeconds: documentTtl(deps),
  });
}

export async function queryRag(deps: RagDeps, request: QueryRequest, scope: RagScope): Promise<Sealed<QueryResponse>> {
  const registry = deps.scopeOf(scope.tenant).registry;
  const core = coreOf(deps, scope.tenant, registry.get(request.policy), request.language ?? deps.state.config.detector.default_language, scope.context);
  const { texts, ...prepared } = await prepareTexts(deps, core, registry, [{ field: 'query', text: request.query }], [], scope.log);
  return runCore(deps, core, registry, request.query.length, 'query', {
    prepared: { ...prepared, text: texts[0]! },
    corpusId: request.corpusId,
    ttlSeconds: deps.state.config.session.ttl_seconds,
  });
}

/**
 * Open a chunk_session_state. Its classification is bound into the associated data, so opening
 * needs the label it was sealed with: the caller's label for the slot is tried first, then each
 * lattice level, then "unclassified". A blob matching none (another kind such as an aggregate or
 * query session, another tenant, tampered, expired) is refused.
 */
function openChunkSession(deps: RagDeps, blob: string, slot: string, label: string | null | undefined, tenant: string | null): SessionPayload {
  const candidates = new Set<string | undefined>();
  if (typeof label === 'string') candidates.add(label);
  for (const level of deps.state.config.rag.classification_levels) candidates.add(level);
  candidates.add(undefined);
  const now = nowSeconds(deps);
  const ring = deps.state.reload.keyRingFor(tenant);
  for (const classification of candidates) {
    try {
      return openSession(ring, blob, { kinds: ['chunk'], tenant, classification }, now);
    } catch {
      // Try the next label; the failure below is the same whatever the reason.
    }
  }
  throw new VeilError('VEIL_SESSION_EXPIRED', `${slot}: is not a chunk_session_state of this tenant, or it expired or was invalidated`);
}

/** The deny-list check, naming the slot when a document was erased (rag/delete). */
async function assertNotDeniedSlot(deps: RagDeps, blob: SessionPayload, slot: string): Promise<void> {
  try {
    await assertNotDenied(deps.state, blob);
  } catch (error) {
    if (error instanceof VeilError && error.code === 'VEIL_SESSION_EXPIRED') {
      throw new VeilError('VEIL_SESSION_EXPIRED', `${slot}: the document session was invalidated (rag/delete); remove its chunks from the store`);
    }
    throw error;
  }
}

export async function buildContext(deps: RagDeps, request: ContextRequest, scope: RagScope): Promise<Sealed<ContextResponse>> {
  const { chunks, documentSessions, chunkClassifications } = request;
  if (chunks.length > MAX_CONTEXT_CHUNKS) throw new VeilError('VEIL_VALIDATION_FAILED', `chunks: at most ${MAX_CONTEXT_CHUNKS} items`);
  if (documentSessions !== undefined && documentSessions.length !== chunks.length) {
    throw new VeilError('VEIL_VALIDATION_FAILED', 'document_sessions: must have exactly one entry per chunk');
  }
  if (chunkClassifications !== undefined && chunkClassifications.length > chunks.length) {
    throw new VeilError('VEIL_VALIDATION_FAILED', 'chunk_classifications: has more entries than chunks');
  }
  const levels = lattice(deps);
  // Token id -> rank of the least classified material it came from (the query: 0).
  const entryRanks = new Map<string, number>();
  const note = (id: string, rank: number): void => lowerRank(entryRanks, id, rank);

  const query = openSession(deps.state.reload.keyRingFor(scope.tenant), request.sessionState, { kinds: ['query'], tenant: scope.tenant }, nowSeconds(deps));
  await assertNotDenied(deps.state, query);
  const corpusId = query.corpusId;
  if (request.corpusId !== undefined && request.corpusId !== corpusId) {
    throw new VeilError('VEIL_VALIDATION_FAILED', "corpus_id: does not match the query session's corpus");
  }
  const registry = deps.scopeOf(scope.tenant).registry;
  const active = registry.get(request.policy ?? query.policy);
  const language = request.language ?? query.language;
  const merger = new SessionMerger({
    policy: active.compiled,
    context: scope.context,
    ...(corpusId !== undefined
      ? { owns: (entry: TokenEntry) => isCorpusEntryOwned(deps.corpusKeys, { tenant: scope.tenant, corpusId, region: deps.state.config.detector.default_region }, entry) }
      : {}),
  });
  merger.add({ slot: 'session_state', policy: query.policy, entries: query.entries });
  for (const entry of query.entries) note(entry.id, 0);

  // Open every slot (a bad blob fails the request even when its chunk would be filtered), then
  // filter on the most restrictive of the caller's label and the sealed classification: a chunk
  // is admitted only when that ranks at or below the caller's clearance. Each slot is a blob to
  // open: between slots the event loop serves other requests.
  const slicer = deps.executor.slicer();
  const kept: { index: number; text: string; rank: number }[] = [];
  let filtered = 0;
  for (const [index, text] of chunks.entries()) {
    await slicer.pause();
    const label = chunkClassifications?.[index];
    let document: SessionPayload | undefined;
    if (documentSessions !== undefined) {
      const slot = `document_sessions[${index}]`;
      document = openChunkSession(deps, documentSessions[index]!, slot, label, scope.tenant);
      await assertNotDeniedSlot(deps, document, slot);
      if (document.corpusId !== corpusId) {
        throw new VeilError('VEIL_VALIDATION_FAILED', `${slot}: corpus does not match the query session's corpus`);
      }
    }
    const labels: (string | undefined)[] = [];
    if (chunkClassifications !== undefined) labels.push(label ?? undefined);
    if (document !== undefined) labels.push(document.classification);
    if (labels.length === 0) labels.push(undefined);
    const rank = levels.effectiveRank(labels);
    if (rank > request.clearance) {
      filtered += 1;
      continue;
    }
    if (document !== undefined) {
      merger.add({ slot: `document_sessions[${index}]`, policy: document.policy, entries: document.entries });
      for (const entry of document.entries) note(entry.id, rank);
    }
    kept.push({ index, text, rank });
  }

  const merged = merger.entries();
  const core = coreOf(deps, scope.tenant, active, language, scope.context);
  // One NER plan for every admitted chunk: few batched sidecar calls, one fallback decision.
  const { texts, ...prepared } = await prepareTexts(
    deps,
    core,
    registry,
    kept.map((chunk) => ({ field: `chunks[${chunk.index}]`, text: chunk.text })),
    merged,
    scope.log,
  );
  const cost = kept.reduce((sum, chunk) => sum + chunk.text.length, 0);
  return runCore(deps, core, registry, cost, 'context', {
    chunks: kept.map((chunk, position) => ({ index: chunk.index, text: texts[position]!, rank: chunk.rank })),
    prepared,
    merged,
    entryRanks: [...entryRanks],
    levels: levels.levels,
    filtered,
    corpusId,
    ttlSeconds: deps.state.config.session.ttl_seconds,
  });
}

/**
 * Restore an answer from a context session exactly as /v1/rehydrate restores model output: the
 * deny list, the revocation digests ([DELETED]), the policy floor, the caller-gated override
 * re-resolved for this caller, and the channel ceiling (services/rehydrate.ts restoreOpened).
 * A large answer or context blob is opened and restored on worker threads
 * (usecases/executor.ts: the blob decrypted once), the store checks staying here.
 * The context may have been built by another caller of the tenant with a higher clearance: a
 * value whose classification ranks above this caller's clearance is pinned to restore mode
 * `none` (`[REDACTED]`); an entry without a classification counts as the most restrictive.
 */
export async function answerRag(deps: RagDeps, request: AnswerRequest): Promise<AnsweredRag> {
  const base: RehydrateRequest = {
    output: request.answer,
    sessionState: request.sessionState,
    channel: request.channel,
    caller: request.caller,
    tenant: request.tenant,
  };
  const state = deps.state;
  // The deny list and the revocation digests, exactly as /v1/rehydrate checks them.
  const checks: SessionChecks = {
    admit: (blob) => assertNotDenied(state, blob),
    revoked: (tenant, digests) => revokedIn(state.stores.revocation, tenant, digests),
  };
  const clearance = { levels: state.config.rag.classification_levels, rank: request.clearance };
  const run = await deps.executor.answer(deps.scopeOf(request.tenant), base, checks, CONTEXT_KINDS, clearance);
  return { response: run.response, session: run.session, tokensResolved: run.tokensResolved, outputGuardTriggered: run.outputGuardTriggered };
}

const CONTEXT_KINDS = ['context'] as const;

/** A rag/delete request (the route resolved the blob and the caller). */
export interface DeleteRequest {
  readonly sessionState: string;
  readonly serverHeld: boolean;
  readonly tenant: string | null;
  readonly fingerprint: (sid: string) => string;
  /** Runs once the document is known and before anything is changed (the audit write-ahead). */
  readonly beforeMutation?: (session: SessionPayload) => Promise<void>;
}

/**
 * Erase a document: revoke every value of its ingest session (digests in the caller's tenant
 * partition, or the unscoped one for a platform caller; the route checks the scope), then
 * deny-list the session id for as long as any blob of it could open (services/state.ts), which invalidates the aggregate and
 * every chunk_session_state of the document on every replica. A server-held copy is removed
 * last; if only that step fails the erasure is already effective and the status is `partial`.
 * Deleting an already deleted document repeats the (idempotent) writes and succeeds again.
 */
export async function deleteDocument(deps: RagDeps, request: DeleteRequest): Promise<{ response: DeleteResponse; session: SessionPayload }> {
  const session = openSession(deps.state.reload.keyRingFor(request.tenant), request.sessionState, { kinds: ['aggregate'], tenant: request.tenant }, nowSeconds(deps));
  // Each value in the canonical form its session read it in (and the default region's), so the
  // document's national numbers erase with their international spellings.
  // entities_revoked counts distinct values (in the session's own region), not digests written.
  const [own, ...others] = revocationRegions(session.language, deps.state.config.detector.default_region) as [string, ...string[]];
  // Per value, its digests (the canonical form first; a name also in lower case).
  const digestsIn = (region: string) => session.entries.map((entry) => revocationDigests(deps.state.digestSecret, entry.type, entry.value, region));
  const ownDigests = digestsIn(own);
  const revokedValues = new Set(ownDigests.map((forms) => forms[0]!)).size;
  const written = [...new Set([...ownDigests.flat(), ...others.flatMap((region) => digestsIn(region).flat())])];
  await request.beforeMutation?.(session);
  if (written.length > 0) await withStore(() => deps.state.stores.revocation.add(partitionOf(request.tenant), written, deps.state.now()), deps.state.now);
  await denySession(deps.state, session.sid, session.tenant);
  let status: 'completed' | 'partial' = 'completed';
  const store = deps.state.stores.sessions;
  if (request.serverHeld && store !== undefined) {
    try {
      await store.delete(session.sid, deps.state.now());
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      status = 'partial';
    }
  }
  const response: DeleteResponse = {
    deleted: true,
    session_invalidated: true,
    entities_purged: session.entries.length,
    message:
      status === 'completed'
        ? 'document erased: every value of the session is revoked and the session is invalidated; delete its chunks from your vector store'
        : 'document erased: every value is revoked and the session is invalidated, but its server-held copy could not be removed yet (it expires with its TTL); delete its chunks from your vector store',
    manifest: {
      session_fingerprint: request.fingerprint(session.sid),
      entities_revoked: revokedValues,
      timestamp_unix: nowSeconds(deps),
      status,
    },
  };
  return { response, session };
}

/** A sealed result with the handle it leaves with (the blob, or a server-side id after storing it). */
export type Issued<T> = Sealed<T> & { readonly handle: SessionHandle };

/** The RAG flows as one object the routes call (each method is the whole sequence of its route). */
export class RagUseCase {
  readonly #deps: RagDeps;

  constructor(deps: RagDeps) {
    this.#deps = deps;
  }

  /** The blob behind session_state or session_id; one of the two is required. */
  async incoming(sessionId: string | undefined, sessionState: string | undefined): Promise<string> {
    const blob = await incomingSession(this.#deps.state, sessionId, sessionState);
    if (blob === undefined) throw new VeilError('VEIL_VALIDATION_FAILED', 'session_state: is required');
    return blob;
  }

  async #issue<T>(sealed: Sealed<T>): Promise<Issued<T>> {
    const session = sealed.session;
    const handle = await outgoingHandle(this.#deps.state, { sid: session.sid, expiresAtMs: session.exp * 1000, tenant: session.tenant }, sealed.sessionState);
    return { ...sealed, handle };
  }

  async ingest(request: IngestRequest, scope: RagScope): Promise<Issued<IngestResponse>> {
    return this.#issue(await ingestDocument(this.#deps, request, scope));
  }

  async query(request: QueryRequest, scope: RagScope): Promise<Issued<QueryResponse>> {
    return this.#issue(await queryRag(this.#deps, request, scope));
  }

  async context(request: ContextRequest, scope: RagScope): Promise<Issued<ContextResponse>> {
    return this.#issue(await buildContext(this.#deps, request, scope));
  }

  answer(request: AnswerRequest): Promise<AnsweredRag> {
    return answerRag(this.#deps, request);
  }

  delete(request: DeleteRequest): Promise<{ response: DeleteResponse; session: SessionPayload }> {
    return deleteDocument(this.#deps, request);
  }
}
