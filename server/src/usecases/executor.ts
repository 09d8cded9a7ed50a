// The executor: the one place that decides whether a use case's pure work (a transform, a
// restore, a detection, a RAG core) runs on the event loop or on a worker thread, and the one
// place that builds the worker's task from the request's scope. Every method returns a typed
// result that says where the work ran (`where: 'inline' | 'worker'`): an inline run carries the
// objects, a worker run what the worker serialized, so no caller casts a worker's answer or
// repeats the size check.
//
// A large rehydrate opens (decrypts) its blob once: the worker that opens it returns the opened
// session with the revocation digests, the store checks run here on the event loop, and the
// restore worker gets the opened session instead of the blob.
import { compileCustomPatterns } from '../domain/detect/index.js';
import type { JsonStructureLimits } from '../domain/json-depth.js';
import { bindSessionEntries, dropSessionForms, sessionFormsGeneration } from '../domain/guard/session-forms.js';
import { withinClearance, type Clearance } from '../domain/rag/classification.js';
import type { RestoreTemplates } from '../domain/restore/index.js';
import type { KeyRing, SessionKind, SessionPayload } from '../domain/seal/index.js';
import { checkJsonDocument, isPlainObject } from '../domain/structured/index.js';
import type { CustomPattern, Detection } from '../domain/types.js';
import type { DetectSelection } from '../services/detect.js';
import type { FileRehydrateContext } from '../services/files.js';
import { detectsInline, jsonCost, PARSE_INLINE_FACTOR, patternsInline, textCost, transformsInline, type Offload, type Slicer } from '../services/offload.js';
import type { OutputProtectionSettings } from '../services/output-guard.js';
import type { PolicyRegistry } from '../services/policies.js';
import { RAG_CORES, type RagCore, type RagCoreMaterial, type RagFlows, type RagTask } from '../services/rag.js';
import {
  answerOf,
  openForRehydrate,
  REHYDRATE_KINDS,
  restoreJsonOpened,
  restoreOpened,
  type AnswerResponse,
  type RehydrateEnvironment,
  type RehydrateJsonResponse,
  type RehydrateRequest,
  type RehydrateResponse,
} from '../services/rehydrate.js';
import { sessionDigests, type EntryDigest } from '../services/revocation.js';
import { runChatTransform, runJsonTransform, type ChatTransformOutcome, type JsonTransformOutcome, type StructuredRequest } from '../services/structured.js';
import { runTextTransform, type TextTransformRequest, type TransformEnvironment, type TransformOutcome } from '../services/transform.js';
import type {
  DeferrableField,
  DeferredSource,
  OffloadedDetection,
  OffloadedRehydrate,
  OffloadedTransform,
  ParsedBody,
  RehydrateShape,
  RingMaterial,
  TransformShape,
  TransformTaskSettings,
} from '../workers/offload-worker.js';
import { jsonString } from '../services/json-text.js';
import { decodeUtf8 } from '../domain/text/utf8.js';

/** What one request works under, read once: the tenant, its key ring, its policy set, the clock. */
export interface RequestScope {
  readonly tenant: string | null;
  readonly keyRing: KeyRing;
  /** The policy set as the tenant may use it (a reload swaps the set between requests, never within). */
  readonly registry: PolicyRegistry;
  readonly nowMs: number;
}

/** The configuration the executor builds tasks and environments from (fixed at startup). */
export interface ExecutorSettings {
  readonly transform: TransformTaskSettings;
  readonly templates?: RestoreTemplates | undefined;
  readonly outputProtection?: OutputProtectionSettings | undefined;
  /** detector.default_region (revocation forms of national phone numbers, detection). */
  readonly defaultRegion: string;
  /** HMAC key of the revocation digests. */
  readonly digestKey: Buffer;
  readonly jsonLimits: JsonStructureLimits;
}

/** A text transform: the outcome (inline), or what a worker serialized. */
export type TextRun = { readonly where: 'inline'; readonly outcome: TransformOutcome } | { readonly where: 'worker'; readonly outcome: OffloadedTransform };

/** A JSON or chat transform: the outcome (inline), or what a worker serialized. */
export type StructuredRun =
  | { readonly where: 'inline'; readonly outcome: JsonTransformOutcome | ChatTransformOutcome }
  | { readonly where: 'worker'; readonly outcome: OffloadedTransform };

/** The opened blob as the store checks see it (the same inline and on a worker). */
export interface OpenedBlob {
  readonly sid: string;
  readonly iat: number;
  readonly policy?: string | undefined;
}

/**
 * The store checks between opening a blob and restoring it, supplied by the use case (they need
 * the stores): `admit` refuses a denied or too old session, `revoked` names the revoked entries.
 * The digests are asked for only when the store may hold a revocation for the tenant (computing
 * them is an HMAC per form of every value: usecases/rehydrate.ts revokedIn).
 */
export interface SessionChecks {
  admit(blob: OpenedBlob): Promise<void>;
  revoked(tenant: string | null, digests: () => readonly EntryDigest[]): Promise<string[]>;
}

/** A blob opened on the event loop and checked: what a restore here (or a stream) needs. */
export interface OpenedHere {
  readonly env: RehydrateEnvironment;
  readonly session: SessionPayload;
  readonly revokedIds: string[];
}

export interface RehydrateOptions {
  /** Size of the work (UTF-16 units or body bytes) the inline-or-worker decision weighs. */
  readonly cost: number;
  /** Restore this output_json document (a value, or the raw body it stayed in) instead of `output`. */
  readonly document?: { readonly value: unknown } | { readonly source: DeferredSource };
  readonly shape?: RehydrateShape;
  readonly kinds?: readonly SessionKind[];
  /** A RAG answer: entries above the caller's clearance restore as [REDACTED]. */
  readonly clearance?: Clearance;
}

/** A restore: the response object (inline), or the body a worker serialized. */
export type RehydrateRun =
  | { readonly where: 'inline'; readonly response: RehydrateResponse | RehydrateJsonResponse; readonly session: OpenedBlob }
  | { readonly where: 'worker'; readonly result: OffloadedRehydrate; readonly session: OpenedBlob };

/** A RAG answer restore: the answer object (inline) or its serialized body (worker). */
export type AnswerRun =
  | { readonly where: 'inline'; readonly response: AnswerResponse; readonly session: OpenedBlob; readonly tokensResolved: number; readonly outputGuardTriggered: boolean | undefined }
  | { readonly where: 'worker'; readonly response: string; readonly session: OpenedBlob; readonly tokensResolved: number; readonly outputGuardTriggered: boolean | undefined };

/**
 * A JSON request body as the executor hands it back: a small one decoded here (the parser
 * records it, then parses the text: parseJsonBounded), a large one decoded, checked, parsed and
 * fingerprinted on a worker, its deferred members left raw. Returned synchronously, so a small
 * body costs no extra promise on the hot path.
 */
export type BodyRun = { readonly where: 'inline'; readonly text: string } | { readonly where: 'worker'; readonly parsed: Promise<ParsedBody> };

/** What a worker's parse of a body needs besides its bytes (asked only when the body goes there). */
export interface BodyParseTask {
  /** Top-level members left raw (the route opted in: deferDocuments). */
  readonly defer: readonly DeferrableField[];
  /** Hashed before the text for the Idempotency-Key fingerprint. */
  readonly fingerprintPrefix: string;
}

/**
 * What the HTTP layer asks of the executor before any route runs (plugins/json.ts,
 * plugins/admission.ts): the same inline-or-worker decision as every use case, so the threshold
 * is read in one place.
 */
export interface BodyOffload {
  /** Work costing more than this (UTF-16 units, or body bytes) goes to a worker thread. */
  readonly threshold: number;
  /** The inline-or-worker decision for a body of `bytes` bytes (admission charges a large one). */
  offloads(bytes: number): boolean;
  /** A JSON body's bytes: decoded here when small, parsed on a worker when large (`task` is asked only then). */
  parseBody(bytes: Uint8Array, task: () => BodyParseTask): BodyRun;
}

/** Key material of a ring as a worker thread receives it (same process). */
export function ringMaterialOf(ring: KeyRing): RingMaterial {
  return { currentKid: ring.currentKid, keys: ring.kids.map((kid) => ({ kid, key: ring.get(kid)! })) };
}

export class Executor implements BodyOffload {
  readonly #offload: Offload;
  readonly #settings: ExecutorSettings;

  constructor(offload: Offload, settings: ExecutorSettings) {
    this.#offload = offload;
    this.#settings = settings;
  }

  /** Work costing more than this (UTF-16 units, or body bytes) goes to a worker thread. */
  get threshold(): number {
    return this.#offload.threshold;
  }

  /** The inline-or-worker decision for a whole request (a batch, a RAG ingest): true above the threshold. */
  offloads(cost: number): boolean {
    return this.#offload.offloads(cost);
  }

  /** A fresh slicer for one request's loop of items on the event loop. */
  slicer(): Slicer {
    return this.#offload.slicer();
  }

  /** The transform environment of a scope, for work that runs here. */
  transformEnvironment(scope: RequestScope): TransformEnvironment {
    const registry = scope.registry;
    return {
      keyRing: scope.keyRing,
      policy: (name) => registry.get(name),
      compilePatterns: (raw) => compileCustomPatterns(raw, 'custom_patterns'),
      ...this.#settings.transform,
      nowMs: scope.nowMs,
    };
  }

  /** The restore environment of a scope, for work that runs here. */
  rehydrateEnvironment(scope: RequestScope): RehydrateEnvironment {
    const registry = scope.registry;
    return {
      keyRing: scope.keyRing,
      policy: (name) => registry.get(name),
      templates: this.#settings.templates,
      outputProtection: this.#settings.outputProtection,
      nowMs: scope.nowMs,
    };
  }

  #transformMaterial(scope: RequestScope) {
    return { ring: ringMaterialOf(scope.keyRing), policies: scope.registry.snapshot(), settings: this.#settings.transform, nowMs: scope.nowMs };
  }

  /**
   * A text transform. On a worker when `worker` is set (one item of a large batch), when the
   * text costs more than the loop may spend (transformsInline: long, or dense with values) or
   * the caller's patterns make it long to scan (patternsInline), or when the continued blob is
   * large.
   */
  async transformText(scope: RequestScope, request: TextTransformRequest, options: { readonly shape?: TransformShape; readonly worker?: boolean } = {}): Promise<TextRun> {
    // Compiling the caller's patterns here is a cache hit for the transform that follows.
    const patterns = request.customPatterns === undefined ? [] : compileCustomPatterns(request.customPatterns, 'custom_patterns');
    // The text weighed by what transforming it costs (the characters values are made of count
    // extra, against a budget of a few thresholds: transformsInline), not by its length alone.
    const large =
      options.worker === true ||
      !transformsInline(request.input, this.threshold) ||
      !patternsInline(request.input.length, patterns) ||
      this.offloads(request.sessionState?.length ?? 0);
    if (!large) return { where: 'inline', outcome: runTextTransform(this.transformEnvironment(scope), request) };
    const outcome = await this.#offload.run({ op: 'transform', request, ...this.#transformMaterial(scope), ...(options.shape !== undefined ? { shape: options.shape } : {}) });
    return { where: 'worker', outcome };
  }

  /**
   * A JSON or chat transform. On a worker when the document is large, still raw (`source`), or
   * `worker` is set; a parsed document is checked against the bounds first, so only one within
   * them is copied to the thread.
   */
  async transformStructured(
    scope: RequestScope,
    input: StructuredRequest,
    options: { readonly source?: DeferredSource | undefined; readonly shape?: TransformShape; readonly worker?: boolean } = {},
  ): Promise<StructuredRun> {
    const document = input.kind === 'json' ? input.request.inputJson : input.request.inputMessages;
    const source = options.source;
    // Like a text, the document's size weighed with the caller's patterns: a short document
    // scanned by an expensive pattern leaves the event loop too (services/offload.ts).
    const patterns = input.request.customPatterns === undefined ? [] : compileCustomPatterns(input.request.customPatterns, 'custom_patterns');
    if (source === undefined && options.worker !== true && detectsInline(jsonCost(document, this.threshold, textCost), patterns, this.threshold)) {
      return { where: 'inline', outcome: input.kind === 'json' ? runJsonTransform(this.transformEnvironment(scope), input.request) : runChatTransform(this.transformEnvironment(scope), input.request) };
    }
    if (input.kind === 'json' && source === undefined) checkJsonDocument(input.request.inputJson);
    const outcome = await this.#offload.run({
      op: 'transform-structured',
      input,
      ...(source !== undefined ? { source } : {}),
      ...this.#transformMaterial(scope),
      ...(options.shape !== undefined ? { shape: options.shape } : {}),
    });
    return { where: 'worker', outcome };
  }

  /**
   * A JSON request body (BodyOffload): decoded here up to PARSE_INLINE_FACTOR thresholds of
   * bytes; above, the bytes are copied to the worker (a memcpy), never decoded or parsed here.
   */
  parseBody(bytes: Uint8Array, task: () => BodyParseTask): BodyRun {
    if (bytes.length <= this.threshold * PARSE_INLINE_FACTOR) return { where: 'inline', text: decodeUtf8(bytes, 'body') };
    const { defer, fingerprintPrefix } = task();
    return { where: 'worker', parsed: this.#offload.run({ op: 'parse', body: bytes, limits: this.#settings.jsonLimits, defer, fingerprintPrefix }) };
  }

  /** A member the body parser left raw, parsed (and bounded) on a worker. */
  async parseMember(source: DeferredSource): Promise<unknown> {
    const parsed = await this.#offload.run({ op: 'parse', body: source.raw, limits: this.#settings.jsonLimits });
    return isPlainObject(parsed.value) ? parsed.value[source.field] : undefined;
  }

  /** Regex detection (built-in detectors and the given patterns): inline when small. */
  detect(text: string, language: string | undefined, patterns: { readonly compiled: Parameters<typeof detectsInline>[1]; readonly raw: readonly CustomPattern[] }): Promise<Detection[]> {
    return this.#offload.detect({ text, language, compiled: patterns.compiled, raw: patterns.raw });
  }

  /** /v1/detect's whole selection serialized on a worker (a large text, or an item of a large batch); undefined: run it here. */
  async detectEntities(
    input: { readonly text: string; readonly language?: string | undefined; readonly raw: readonly CustomPattern[] },
    selection: DetectSelection,
    worker: boolean,
  ): Promise<OffloadedDetection | undefined> {
    if (!worker && !this.offloads(input.text.length)) return undefined;
    return this.#offload.run({ op: 'detect-entities', text: input.text, language: input.language, defaultRegion: this.#settings.defaultRegion, patterns: input.raw, selection });
  }

  /** Open a blob here and pass the store checks: for restores that stay on the event loop (streams, files, small bodies). */
  async openHere(scope: RequestScope, sessionState: string, checks: SessionChecks, kinds: readonly SessionKind[] = REHYDRATE_KINDS, clearance?: Clearance): Promise<OpenedHere> {
    const env = this.rehydrateEnvironment(scope);
    // Read before the store checks: a revocation added from here on keeps this state's guard keys out of the cache.
    const generation = sessionFormsGeneration();
    const opened = openForRehydrate(env, sessionState, scope.tenant, kinds);
    await checks.admit(opened);
    const session = clearance !== undefined ? withinClearance(opened, clearance) : opened;
    const revokedIds = await checks.revoked(scope.tenant, () => sessionDigests(this.#settings.digestKey, session, this.#settings.defaultRegion));
    bindGuardKeys(session, sessionState, scope.tenant, revokedIds, generation);
    return { env, session, revokedIds };
  }

  /** The file pool's restore task for a session opened and checked here (usecases/files.ts): the scope's ring and policies, the restore settings. */
  fileRestoreContext(scope: RequestScope, request: RehydrateRequest, opened: OpenedHere): FileRehydrateContext {
    return {
      request,
      ring: ringMaterialOf(scope.keyRing),
      policies: scope.registry.snapshot(),
      templates: this.#settings.templates,
      outputProtection: opened.env.outputProtection,
      nowMs: scope.nowMs,
    };
  }

  /**
   * The whole restore of one request: open the blob, pass the store checks, restore. Small work
   * runs here; large work opens on a worker (one decrypt), is checked here, and is restored on a
   * worker from the opened session.
   */
  async rehydrate(scope: RequestScope, base: RehydrateRequest, checks: SessionChecks, options: RehydrateOptions): Promise<RehydrateRun> {
    const kinds = options.kinds ?? REHYDRATE_KINDS;
    // A document still in its raw body is large by construction (the parser deferred it): parsed on the worker.
    const raw = options.document !== undefined && 'source' in options.document;
    if (!raw && !this.offloads(options.cost)) {
      const started = performance.now();
      const { env, session, revokedIds } = await this.openHere(scope, base.sessionState, checks, kinds, options.clearance);
      const request = { ...base, revokedIds };
      if (options.document !== undefined) {
        const document = 'value' in options.document ? options.document.value : undefined;
        return { where: 'inline', response: restoreJsonOpened(env, session, request, document, started), session };
      }
      return { where: 'inline', response: restoreOpened(env, session, request, started), session };
    }
    const ring = ringMaterialOf(scope.keyRing);
    const opened = await this.#offload.run({
      op: 'rehydrate-open',
      sessionState: base.sessionState,
      tenant: scope.tenant,
      ring,
      digestKey: this.#settings.digestKey,
      defaultRegion: this.#settings.defaultRegion,
      nowMs: scope.nowMs,
      kinds,
    });
    const blob: OpenedBlob = { sid: opened.sid, iat: opened.iat, policy: opened.policy };
    await checks.admit(blob);
    const revokedIds = await checks.revoked(scope.tenant, () => opened.digests);
    const result = await this.#offload.run({
      op: 'rehydrate',
      // The opened session travels instead of the blob: it is not decrypted twice.
      request: { ...base, sessionState: '', revokedIds },
      session: opened.session,
      ring,
      policies: scope.registry.snapshot(),
      templates: this.#settings.templates,
      outputProtection: this.#settings.outputProtection,
      nowMs: scope.nowMs,
      ...(options.document !== undefined ? { document: options.document } : {}),
      ...(options.shape !== undefined ? { shape: options.shape } : {}),
      ...(options.clearance !== undefined ? { clearance: options.clearance } : {}),
    });
    return { where: 'worker', result, session: blob };
  }

  /** A RAG answer restored from its context session (clearance applied), inline or on workers. */
  async answer(scope: RequestScope, base: RehydrateRequest, checks: SessionChecks, kinds: readonly SessionKind[], clearance: Clearance): Promise<AnswerRun> {
    const run = await this.rehydrate(scope, base, checks, { cost: Math.max(base.output.length, base.sessionState.length), shape: 'answer', kinds, clearance });
    if (run.where === 'worker') {
      return { where: 'worker', response: jsonString(run.result.body), session: run.session, tokensResolved: run.result.tokensResolved, outputGuardTriggered: run.result.outputGuardTriggered };
    }
    const response = answerOf(run.response);
    return { where: 'inline', response, session: run.session, tokensResolved: response.tokens_resolved, outputGuardTriggered: response.output_guard?.triggered };
  }

  /** A RAG flow's pure core: here when `cost` is small, else on a worker (which serializes the response). */
  async rag<K extends keyof RagFlows>(flow: K, core: RagCore, material: () => RagCoreMaterial, cost: number, input: RagFlows[K]['input']): Promise<RagFlows[K]['output']> {
    if (!this.offloads(cost)) return RAG_CORES[flow](core, input);
    // RagTask is the union over flows; this one names `flow` and its own input.
    const task = { op: 'rag', flow, core: material(), input } as RagTask & { readonly flow: K };
    return this.#offload.run(task);
  }
}

/**
 * The output guard's search keys of an opened, checked state are kept for that state
 * (domain/guard/session-forms.ts), keyed by the tenant, the blob's key id, length and its last
 * STATE_TAIL characters: the AES-GCM tag (the blob ends with it) of a blob that opened, so it
 * authenticated under that key (no one without the key makes another blob with that tag; a SHA-256
 * of the blob cost 3 % of a 1 KB rehydrate). The record is checked value by value anyway. A state
 * with revoked entries is dropped and not kept (a revocation made by another process).
 */
/** Base64url characters of a blob's end: 32 hold its last 24 bytes, the 16-byte tag among them. */
const STATE_TAIL = 32;

function bindGuardKeys(session: SessionPayload, sessionState: string, tenant: string | null, revokedIds: readonly string[], generation: number): void {
  const kidEnd = sessionState.indexOf('.', 3);
  const state = `${tenant ?? ''}\u0000${sessionState.slice(0, kidEnd)}\u0000${sessionState.length}\u0000${sessionState.slice(-STATE_TAIL)}`;
  if (revokedIds.length > 0) dropSessionForms(state);
  else bindSessionEntries(session.entries, state, generation);
}

export type { EntryDigest } from '../services/revocation.js';
