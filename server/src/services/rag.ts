// The RAG flow (interface.md 4.9 to 4.14): ingest a document into safe chunks with per-chunk
// and aggregate sessions, tokenize a query, build a model context from retrieved chunks under
// the classification lattice and the merge rules, restore an answer exactly as rehydrate does,
// and erase a document. This module holds the flows' types and their pure cores (the same on the
// event loop and on a worker); the sequences around them (scope, NER, store checks, the
// executor) are usecases/rag.ts. Detection, tokenization, sealing and restore are the shared
// pieces (services/transform.ts, domain/tokenize.ts, domain/seal, services/rehydrate.ts).
//
// Sessions: one ingest issues one session id for the document; the aggregate blob (kind
// `aggregate`) and every chunk blob (kind `chunk`, the document classification bound into the
// associated data) carry it, so invalidating the document (rag/delete) deny-lists all of them.
// With a corpus_id every token is the corpus token (domain/token/corpus.ts), so the same value
// has the same token at ingest and at query time and across the corpus's documents.
import { entityFacts, type AuditFacts } from '../audit/facts.js';
import { detectAll } from '../domain/detect/index.js';
import { chunkText, type ChunkingStrategy, type Span } from '../domain/rag/chunking.js';
import { ClassificationLattice, lowerRank } from '../domain/rag/classification.js';
import type { Caller } from '../domain/policy/index.js';
import { newSessionId, sealSession, type KeyRing, type SessionPayload } from '../domain/seal/index.js';
import { utf16ToCodePoints } from '../domain/text/codepoints.js';
import { CorpusAllocator, findTokens, TokenAllocator, type Allocation, type CorpusKeys, type ValueAllocator } from '../domain/token/index.js';
import { tokenizeText, type TokenizedEntity } from '../domain/tokenize.js';
import type { Detection, RequestContext, TokenEntry } from '../domain/types.js';
import type { PromptSecuritySummary } from '../domain/guard/index.js';
import type { NerLog, TextsPlan } from './ner.js';
import type { LoadedPolicy, PolicyRegistry } from './policies.js';
import { screenPromptText, type PromptSecuritySettings } from './prompt-security.js';
import type { AnswerResponse } from './rehydrate.js';
import { combineDetections, NER_DEGRADED_WARNING } from './transform.js';

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
 * What the pure halves of the RAG flows need: built by usecases/rag.ts on the event loop (small inputs)
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
  return combineDetections(text, regex, { ...plan, ner: [...ner] }, core.policy.compiled.policy);
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
export function combineSummaries(summaries: readonly PromptSecuritySummary[]): PromptSecuritySummary | undefined {
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
export interface Prepared {
  readonly texts: string[];
  /** Set when screening already happened here. */
  readonly screened?: ScreenedTexts;
  readonly plan: NerPlan;
  readonly perText: Detection[][];
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

/** The summary of a screen that saw nothing (a context with no chunks left). */
export function emptySummary(settings: PromptSecuritySettings): PromptSecuritySummary {
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

// ---------------------------------------------------------------------------------------------
// 4.14 delete

export interface DeleteResponse {
  deleted: boolean;
  session_invalidated: boolean;
  entities_purged: number;
  message: string;
  manifest: { session_fingerprint: string; entities_revoked: number; timestamp_unix: number; status: 'completed' | 'partial' };
}
