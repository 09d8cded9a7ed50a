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
import { entityFacts, NO_FACTS, type AuditFacts } from '../audit/facts.js';
import { keyRingFor, policiesFor, ringMaterial, type AppDeps } from '../deps.js';
import { detectAll } from '../domain/detect/index.js';
import { chunkText, resolveSizes, type ChunkingStrategy, type Span } from '../domain/rag/chunking.js';
import { ClassificationLattice, lowerRank, withinClearance } from '../domain/rag/classification.js';
import { SessionMerger } from '../domain/rag/merge.js';
import type { Caller } from '../domain/policy/index.js';
import { newSessionId, openSession, sealSession, type KeyRing, type SessionPayload } from '../domain/seal/index.js';
import { utf16ToCodePoints } from '../domain/text/codepoints.js';
import {
  CorpusAllocator,
  findTokens,
  isCorpusEntryOwned,
  TokenAllocator,
  type Allocation,
  type CorpusKeys,
  type ValueAllocator,
} from '../domain/token/index.js';
import { tokenizeText, type TokenizedEntity } from '../domain/tokenize.js';
import type { Detection, RequestContext, TokenEntry } from '../domain/types.js';
import type { PromptSecuritySummary } from '../domain/guard/index.js';
import { nerWillRun, planDetectionForTexts, type NerLog, type TextsPlan } from './ner.js';
import { outputProtectionSettings } from './output-guard.js';
import type { LoadedPolicy, PolicyRegistry } from './policies.js';
import { promptSecuritySettings, screenPromptText, type PromptSecuritySettings } from './prompt-security.js';
import { answerOf, restoreOpened, type AnswerResponse, type RehydrateEnvironment, type RehydrateRequest } from './rehydrate.js';
import { openOffloaded, restoreOffloaded } from './rehydrate-offload.js';
import { partitionOf, revocationDigest, revocationRegions, revokedEntryIds, withStore } from './revocation.js';
import { assertNotDenied, denySession } from './state.js';
import { combineDetections, NER_DEGRADED_WARNING } from './transform.js';
import { StoreUnavailableError } from '../stores/types.js';
import { jsonString } from './json-text.js';

/** Built-in cap on document_sessions (and chunks) per context request (interface.md section 8). */
export const MAX_CONTEXT_CHUNKS = 256;

/** Who is calling and for what: the route resolves these from the credential. */
export interface RagScope {
  readonly tenant: string | null;
  /** Policy context for decisions (destination, caller role and purpose). */
  readonly context: RequestContext;
  /** The request's logger: why NER was unavailable is logged there (never a value). */
  readonly log?: NerLog | undefined;
  /** The request is large as a whole (an ingest batch): run the pure half on a worker whatever this document's size. */
  readonly offload?: boolean | undefined;
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

/** The facts of a sealed session the route needs (its handle, its audit event). */
export interface SessionSummary {
  readonly sid: string;
  readonly exp: number;
  readonly policy?: string | undefined;
  readonly tenant: string | null;
  /** Entries of the token map. */
  readonly entries: number;
}

/**
 * A result whose session handle the route still has to add (blob or server-side id): the
 * response object (inline), or its JSON (a worker serialized a large one).
 */
export interface Sealed<T> {
  readonly response: T | string;
  readonly sessionState: string;
  readonly session: SessionSummary;
  /** Entity types and counts for the audit event (never values). */
  readonly facts: AuditFacts;
  /** The response's prompt-security summary (also inside a serialized response). */
  readonly promptSecurity?: PromptSecuritySummary | undefined;
  /** Rate-limit units of work beyond the request (ingest: the chunks sealed). */
  readonly units?: number;
}

function summaryOf(session: SessionPayload): SessionSummary {
  return { sid: session.sid, exp: session.exp, policy: session.policy, tenant: session.tenant, entries: session.entries.length };
}

/**
 * What the pure halves of the RAG flows need: built from deps on the event loop (small inputs)
 * or from the material a worker receives (services/offload.ts decides by size).
 */
export interface RagCore {
  readonly keyRing: KeyRing;
  readonly policy: LoadedPolicy;
  readonly corpusKeys: CorpusKeys;
  readonly promptSecurity?: PromptSecuritySettings | undefined;
  readonly tenant: string | null;
  /** Policy context for decisions (destination, caller role and purpose). */
  readonly context: RequestContext;
  readonly language: string;
  /** detector.default_region (national phone numbers, corpus token derivation). */
  readonly defaultRegion: string;
  readonly nowMs: number;
}

/** The NER part of a plan (planDetectionForTexts) without its per-text results. */
export type NerPlan = Omit<TextsPlan, 'perText' | 'used'>;

/** Regex detection (here: the core runs where it should already) merged with a text's NER results. */
function detectWith(core: RagCore, text: string, plan: NerPlan, ner: readonly Detection[]): Detection[] {
  const regex = detectAll(text, { customPatterns: core.policy.patterns, language: core.language, defaultRegion: core.defaultRegion });
  return combineDetections(regex, { ...plan, ner: [...ner] }, core.policy.compiled.policy);
}

/**
 * Prompt security on one input text (the same screen as /v1/transform): under `strip` the text
 * to work on is the cleaned one, under `block` a finding refuses the request (422
 * VEIL_PROMPT_REJECTED naming `field`). `ownEntries` are tokens the caller legitimately sends
 * back (a context's retrieved chunks carry the tokens of their document sessions).
 */
function screen(settings: PromptSecuritySettings | undefined, text: string, field: string, ownEntries: readonly TokenEntry[] = []): { text: string; summary?: PromptSecuritySummary; warning?: string } {
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
 * Query and context responses carry NER warnings only for a problem (the sidecar unavailable or
 * degraded), not the builtin mode's standing note that NER is off, which ingest reports once.
 */
function nerProblems(warnings: readonly string[]): string[] {
  return warnings.filter((warning) => warning !== NER_DEGRADED_WARNING);
}

/** The allocator of a session: corpus tokens with a corpus id, the random scheme otherwise. */
function allocatorFor(core: RagCore, corpusId: string | undefined, existing: readonly TokenEntry[] = []): ValueAllocator {
  const region = core.defaultRegion;
  return corpusId !== undefined ? new CorpusAllocator(core.corpusKeys, { tenant: core.tenant, corpusId, region }, existing) : new TokenAllocator(existing, undefined, region);
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

/** The core of a request on the event loop. */
function coreOf(deps: AppDeps, tenant: string | null, policy: LoadedPolicy, language: string, context: RequestContext): RagCore {
  return {
    keyRing: keyRingFor(deps, tenant),
    policy,
    corpusKeys: deps.corpusKeys,
    promptSecurity: promptSecuritySettings(deps.config),
    tenant,
    context,
    language,
    defaultRegion: deps.config.detector.default_region,
    nowMs: deps.now(),
  };
}

/** What a worker needs to rebuild a core (keys as bytes, the policy set as a snapshot). */
export interface RagCoreMaterial {
  readonly ring: { readonly currentKid: string; readonly keys: readonly { kid: string; key: Uint8Array }[] };
  readonly policies: ReturnType<PolicyRegistry['snapshot']>;
  readonly policyName: string;
  readonly corpusKeys: { readonly idKey: Uint8Array; readonly capKey: Uint8Array };
  readonly promptSecurity?: PromptSecuritySettings | undefined;
  readonly tenant: string | null;
  readonly context: RequestContext;
  readonly language: string;
  readonly defaultRegion: string;
  readonly nowMs: number;
}

function materialOf(deps: AppDeps, core: RagCore, registry: PolicyRegistry): RagCoreMaterial {
  return {
    ring: ringMaterial(deps, core.tenant),
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
async function screenTexts(deps: AppDeps, core: RagCore, registry: PolicyRegistry, texts: readonly { field: string; text: string }[], own: readonly TokenEntry[]): Promise<ScreenedTexts> {
  const total = texts.reduce((sum, item) => sum + item.text.length, 0);
  if (deps.offload.offloads(total)) return deps.offload.run({ op: 'rag', flow: 'screen', core: materialOf(deps, core, registry), input: { texts, own } });
  return screenAll(core.promptSecurity, texts, own);
}

/** Several texts screened; a summary per screened text (none when prompt security is off). */
export interface ScreenedTexts {
  readonly texts: string[];
  readonly summaries: PromptSecuritySummary[];
  readonly warnings: string[];
}

export function screenAll(settings: PromptSecuritySettings | undefined, texts: readonly { field: string; text: string }[], own: readonly TokenEntry[]): ScreenedTexts {
  const out: string[] = [];
  const summaries: PromptSecuritySummary[] = [];
  const warnings = new Set<string>();
  for (const item of texts) {
    const screened = screen(settings, item.text, item.field, own);
    out.push(screened.text);
    if (screened.summary !== undefined) summaries.push(screened.summary);
    if (screened.warning !== undefined) warnings.add(screened.warning);
  }
  return { texts: out, summaries, warnings: [...warnings] };
}

/**
 * Texts ready for the pure core: screened first (on the loop or a worker) when the NER sidecar
 * will see them, then NER (asynchronous, batched); otherwise the core screens them itself.
 */
interface Prepared {
  readonly texts: string[];
  /** Set when screening already happened here. */
  readonly screened?: ScreenedTexts;
  readonly plan: NerPlan;
  readonly perText: Detection[][];
}

async function prepareTexts(
  deps: AppDeps,
  core: RagCore,
  registry: PolicyRegistry,
  texts: readonly { field: string; text: string }[],
  own: readonly TokenEntry[],
  log: NerLog | undefined,
): Promise<Prepared> {
  const screened = nerWillRun(deps, undefined) ? await screenTexts(deps, core, registry, texts, own) : undefined;
  const ready = screened?.texts ?? texts.map((item) => item.text);
  const { perText, used: _used, ...plan } = await planDetectionForTexts(deps, ready, core.language, undefined, core.policy.compiled.policy, log);
  return { texts: ready, ...(screened !== undefined ? { screened } : {}), plan, perText };
}

/** Run a flow's pure core inline (small) or on a worker (large); the worker serializes the response. */
async function runCore<K extends keyof RagFlows>(deps: AppDeps, core: RagCore, registry: PolicyRegistry, cost: number, flow: K, input: RagFlows[K]['input']): Promise<RagFlows[K]['output']> {
  if (deps.offload.offloads(cost)) {
    return deps.offload.run({ op: 'rag', flow, core: materialOf(deps, core, registry), input } as RagTask);
  }
  return RAG_CORES[flow](core, input);
}

// ---------------------------------------------------------------------------------------------
// 4.9 ingest

/** What every session a RAG core seals starts with (the caller adds its kind and entries). */
function sessionHeader(core: RagCore, ttlSeconds: number, corpusId: string | undefined) {
  const iat = Math.floor(core.nowMs / 1000);
  return {
    sid: newSessionId(),
    tenant: core.tenant,
    language: core.language,
    policy: core.policy.compiled.name,
    policyVersion: core.policy.compiled.version,
    counter: 1,
    iat,
    exp: iat + ttlSeconds,
    ...(corpusId !== undefined ? { corpusId } : {}),
  };
}

/**
 * Screen one text (unless the loop already did) and detect in it. Offsets refer to the screened
 * text, which differs from the input only when prompt security stripped something (its warning
 * says so).
 */
function screenAndDetectOne(core: RagCore, prepared: Omit<Prepared, 'texts'> & { readonly text: string }, field: string) {
  const screened = prepared.screened ?? screenAll(core.promptSecurity, [{ field, text: prepared.text }], []);
  const text = screened.texts[0]!;
  return { screened, text, detections: detectWith(core, text, prepared.plan, prepared.perText[0] ?? []) };
}

export interface IngestCoreInput {
  readonly prepared: Omit<Prepared, 'texts'> & { readonly text: string };
  readonly strategy: ChunkingStrategy;
  readonly chunkSize?: number | undefined;
  readonly chunkOverlap?: number | undefined;
  readonly classification?: string | undefined;
  readonly metadata?: DocumentMetadata | undefined;
  readonly corpusId?: string | undefined;
  readonly ttlSeconds: number;
}

/** Ingest's pure half: screen (unless done), detect, chunk, tokenize, seal. */
export function ingestCore(core: RagCore, input: IngestCoreInput): Sealed<IngestResponse> {
  const { prepared } = input;
  const { screened, text, detections } = screenAndDetectOne(core, prepared, 'text');
  const spans = chunkText(text, {
    strategy: input.strategy,
    chunkSize: input.chunkSize,
    chunkOverlap: input.chunkOverlap,
    language: core.language,
    avoid: detections,
  });

  const allocator = allocatorFor(core, input.corpusId);
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
      policy: core.policy.compiled,
      context: core.context,
      allocator: recording(allocator, ids),
    });
    for (const entry of result.newEntries) entriesById.set(entry.id, entry);
    // Overlapping windows see an entity twice; the document total counts it once.
    for (const entity of result.entities) occurrences.set(span.start + entity.start, entity);
    pieces.push({ span, safeText: result.safeText, entityCount: result.entities.length, ids });
  }

  const base = sessionHeader(core, input.ttlSeconds, input.corpusId);
  const offsets = utf16ToCodePoints(text, pieces.flatMap((piece) => [piece.span.start, piece.span.end]));
  const chunks = pieces.map((piece, index): IngestChunk => {
    const entries = [...piece.ids].map((id) => entriesById.get(id)!);
    const chunkSession: SessionPayload = { ...base, kind: 'chunk', ...(input.classification !== undefined ? { classification: input.classification } : {}), entries };
    return {
      chunk_index: index,
      safe_text: piece.safeText,
      entity_count: piece.entityCount,
      start_offset: offsets[index * 2]!,
      end_offset: offsets[index * 2 + 1]!,
      chunk_session_state: sealSession(core.keyRing, chunkSession),
    };
  });
  const session: SessionPayload = { ...base, kind: 'aggregate', entries: [...entriesById.values()] };
  const response: IngestResponse = { chunks, total_entities: occurrences.size };
  const allWarnings = [...prepared.plan.warnings, ...screened.warnings];
  if (allWarnings.length > 0) response.warnings = allWarnings;
  if (input.metadata !== undefined) response.document_metadata = input.metadata;
  const promptSecurity = screened.summaries[0];
  if (promptSecurity !== undefined) response.prompt_security = promptSecurity;
  const entities = [...occurrences.values()];
  return {
    response,
    sessionState: sealSession(core.keyRing, session),
    session: summaryOf(session),
    facts: { entity_types: new Set(entities.map((entity) => entity.type)), entity_count: entities.length, entities_tokenized: entities.length },
    promptSecurity,
    units: chunks.length,
  };
}

export async function ingestDocument(deps: AppDeps, request: IngestRequest, scope: RagScope): Promise<Sealed<IngestResponse>> {
  resolveSizes({ strategy: request.strategy, chunkSize: request.chunkSize, chunkOverlap: request.chunkOverlap });
  const classification = request.metadata?.classification;
  if (classification !== undefined && !lattice(deps).has(classification)) {
    throw new VeilError('VEIL_VALIDATION_FAILED', 'document_metadata.classification: must be one of rag.classification_levels');
  }
  const registry = policiesFor(deps, scope.tenant);
  const core = coreOf(deps, scope.tenant, registry.get(request.policy), request.language ?? deps.config.detector.default_language, scope.context);
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

export interface QueryCoreInput {
  readonly prepared: Omit<Prepared, 'texts'> & { readonly text: string };
  readonly corpusId?: string | undefined;
  readonly ttlSeconds: number;
}

/** Query's pure half: screen (unless done), detect, tokenize, seal. */
export function queryCore(core: RagCore, input: QueryCoreInput): Sealed<QueryResponse> {
  const { prepared } = input;
  const { screened, text, detections } = screenAndDetectOne(core, prepared, 'query');
  const result = tokenizeText({ text, detections, policy: core.policy.compiled, context: core.context, allocator: allocatorFor(core, input.corpusId) });
  const session: SessionPayload = { ...sessionHeader(core, input.ttlSeconds, input.corpusId), kind: 'query', entries: result.newEntries };
  const response: QueryResponse = { safe_query: result.safeText, entities_detected: detections.length };
  const allWarnings = [...nerProblems(prepared.plan.warnings), ...screened.warnings];
  if (allWarnings.length > 0) response.warnings = allWarnings;
  const promptSecurity = screened.summaries[0];
  if (promptSecurity !== undefined) response.prompt_security = promptSecurity;
  return { response, sessionState: sealSession(core.keyRing, session), session: summaryOf(session), facts: entityFacts(result.entities), promptSecurity };
}

export async function queryRag(deps: AppDeps, request: QueryRequest, scope: RagScope): Promise<Sealed<QueryResponse>> {
  const registry = policiesFor(deps, scope.tenant);
  const core = coreOf(deps, scope.tenant, registry.get(request.policy), request.language ?? deps.config.detector.default_language, scope.context);
  const { texts, ...prepared } = await prepareTexts(deps, core, registry, [{ field: 'query', text: request.query }], [], scope.log);
  return runCore(deps, core, registry, request.query.length, 'query', {
    prepared: { ...prepared, text: texts[0]! },
    corpusId: request.corpusId,
    ttlSeconds: deps.config.session.ttl_seconds,
  });
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

export interface ContextCoreInput {
  /** The admitted chunks (raw, or screened when `prepared.screened` is set), each with its classification rank. */
  readonly chunks: readonly { readonly index: number; readonly text: string; readonly rank: number }[];
  readonly prepared: Omit<Prepared, 'texts'>;
  /** The query's and admitted documents' entries, merged (domain/rag/merge.ts). */
  readonly merged: readonly TokenEntry[];
  /** Token id -> rank of the least classified material it came from (the query: 0), for `merged`. */
  readonly entryRanks: readonly (readonly [string, number])[];
  /** rag.classification_levels, least restrictive first. */
  readonly levels: readonly string[];
  readonly filtered: number;
  readonly corpusId?: string | undefined;
  readonly ttlSeconds: number;
}

/** Context's pure half: screen the chunks (unless done), detect, tokenize around existing tokens, seal. */
export function contextCore(core: RagCore, input: ContextCoreInput): Sealed<ContextResponse> {
  const { prepared, merged } = input;
  // Tokens of the query and of the admitted document sessions are the caller's own; any other
  // token-shaped text in a retrieved chunk is screened like transform input.
  const screened = prepared.screened ?? screenAll(core.promptSecurity, input.chunks.map((chunk) => ({ field: `chunks[${chunk.index}]`, text: chunk.text })), merged);
  const allocator = allocatorFor(core, input.corpusId, merged);
  const added: TokenEntry[] = [];
  const entities: TokenizedEntity[] = [];
  const safeChunks: string[] = [];
  let detected = 0;
  const levels = new ClassificationLattice(input.levels);
  const entryRanks = new Map(input.entryRanks);
  for (const [position, text] of screened.texts.entries()) {
    // Retrieved chunks are usually already safe: detections touching a token are left alone, so
    // a token is never re-tokenized or cut; raw values around it are tokenized as usual.
    const tokens = findTokens(text);
    const detections = detectWith(core, text, prepared.plan, prepared.perText[position] ?? []);
    const fresh = tokens.length === 0 ? detections : detections.filter((detection) => !tokens.some((token) => detection.start < token.end && token.start < detection.end));
    const used = new Set<string>();
    const result = tokenizeText({ text, detections: fresh, policy: core.policy.compiled, context: core.context, allocator: recording(allocator, used) });
    const rank = input.chunks[position]!.rank;
    for (const id of used) lowerRank(entryRanks, id, rank);
    added.push(...result.newEntries);
    entities.push(...result.entities);
    detected += fresh.length;
    safeChunks.push(result.safeText);
  }

  const session: SessionPayload = {
    ...sessionHeader(core, input.ttlSeconds, input.corpusId),
    kind: 'context',
    // Every entry carries its classification, so /v1/rag/answer can hold back what another
    // caller of the tenant is not cleared for.
    entries: [...merged, ...added].map((entry) => ({ ...entry, classification: levels.label(entryRanks.get(entry.id) ?? levels.topRank) })),
  };
  const response: ContextResponse = { safe_chunks: safeChunks, entities_detected: detected };
  if (input.filtered > 0) response.chunks_filtered = input.filtered;
  const contextWarnings = [...nerProblems(prepared.plan.warnings), ...screened.warnings];
  if (contextWarnings.length > 0) response.warnings = contextWarnings;
  const promptSecurity = core.promptSecurity !== undefined ? (combineSummaries(screened.summaries) ?? emptySummary(core.promptSecurity)) : undefined;
  if (promptSecurity !== undefined) response.prompt_security = promptSecurity;
  return { response, sessionState: sealSession(core.keyRing, session), session: summaryOf(session), facts: entityFacts(entities), promptSecurity };
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
  const note = (id: string, rank: number): void => lowerRank(entryRanks, id, rank);

  const query = openSession(keyRingFor(deps, scope.tenant), request.sessionState, { kinds: ['query'], tenant: scope.tenant }, nowSeconds(deps));
  await assertNotDenied(deps, query);
  const corpusId = query.corpusId;
  if (request.corpusId !== undefined && request.corpusId !== corpusId) {
    throw new VeilError('VEIL_VALIDATION_FAILED', "corpus_id: does not match the query session's corpus");
  }
  const registry = policiesFor(deps, scope.tenant);
  const active = registry.get(request.policy ?? query.policy);
  const language = request.language ?? query.language;
  const merger = new SessionMerger({
    policy: active.compiled,
    context: scope.context,
    ...(corpusId !== undefined
      ? { owns: (entry: TokenEntry) => isCorpusEntryOwned(deps.corpusKeys, { tenant: scope.tenant, corpusId, region: deps.config.detector.default_region }, entry) }
      : {}),
  });
  merger.add({ slot: 'session_state', policy: query.policy, entries: query.entries });
  for (const entry of query.entries) note(entry.id, 0);

  // Open every slot (a bad blob fails the request even when its chunk would be filtered), then
  // filter on the most restrictive of the caller's label and the sealed classification: a chunk
  // is admitted only when that ranks at or below the caller's clearance. Each slot is a blob to
  // open: between slots the event loop serves other requests.
  const slicer = deps.offload.slicer();
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
    ttlSeconds: deps.config.session.ttl_seconds,
  });
}

/** The summary of a screen that saw nothing (a context with no chunks left). */
function emptySummary(settings: PromptSecuritySettings): PromptSecuritySummary {
  return { triggered: false, action: settings.action, findings: [] };
}

/** The flows whose pure half may run on a worker, with their inputs and outputs. */
export interface RagFlows {
  ingest: { input: IngestCoreInput; output: Sealed<IngestResponse> };
  query: { input: QueryCoreInput; output: Sealed<QueryResponse> };
  context: { input: ContextCoreInput; output: Sealed<ContextResponse> };
  screen: { input: { texts: readonly { field: string; text: string }[]; own: readonly TokenEntry[] }; output: ScreenedTexts };
}

/** A RAG task for a worker (workers/offload-worker.ts 'rag'). */
export type RagTask = { [K in keyof RagFlows]: { readonly op: 'rag'; readonly flow: K; readonly core: RagCoreMaterial; readonly input: RagFlows[K]['input'] } }[keyof RagFlows];

/** Each flow's pure half, the same on the event loop and on a worker. */
export const RAG_CORES: { readonly [K in keyof RagFlows]: (core: RagCore, input: RagFlows[K]['input']) => RagFlows[K]['output'] } = {
  ingest: ingestCore,
  query: queryCore,
  context: contextCore,
  screen: (core, input) => screenAll(core.promptSecurity, input.texts, input.own),
};

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

export type { AnswerResponse } from './rehydrate.js';

/** A restored answer: the body (an object inline, JSON from a worker) and what the audit event needs. */
export interface AnsweredRag {
  readonly response: AnswerResponse | string;
  readonly session: { readonly sid: string; readonly policy?: string | undefined };
  readonly tokensResolved: number;
  /** undefined when the output guard is disabled. */
  readonly outputGuardTriggered: boolean | undefined;
}

/**
 * Restore an answer from a context session exactly as /v1/rehydrate restores model output: the
 * deny list, the revocation digests ([DELETED]), the policy floor, the caller-gated override
 * re-resolved for this caller, and the channel ceiling (services/rehydrate.ts restoreOpened).
 * A large answer or context blob is opened and restored on worker threads
 * (services/rehydrate-offload.ts), the store checks staying here.
 * The context may have been built by another caller of the tenant with a higher clearance: a
 * value whose classification ranks above this caller's clearance is pinned to restore mode
 * `none` (`[REDACTED]`); an entry without a classification counts as the most restrictive.
 */
export async function answerRag(deps: AppDeps, request: AnswerRequest): Promise<AnsweredRag> {
  const base: RehydrateRequest = {
    output: request.answer,
    sessionState: request.sessionState,
    channel: request.channel,
    caller: request.caller,
    tenant: request.tenant,
  };
  if (deps.offload.offloads(Math.max(request.answer.length, request.sessionState.length))) {
    const opened = await openOffloaded(deps, base, NO_FACTS, CONTEXT_KINDS);
    const done = await restoreOffloaded(deps, base, opened.revokedIds, NO_FACTS, {
      shape: 'answer',
      kinds: CONTEXT_KINDS,
      clearance: { levels: deps.config.rag.classification_levels, rank: request.clearance },
    });
    return { response: jsonString(done.body), session: opened, tokensResolved: done.tokensResolved, outputGuardTriggered: done.outputGuardTriggered };
  }
  const registry = policiesFor(deps, request.tenant);
  const env: RehydrateEnvironment = {
    keyRing: keyRingFor(deps, request.tenant),
    policy: (name) => registry.get(name),
    templates: deps.config.restore_templates,
    nowMs: deps.now(),
    // The output guard checks the model's answer for raw values exactly as on /v1/rehydrate.
    outputProtection: outputProtectionSettings(deps.config),
  };
  const opened = openSession(env.keyRing, request.sessionState, { kinds: CONTEXT_KINDS, tenant: request.tenant }, nowSeconds(deps));
  await assertNotDenied(deps, opened);
  const session = withinClearance(opened, { levels: deps.config.rag.classification_levels, rank: request.clearance });
  const regions = revocationRegions(session.language, deps.config.detector.default_region);
  const revokedIds = await revokedEntryIds(deps.stores.revocation, deps.digestSecret, request.tenant, session.entries, regions);
  const response = answerOf(restoreOpened(env, session, { ...base, revokedIds: [...revokedIds] }));
  return { response, session, tokensResolved: response.tokens_resolved, outputGuardTriggered: response.output_guard?.triggered };
}

const CONTEXT_KINDS = ['context'] as const;

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
  // Each value in the canonical form its session read it in (and the default region's), so the
  // document's national numbers erase with their international spellings.
  // entities_revoked counts distinct values (in the session's own region), not digests written.
  const [own, ...others] = revocationRegions(session.language, deps.config.detector.default_region) as [string, ...string[]];
  const digestsIn = (region: string) => session.entries.map((entry) => revocationDigest(deps.digestSecret, entry.type, entry.value, region));
  const digests = [...new Set(digestsIn(own))];
  const written = [...new Set([...digests, ...others.flatMap(digestsIn)])];
  await request.beforeMutation?.(session);
  if (written.length > 0) await withStore(() => deps.stores.revocation.add(partitionOf(request.tenant), written, deps.now()), deps.now);
  await denySession(deps, session.sid, session.tenant);
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
