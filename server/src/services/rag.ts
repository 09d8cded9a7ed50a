// The RAG flow (interface.md 4.9 to 4.14): ingest a document into safe chunks with per-chunk
// and aggregate sessions, tokenize a query, build a model context from retrieved chunks under
// the classification lattice and the merge rules, restore an answer exactly as rehydrate does,
// and erase a document. Detection, tokenization, sealing, restore and revocation are the shared
// pieces (services/transform.ts, domain/tokenize.ts, domain/seal, services/rehydrate.ts,
// services/revocation.ts); this module only arranges them. Free of Fastify: routes/rag.ts
// validates, resolves the caller and shapes the reply.
//
// Sessions: one ingest issues one session id for the document; the aggregate blob (kind
// `aggregate`) and every chunk blob (kind `chunk`, the document classification bound into the
// associated data) carry it, so invalidating the document (rag/delete) deny-lists all of them.
// With a corpus_id every token is the corpus token (domain/token/corpus.ts), so the same value
// has the same token at ingest and at query time and across the corpus's documents.
import { VeilError } from '@veil/common';
import { keyRingFor, policiesFor, type AppDeps } from '../deps.js';
import { chunkText, resolveSizes, type ChunkingStrategy, type Span } from '../domain/rag/chunking.js';
import { ClassificationLattice } from '../domain/rag/classification.js';
import { SessionMerger } from '../domain/rag/merge.js';
import type { Caller } from '../domain/policy/index.js';
import type { UnresolvedToken } from '../domain/rehydrate.js';
import { newSessionId, openSession, sealSession, type SessionPayload } from '../domain/seal/index.js';
import { utf16ToCodePoints } from '../domain/text/codepoints.js';
import {
  CorpusAllocator,
  findTokens,
  isCorpusEntryOwned,
  TokenAllocator,
  type Allocation,
  type ValueAllocator,
} from '../domain/token/index.js';
import { tokenizeText, type TokenizedEntity } from '../domain/tokenize.js';
import type { Detection, RequestContext, TokenEntry } from '../domain/types.js';
import type { OutputGuardSummary, PromptSecuritySummary } from '../domain/guard/index.js';
import { planDetectionForTexts, type NerLog } from './ner.js';
import { outputProtectionSettings } from './output-guard.js';
import type { LoadedPolicy } from './policies.js';
import { promptSecuritySettings, screenPromptText } from './prompt-security.js';
import { restoreOpened, type RehydrateEnvironment } from './rehydrate.js';
import { partitionOf, revocationDigest, revokedEntryIds, withStore } from './revocation.js';
import { assertNotDenied, denySession } from './state.js';
import { combineDetections, NER_DEGRADED_WARNING } from './transform.js';
import { StoreUnavailableError } from '../stores/types.js';

/** Built-in cap on document_sessions (and chunks) per context request (interface.md section 8). */
export const MAX_CONTEXT_CHUNKS = 256;

/** Who is calling and for what: the route resolves these from the credential. */
export interface RagScope {
  readonly tenant: string | null;
  /** Policy context for decisions (destination, caller role and purpose). */
  readonly context: RequestContext;
  /** The request's logger: why NER was unavailable is logged there (never a value). */
  readonly log?: NerLog | undefined;
}

export interface DocumentMetadata {
  document_id?: string;
  classification?: string;
  owner?: string;
  tags?: string[];
}

export interface IngestRequest {
  readonly text: string;
  readonly strategy: ChunkingStrategy;
  readonly chunkSize?: number | undefined;
  readonly chunkOverlap?: number | undefined;
  readonly policy?: string | undefined;
  readonly language?: string | undefined;
  readonly metadata?: DocumentMetadata | undefined;
  readonly corpusId?: string | undefined;
}

export interface IngestChunk {
  chunk_index: number;
  safe_text: string;
  entity_count: number;
  start_offset: number;
  end_offset: number;
  chunk_session_state: string;
}

export interface IngestResponse {
  chunks: IngestChunk[];
  total_entities: number;
  warnings?: string[];
  document_metadata?: DocumentMetadata;
  /** Present when prompt security is enabled (counts only). */
  prompt_security?: PromptSecuritySummary;
}

/** A result whose session handle the route still has to add (blob or server-side id). */
export interface Sealed<T> {
  readonly response: T;
  readonly sessionState: string;
  readonly session: SessionPayload;
  /** Entity types and counts for the audit event (never values). */
  readonly entities: readonly TokenizedEntity[];
}

/**
 * Prompt security on one input text (the same screen as /v1/transform): under `strip` the text
 * to work on is the cleaned one, under `block` a finding refuses the request (422
 * VEIL_PROMPT_REJECTED naming `field`). `ownEntries` are tokens the caller legitimately sends
 * back (a context's retrieved chunks carry the tokens of their document sessions).
 */
function screen(deps: AppDeps, text: string, field: string, ownEntries: readonly TokenEntry[] = []): { text: string; summary?: PromptSecuritySummary; warning?: string } {
  const settings = promptSecuritySettings(deps.config);
  if (settings === undefined) return { text };
  const screened = screenPromptText(settings, text, field, ownEntries);
  return { text: screened.text, summary: screened.summary, ...(screened.warning !== undefined ? { warning: screened.warning } : {}) };
}

/** Several screens reported as one summary (context screens each chunk). */
function combineSummaries(summaries: readonly PromptSecuritySummary[]): PromptSecuritySummary | undefined {
  const first = summaries[0];
  if (first === undefined) return undefined;
  const counts = new Map<string, number>();
  for (const summary of summaries) for (const finding of summary.findings) counts.set(finding.kind, (counts.get(finding.kind) ?? 0) + finding.count);
  return {
    triggered: summaries.some((summary) => summary.triggered),
    action: first.action,
    findings: [...counts].map(([kind, count]) => ({ kind: kind as PromptSecuritySummary['findings'][number]['kind'], count })),
  };
}

function nowSeconds(deps: AppDeps): number {
  return Math.floor(deps.now() / 1000);
}

function lattice(deps: AppDeps): ClassificationLattice {
  return new ClassificationLattice(deps.config.rag.classification_levels);
}

/**
 * Regex (inline, or on a worker for a large text) plus NER under the policy's detection rules,
 * for several texts at once: their NER goes to the sidecar in few batched calls.
 */
async function detectTexts(
  deps: AppDeps,
  texts: readonly string[],
  language: string,
  loaded: LoadedPolicy,
  log: NerLog | undefined,
): Promise<{ detections: Detection[][]; warnings: string[] }> {
  const { perText, ...plan } = await planDetectionForTexts(deps, texts, language, undefined, loaded.compiled.policy, log);
  const detections: Detection[][] = [];
  for (const [index, text] of texts.entries()) {
    const regex = await deps.offload.detect({ text, language, compiled: loaded.patterns, raw: loaded.rawPatterns });
    detections.push(combineDetections(regex, { ...plan, ner: perText[index]! }, loaded.compiled.policy));
  }
  return { detections, warnings: plan.warnings };
}

/**
 * Query and context responses carry NER warnings only for a problem (the sidecar unavailable or
 * degraded), not the builtin mode's standing note that NER is off, which ingest reports once.
 */
function nerProblems(warnings: readonly string[]): string[] {
  return warnings.filter((warning) => warning !== NER_DEGRADED_WARNING);
}

/** detectTexts for one text. */
async function detectText(deps: AppDeps, text: string, language: string, loaded: LoadedPolicy, log: NerLog | undefined): Promise<{ detections: Detection[]; warnings: string[] }> {
  const { detections, warnings } = await detectTexts(deps, [text], language, loaded, log);
  return { detections: detections[0]!, warnings };
}

/** The allocator of a session: corpus tokens with a corpus id, the random scheme otherwise. */
function allocatorFor(deps: AppDeps, tenant: string | null, corpusId: string | undefined, existing: readonly TokenEntry[] = []): ValueAllocator {
  return corpusId !== undefined ? new CorpusAllocator(deps.corpusKeys, { tenant, corpusId }, existing) : new TokenAllocator(existing);
}

/** Wraps an allocator to record which token ids one piece of text used. */
function recording(allocator: ValueAllocator, used: Set<string>): ValueAllocator {
  return {
    allocate(type: string, value: string): Allocation {
      const allocation = allocator.allocate(type, value);
      used.add(allocation.id);
      return allocation;
    },
  };
}

/** Detections lying wholly inside `span`, shifted to be relative to its start. */
function detectionsIn(detections: readonly Detection[], span: Span, from: number): { local: Detection[]; next: number } {
  let first = from;
  while (first < detections.length && detections[first]!.start < span.start) first += 1;
  const local: Detection[] = [];
  for (let index = first; index < detections.length; index += 1) {
    const detection = detections[index]!;
    if (detection.start >= span.end) break;
    // Chunking never cuts a detection, so a detection starting inside the chunk ends inside it.
    if (detection.end > span.end) throw new Error('rag: a chunk boundary cuts a detection');
    local.push({ ...detection, start: detection.start - span.start, end: detection.end - span.start });
  }
  return { local, next: first };
}

function documentTtl(deps: AppDeps): number {
  return deps.config.rag.document_ttl_seconds ?? deps.config.session.ttl_seconds;
}

// ---------------------------------------------------------------------------------------------
// 4.9 ingest

export async function ingestDocument(deps: AppDeps, request: IngestRequest, scope: RagScope): Promise<Sealed<IngestResponse>> {
  resolveSizes({ strategy: request.strategy, chunkSize: request.chunkSize, chunkOverlap: request.chunkOverlap });
  const classification = request.metadata?.classification;
  if (classification !== undefined && !lattice(deps).has(classification)) {
    throw new VeilError('VEIL_VALIDATION_FAILED', 'document_metadata.classification: must be one of rag.classification_levels');
  }
  const loaded = policiesFor(deps, scope.tenant).get(request.policy);
  const language = request.language ?? deps.config.detector.default_language;
  // Offsets refer to the screened text, which differs from the input only when prompt security
  // stripped something (its warning says so).
  const screened = screen(deps, request.text, 'text');
  const text = screened.text;
  const { detections, warnings } = await detectText(deps, text, language, loaded, scope.log);
  const spans = chunkText(text, {
    strategy: request.strategy,
    chunkSize: request.chunkSize,
    chunkOverlap: request.chunkOverlap,
    language,
    avoid: detections,
  });

  const allocator = allocatorFor(deps, scope.tenant, request.corpusId);
  const entriesById = new Map<string, TokenEntry>();
  const occurrences = new Map<number, TokenizedEntity>();
  const pieces: { span: Span; safeText: string; entityCount: number; ids: Set<string> }[] = [];
  let cursor = 0;
  for (const span of spans) {
    const { local, next } = detectionsIn(detections, span, cursor);
    cursor = next;
    const ids = new Set<string>();
    const result = tokenizeText({
      text: text.slice(span.start, span.end),
      detections: local,
      policy: loaded.compiled,
      context: scope.context,
      allocator: recording(allocator, ids),
    });
    for (const entry of result.newEntries) entriesById.set(entry.id, entry);
    // Overlapping windows see an entity twice; the document total counts it once.
    for (const entity of result.entities) occurrences.set(span.start + entity.start, entity);
    pieces.push({ span, safeText: result.safeText, entityCount: result.entities.length, ids });
  }

  const iat = nowSeconds(deps);
  const base = {
    sid: newSessionId(),
    tenant: scope.tenant,
    language,
    policy: loaded.compiled.name,
    policyVersion: loaded.compiled.version,
    counter: 1,
    iat,
    exp: iat + documentTtl(deps),
    ...(request.corpusId !== undefined ? { corpusId: request.corpusId } : {}),
  };
  const offsets = utf16ToCodePoints(text, pieces.flatMap((piece) => [piece.span.start, piece.span.end]));
  // One ring for the document's chunks and aggregate: the tenant's.
  const ring = keyRingFor(deps, scope.tenant);
  const chunks = pieces.map((piece, index): IngestChunk => {
    const entries = [...piece.ids].map((id) => entriesById.get(id)!);
    const chunkSession: SessionPayload = { ...base, kind: 'chunk', ...(classification !== undefined ? { classification } : {}), entries };
    return {
      chunk_index: index,
      safe_text: piece.safeText,
      entity_count: piece.entityCount,
      start_offset: offsets[index * 2]!,
      end_offset: offsets[index * 2 + 1]!,
      chunk_session_state: sealSession(ring, chunkSession),
    };
  });
  const session: SessionPayload = { ...base, kind: 'aggregate', entries: [...entriesById.values()] };
  const response: IngestResponse = { chunks, total_entities: occurrences.size };
  const allWarnings = screened.warning !== undefined ? [...warnings, screened.warning] : warnings;
  if (allWarnings.length > 0) response.warnings = [...allWarnings];
  if (request.metadata !== undefined) response.document_metadata = request.metadata;
  if (screened.summary !== undefined) response.prompt_security = screened.summary;
  return { response, sessionState: sealSession(ring, session), session, entities: [...occurrences.values()] };
}

// ---------------------------------------------------------------------------------------------
// 4.11 query

export interface QueryRequest {
  readonly query: string;
  readonly policy?: string | undefined;
  readonly language?: string | undefined;
  readonly corpusId?: string | undefined;
}

export interface QueryResponse {
  safe_query: string;
  entities_detected: number;
  warnings?: string[];
  prompt_security?: PromptSecuritySummary;
}

export async function queryRag(deps: AppDeps, request: QueryRequest, scope: RagScope): Promise<Sealed<QueryResponse>> {
  const loaded = policiesFor(deps, scope.tenant).get(request.policy);
  const language = request.language ?? deps.config.detector.default_language;
  const screened = screen(deps, request.query, 'query');
  const { detections, warnings } = await detectText(deps, screened.text, language, loaded, scope.log);
  const result = tokenizeText({
    text: screened.text,
    detections,
    policy: loaded.compiled,
    context: scope.context,
    allocator: allocatorFor(deps, scope.tenant, request.corpusId),
  });
  const iat = nowSeconds(deps);
  const session: SessionPayload = {
    sid: newSessionId(),
    kind: 'query',
    tenant: scope.tenant,
    language,
    policy: loaded.compiled.name,
    policyVersion: loaded.compiled.version,
    counter: 1,
    iat,
    exp: iat + deps.config.session.ttl_seconds,
    ...(request.corpusId !== undefined ? { corpusId: request.corpusId } : {}),
    entries: result.newEntries,
  };
  const response: QueryResponse = { safe_query: result.safeText, entities_detected: detections.length };
  const allWarnings = [...nerProblems(warnings), ...(screened.warning !== undefined ? [screened.warning] : [])];
  if (allWarnings.length > 0) response.warnings = allWarnings;
  if (screened.summary !== undefined) response.prompt_security = screened.summary;
  return {
    response,
    sessionState: sealSession(keyRingFor(deps, scope.tenant), session),
    session,
    entities: result.entities,
  };
}

// ---------------------------------------------------------------------------------------------
// 4.12 context

export interface ContextRequest {
  readonly chunks: readonly string[];
  /** The query's blob (already resolved from session_id by the route). */
  readonly sessionState: string;
  readonly policy?: string | undefined;
  readonly language?: string | undefined;
  /**
   * The caller's clearance, a rank of rag.classification_levels (the route resolves it from the
   * credential and the body's access_level, see ClassificationLattice.clearanceRank). Chunks
   * ranking above it are filtered out.
   */
  readonly clearance: number;
  /** Parallel to chunks; null or a missing entry is "unlabelled" (most restrictive). */
  readonly chunkClassifications?: readonly (string | null)[] | undefined;
  readonly documentSessions?: readonly string[] | undefined;
  readonly corpusId?: string | undefined;
}

export interface ContextResponse {
  safe_chunks: string[];
  entities_detected: number;
  chunks_filtered?: number;
  warnings?: string[];
  prompt_security?: PromptSecuritySummary;
}

/**
 * Open a chunk_session_state. Its classification is bound into the associated data, so opening
 * needs the label it was sealed with: the caller's label for the slot is tried first, then each
 * lattice level, then "unclassified". A blob matching none (another kind such as an aggregate or
 * query session, another tenant, tampered, expired) is refused.
 */
function openChunkSession(deps: AppDeps, blob: string, slot: string, label: string | null | undefined, tenant: string | null): SessionPayload {
  const candidates = new Set<string | undefined>();
  if (typeof label === 'string') candidates.add(label);
  for (const level of deps.config.rag.classification_levels) candidates.add(level);
  candidates.add(undefined);
  const now = nowSeconds(deps);
  const ring = keyRingFor(deps, tenant);
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
async function assertNotDeniedSlot(deps: AppDeps, blob: SessionPayload, slot: string): Promise<void> {
  try {
    await assertNotDenied(deps, blob);
  } catch (error) {
    if (error instanceof VeilError && error.code === 'VEIL_SESSION_EXPIRED') {
      throw new VeilError('VEIL_SESSION_EXPIRED', `${slot}: the document session was invalidated (rag/delete); remove its chunks from the store`);
    }
    throw error;
  }
}

export async function buildContext(deps: AppDeps, request: ContextRequest, scope: RagScope): Promise<Sealed<ContextResponse>> {
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
  const note = (id: string, rank: number): void => {
    entryRanks.set(id, Math.min(entryRanks.get(id) ?? rank, rank));
  };

  const query = openSession(keyRingFor(deps, scope.tenant), request.sessionState, { kinds: ['query'], tenant: scope.tenant }, nowSeconds(deps));
  await assertNotDenied(deps, query);
  const corpusId = query.corpusId;
  if (request.corpusId !== undefined && request.corpusId !== corpusId) {
    throw new VeilError('VEIL_VALIDATION_FAILED', "corpus_id: does not match the query session's corpus");
  }
  const active = policiesFor(deps, scope.tenant).get(request.policy ?? query.policy);
  const language = request.language ?? query.language;
  const merger = new SessionMerger({
    policy: active.compiled,
    context: scope.context,
    ...(corpusId !== undefined ? { owns: (entry: TokenEntry) => isCorpusEntryOwned(deps.corpusKeys, { tenant: scope.tenant, corpusId }, entry) } : {}),
  });
  merger.add({ slot: 'session_state', policy: query.policy, entries: query.entries });
  for (const entry of query.entries) note(entry.id, 0);

  // Open every slot (a bad blob fails the request even when its chunk would be filtered), then
  // filter on the most restrictive of the caller's label and the sealed classification: a chunk
  // is admitted only when that ranks at or below the caller's clearance.
  const kept: { index: number; text: string; rank: number }[] = [];
  let filtered = 0;
  for (const [index, text] of chunks.entries()) {
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
  const allocator = allocatorFor(deps, scope.tenant, corpusId, merged);
  const added: TokenEntry[] = [];
  const entities: TokenizedEntity[] = [];
  const safeChunks: string[] = [];
  let detected = 0;
  const summaries: PromptSecuritySummary[] = [];
  const screenWarnings = new Set<string>();
  // Tokens of the query and of the admitted document sessions are the caller's own; any other
  // token-shaped text in a retrieved chunk is screened like transform input.
  const texts = kept.map((chunk) => {
    const screened = screen(deps, chunk.text, `chunks[${chunk.index}]`, merged);
    if (screened.summary !== undefined) summaries.push(screened.summary);
    if (screened.warning !== undefined) screenWarnings.add(screened.warning);
    return screened.text;
  });
  // One NER plan for every admitted chunk: few batched sidecar calls, one fallback decision.
  const { detections: perChunk, warnings: nerWarnings } = await detectTexts(deps, texts, language, active, scope.log);
  for (const [position, text] of texts.entries()) {
    // Retrieved chunks are usually already safe: detections touching a token are left alone, so
    // a token is never re-tokenized or cut; raw values around it are tokenized as usual.
    const tokens = findTokens(text);
    const detections = perChunk[position]!;
    const fresh = tokens.length === 0 ? detections : detections.filter((detection) => !tokens.some((token) => detection.start < token.end && token.start < detection.end));
    const used = new Set<string>();
    const result = tokenizeText({ text, detections: fresh, policy: active.compiled, context: scope.context, allocator: recording(allocator, used) });
    for (const id of used) note(id, kept[position]!.rank);
    added.push(...result.newEntries);
    entities.push(...result.entities);
    detected += fresh.length;
    safeChunks.push(result.safeText);
  }

  const iat = nowSeconds(deps);
  const session: SessionPayload = {
    sid: newSessionId(),
    kind: 'context',
    tenant: scope.tenant,
    language,
    policy: active.compiled.name,
    policyVersion: active.compiled.version,
    counter: 1,
    iat,
    exp: iat + deps.config.session.ttl_seconds,
    ...(corpusId !== undefined ? { corpusId } : {}),
    // Every entry carries its classification, so /v1/rag/answer can hold back what another
    // caller of the tenant is not cleared for.
    entries: [...merged, ...added].map((entry) => ({ ...entry, classification: levels.label(entryRanks.get(entry.id) ?? levels.topRank) })),
  };
  const response: ContextResponse = { safe_chunks: safeChunks, entities_detected: detected };
  if (filtered > 0) response.chunks_filtered = filtered;
  const contextWarnings = [...nerProblems(nerWarnings), ...screenWarnings];
  if (contextWarnings.length > 0) response.warnings = contextWarnings;
  const promptSecurity = promptSecuritySettings(deps.config) !== undefined ? (combineSummaries(summaries) ?? emptySummary(deps)) : undefined;
  if (promptSecurity !== undefined) response.prompt_security = promptSecurity;
  return { response, sessionState: sealSession(keyRingFor(deps, scope.tenant), session), session, entities };
}

/** The summary of a screen that saw nothing (a context with no chunks left). */
function emptySummary(deps: AppDeps): PromptSecuritySummary {
  return { triggered: false, action: deps.config.prompt_security.action, findings: [] };
}

// ---------------------------------------------------------------------------------------------
// 4.13 answer

export interface AnswerRequest {
  readonly answer: string;
  /** The context's blob (already resolved from session_id by the route). */
  readonly sessionState: string;
  readonly channel: string;
  readonly caller: Caller;
  readonly tenant: string | null;
  /** The answering caller's clearance rank (as for context). */
  readonly clearance: number;
}

export interface AnswerResponse {
  restored_answer: string;
  tokens_resolved: number;
  tokens_unresolved: UnresolvedToken[];
  /** Present when the output guard is enabled (counts only, never values). */
  output_guard?: OutputGuardSummary;
  warnings?: string[];
}

/**
 * Restore an answer from a context session exactly as /v1/rehydrate restores model output: the
 * deny list, the revocation digests ([DELETED]), the policy floor, the caller-gated override
 * re-resolved for this caller, and the channel ceiling (services/rehydrate.ts restoreOpened).
 * The context may have been built by another caller of the tenant with a higher clearance: a
 * value whose classification ranks above this caller's clearance is pinned to restore mode
 * `none` (`[REDACTED]`); an entry without a classification counts as the most restrictive.
 */
export async function answerRag(deps: AppDeps, request: AnswerRequest): Promise<{ response: AnswerResponse; session: SessionPayload }> {
  const registry = policiesFor(deps, request.tenant);
  const env: RehydrateEnvironment = {
    keyRing: keyRingFor(deps, request.tenant),
    policy: (name) => registry.get(name),
    templates: deps.config.restore_templates,
    nowMs: deps.now(),
    // The output guard checks the model's answer for raw values exactly as on /v1/rehydrate.
    outputProtection: outputProtectionSettings(deps.config),
  };
  const opened = openSession(env.keyRing, request.sessionState, { kinds: ['context'], tenant: request.tenant }, nowSeconds(deps));
  await assertNotDenied(deps, opened);
  const levels = lattice(deps);
  const session: SessionPayload = {
    ...opened,
    entries: opened.entries.map((entry) => (levels.rank(entry.classification) > request.clearance ? { ...entry, override: 'none' } : entry)),
  };
  const revokedIds = await revokedEntryIds(deps.stores.revocation, deps.digestSecret, request.tenant, session.entries);
  const restored = restoreOpened(env, session, {
    output: request.answer,
    sessionState: request.sessionState,
    channel: request.channel,
    caller: request.caller,
    tenant: request.tenant,
    revokedIds: [...revokedIds],
  });
  const response: AnswerResponse = { restored_answer: restored.restored_text, tokens_resolved: restored.tokens_resolved, tokens_unresolved: restored.tokens_unresolved };
  if (restored.output_guard !== undefined) response.output_guard = restored.output_guard;
  if (restored.warnings !== undefined) response.warnings = restored.warnings;
  return { response, session };
}

// ---------------------------------------------------------------------------------------------
// 4.14 delete

export interface DeleteResponse {
  deleted: boolean;
  session_invalidated: boolean;
  entities_purged: number;
  message: string;
  manifest: { session_fingerprint: string; entities_revoked: number; timestamp_unix: number; status: 'completed' | 'partial' };
}

/**
 * Erase a document: revoke every value of its ingest session (digests in the caller's tenant
 * partition, or the unscoped one for a platform caller; the route checks the scope), then
 * deny-list the session id for as long as any blob of it could open (services/state.ts), which invalidates the aggregate and
 * every chunk_session_state of the document on every replica. A server-held copy is removed
 * last; if only that step fails the erasure is already effective and the status is `partial`.
 * Deleting an already deleted document repeats the (idempotent) writes and succeeds again.
 */
export async function deleteDocument(
  deps: AppDeps,
  request: {
    readonly sessionState: string;
    readonly serverHeld: boolean;
    readonly tenant: string | null;
    readonly fingerprint: (sid: string) => string;
    /** Runs once the document is known and before anything is changed (the audit write-ahead). */
    readonly beforeMutation?: (session: SessionPayload) => Promise<void>;
  },
): Promise<{ response: DeleteResponse; session: SessionPayload }> {
  const session = openSession(keyRingFor(deps, request.tenant), request.sessionState, { kinds: ['aggregate'], tenant: request.tenant }, nowSeconds(deps));
  const digests = [...new Set(session.entries.map((entry) => revocationDigest(deps.digestSecret, entry.type, entry.value)))];
  await request.beforeMutation?.(session);
  if (digests.length > 0) await withStore(() => deps.stores.revocation.add(partitionOf(request.tenant), digests, deps.now()));
  await denySession(deps, session.sid);
  let status: 'completed' | 'partial' = 'completed';
  const store = deps.stores.sessions;
  if (request.serverHeld && store !== undefined) {
    try {
      await store.delete(session.sid, deps.now());
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
      entities_revoked: digests.length,
      timestamp_unix: nowSeconds(deps),
      status,
    },
  };
  return { response, session };
}
