// Worker-thread entry for work too large for the event loop: JSON parsing of large bodies,
// detection, and whole text transforms and rehydrates. The thread lowers its own scheduling
// priority (on Linux setpriority(0) applies to the calling thread only), so when it shares a
// core with the event loop the event loop wins and small requests keep their latency.
// Results cross back as plain data; errors as {code, message} so VeilError survives the hop.
import { createHash } from 'node:crypto';
import { setPriority } from 'node:os';
import { isVeilError, type Policy } from '@veil/common';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { compileCustomPatterns, detectAll, type CompiledPattern } from '../domain/detect/index.js';
import { parseJsonBounded, parseJsonText, type JsonStructureLimits } from '../domain/json-depth.js';
import { withinClearance, type Clearance } from '../domain/rag/classification.js';
import { isPlainObject } from '../domain/structured/limits.js';
import { decodeUtf8 } from '../domain/text/utf8.js';
import { KeyRing, openSession, type SessionKind, type SessionPayload } from '../domain/seal/index.js';
import type { CustomPattern, Detection } from '../domain/types.js';
import { compilePolicy, PolicyRegistry } from '../services/policies.js';
import { answerOf, openForRehydrate, REHYDRATE_KINDS, restoreJsonOpened, restoreOpened, type RehydrateRequest } from '../services/rehydrate.js';
import { RAG_CORES, type RagCore, type RagFlows, type RagTask } from '../services/rag.js';
import { sessionDigests, type EntryDigest } from '../services/revocation.js';
import { batchItemFields, runTextTransform, type ContextStrategy, type SessionMeta, type TextTransformRequest, type TransformEnvironment, type TransformOutcome } from '../services/transform.js';
import { runChatTransform, runJsonTransform, type StructuredRequest } from '../services/structured.js';
import { detectSerialized, type DetectSelection } from '../services/detect.js';
import { transformFrames } from '../services/frames.js';
import { toJsonText, transferablesOf, type JsonText } from '../services/json-text.js';
import { splitSegments } from '../domain/stream/index.js';
import type { OutputProtectionSettings } from '../services/output-guard.js';
import type { PromptSecuritySettings } from '../services/prompt-security.js';
import { transformFacts, type AuditFacts } from '../audit/facts.js';
import type { RestoreTemplates } from '../domain/restore/index.js';

try {
  setPriority(19);
} catch {
  // Not permitted or not supported: run at normal priority.
}

export interface RingMaterial {
  readonly currentKid: string;
  readonly keys: readonly { kid: string; key: Uint8Array }[];
}

export interface PolicySnapshot {
  /** Identity of the registry the policies came from; the compiled set is cached by it. */
  readonly key: string;
  readonly defaultName: string;
  readonly policies: readonly Policy[];
  /** The caller's tenant's allowed policy names (tenant settings); absent: every policy. */
  readonly allowed?: readonly string[];
}

/** The transform settings a worker needs (from the configuration). */
export interface TransformTaskSettings {
  defaultLanguage: string;
  defaultRegion: string;
  ttlSeconds: number;
  contextStrategy: ContextStrategy;
  maxContextTokens: number;
  promptSecurity?: PromptSecuritySettings | undefined;
}

/**
 * How a worker serializes a transform: `response` the body without its session handle;
 * `frames` the /v1/transform/stream frames and the body without safe_text and entities;
 * `batch-item` the fields of a /v1/batch/transform item.
 */
export type TransformShape = 'response' | 'frames' | 'batch-item';

/**
 * How a worker serializes a restore: `response` the /v1/rehydrate body; `segments` the restored
 * text cut for /v1/rehydrate/stream and the body without it; `answer` the /v1/rag/answer body.
 */
export type RehydrateShape = 'response' | 'segments' | 'answer';

export type OffloadTask =
  | {
      /** A large JSON body: its bytes, decoded, checked, parsed and fingerprinted here. */
      readonly op: 'parse';
      readonly body: Uint8Array;
      readonly limits: JsonStructureLimits;
      /** Top-level members left out of the result (large documents the event loop never needs as objects). */
      readonly defer?: readonly DeferrableField[];
      /** Hashed before the text for the Idempotency-Key fingerprint (plugins/json.ts); absent: no fingerprint. */
      readonly fingerprintPrefix?: string;
    }
  | {
      /** /v1/detect and /v1/batch/detect for a large text: detect, select, serialize. */
      readonly op: 'detect-entities';
      readonly text: string;
      readonly language?: string | undefined;
      readonly defaultRegion: string;
      readonly patterns: readonly CustomPattern[];
      readonly selection: DetectSelection;
    }
  | {
      readonly op: 'detect';
      readonly text: string;
      readonly language?: string | undefined;
      readonly defaultRegion: string;
      readonly patterns: readonly CustomPattern[];
    }
  | {
      readonly op: 'transform';
      readonly request: TextTransformRequest;
      readonly ring: RingMaterial;
      readonly policies: PolicySnapshot;
      readonly settings: TransformTaskSettings;
      readonly nowMs: number;
      /** What the body holds: the response (default), stream frames, or a batch item's fields. */
      readonly shape?: TransformShape;
    }
  | {
      /** input_json and input_messages transforms of a large document. */
      readonly op: 'transform-structured';
      readonly input: StructuredRequest;
      /** The input_json document, when it stayed raw (its request's inputJson is then ignored). */
      readonly source?: DeferredSource;
      readonly ring: RingMaterial;
      readonly policies: PolicySnapshot;
      readonly settings: TransformTaskSettings;
      readonly nowMs: number;
      readonly shape?: TransformShape;
    }
  | {
      /** First half of a large rehydrate: open the session and list each entry's digest. */
      readonly op: 'rehydrate-open';
      readonly sessionState: string;
      readonly tenant: string | null;
      readonly ring: RingMaterial;
      readonly digestKey: Uint8Array;
      /** detector.default_region (revocation forms of national phone numbers). */
      readonly defaultRegion: string;
      readonly nowMs: number;
      readonly kinds?: readonly SessionKind[];
    }
  | {
      readonly op: 'rehydrate';
      readonly request: RehydrateRequest;
      /** The session a 'rehydrate-open' task opened (so the blob is decrypted once); absent: open `request.sessionState` here. */
      readonly session?: SessionPayload;
      readonly ring: RingMaterial;
      readonly policies: PolicySnapshot;
      readonly templates?: RestoreTemplates | undefined;
      readonly outputProtection?: OutputProtectionSettings | undefined;
      readonly nowMs: number;
      /** Session kinds the blob may be (default: transform and batch; RAG answers: context). */
      readonly kinds?: readonly SessionKind[];
      /** Restore this output_json document instead of `request.output` (or the raw body it stayed in). */
      readonly document?: { readonly value: unknown } | { readonly source: DeferredSource };
      readonly shape?: RehydrateShape;
      /** A RAG answer: the answering caller's clearance (entries above it restore as [REDACTED]). */
      readonly clearance?: Clearance;
    }
  | RagTask;

/** Result of 'transform': the body without its session handle, the blob, and session meta. */
export interface OffloadedTransform {
  /** Bytes when long (services/json-text.ts); always a string for the batch-item and frames shapes. */
  readonly body: JsonText;
  /** With `frames`: the stream frames, each serialized, and the body without safe_text and entities. */
  readonly frames?: string[];
  readonly sessionState: string;
  readonly meta: SessionMeta;
  /** Audit facts of the result (types and counts), so the event loop need not parse the body. */
  readonly facts: AuditFacts;
  /** The input after prompt security stripped it, when that changed it (spans refer to it). */
  readonly cleanedInput?: string;
}

/** Result of 'rehydrate': the serialized response and the facts the event loop records. */
export interface OffloadedRehydrate {
  /** Bytes when long (services/json-text.ts); always a string for the segments shape. */
  readonly body: JsonText;
  /** undefined when the output guard is disabled. */
  readonly outputGuardTriggered: boolean | undefined;
  readonly tokensResolved: number;
  /** With `segments`: the restored text cut for the stream, and the body without restored_text. */
  readonly segments?: string[];
}

/** Result of 'detect-entities': the serialized entity list and what the audit event needs. */
export interface OffloadedDetection {
  readonly entitiesJson: JsonText;
  readonly count: number;
  readonly typeCounts: Record<string, number>;
}

/** What each task resolves to: `run` is typed by the task's op. */
/** Result of 'parse': the body, which deferred members were in it, and its fingerprint. */
export interface ParsedBody {
  readonly value: unknown;
  readonly deferred: DeferrableField[];
  readonly fingerprint: string;
}

/** Members of a large body that may stay raw text until the worker that processes them. */
export type DeferrableField = 'input_json' | 'output_json';

/** A deferred member: the whole raw body (bytes), parsed again where the member is processed. */
export interface DeferredSource {
  readonly raw: Uint8Array;
  readonly field: DeferrableField;
}

/** A member of a deferred source, parsed (on a worker; the body was checked when it arrived). */
export function deferredValue(source: DeferredSource): unknown {
  const body = parseJsonText(decodeUtf8(source.raw, 'body'));
  return isPlainObject(body) ? body[source.field] : undefined;
}

export interface OffloadValues {
  parse: ParsedBody;
  detect: Detection[];
  'detect-entities': OffloadedDetection;
  transform: OffloadedTransform;
  'transform-structured': OffloadedTransform;
  'rehydrate-open': OpenedForRehydrate;
  rehydrate: OffloadedRehydrate;
  rag: RagFlows[keyof RagFlows]['output'];
}
export type OffloadValue<T extends OffloadTask> = T extends RagTask ? RagFlows[T['flow']]['output'] : OffloadValues[T['op']];

/** Result of 'rehydrate-open'. */
export interface OpenedForRehydrate {
  readonly sid: string;
  /** Issue time, unix seconds (the lifetime bound of services/state.ts assertNotDenied). */
  readonly iat: number;
  /** The session's policy name (for the audit event). */
  readonly policy?: string;
  readonly expiresAtMs: number;
  readonly digests: readonly EntryDigest[];
  /** The opened session, for the restore task that follows (it is not decrypted again). */
  readonly session: SessionPayload;
}

export type OffloadResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly code: string; readonly message: string; readonly detail?: string | undefined };

const patternCache = new Map<string, CompiledPattern[]>();
function compiled(patterns: readonly CustomPattern[]): CompiledPattern[] {
  if (patterns.length === 0) return [];
  const key = JSON.stringify(patterns);
  let set = patternCache.get(key);
  if (set === undefined) {
    set = compileCustomPatterns(patterns);
    if (patternCache.size > 256) patternCache.clear();
    patternCache.set(key, set);
  }
  return set;
}

// Rings by material hash: each tenant has its own ring (session.keyring_directory), so a few are
// kept (most recently used last) instead of rebuilding one ring per call when tenants alternate.
const cachedRings = new Map<string, KeyRing>();
const MAX_CACHED_RINGS = 16;
/** Shared with workers/files-worker.ts. */
export function ringOf(material: RingMaterial): KeyRing {
  const hash = createHash('sha256');
  hash.update(material.currentKid);
  for (const entry of material.keys) hash.update(`\n${entry.kid}\n`).update(entry.key);
  const key = hash.digest('hex');
  let ring = cachedRings.get(key);
  if (ring === undefined) {
    ring = new KeyRing(material.currentKid, material.keys.map((entry) => ({ kid: entry.kid, key: Buffer.from(entry.key) })));
    if (cachedRings.size >= MAX_CACHED_RINGS) cachedRings.delete(cachedRings.keys().next().value!);
  } else {
    cachedRings.delete(key);
  }
  cachedRings.set(key, ring);
  return ring;
}

let cachedRegistry: { key: string; registry: PolicyRegistry } | undefined;
/** Shared with workers/files-worker.ts. */
export function registryOf(snapshot: PolicySnapshot): PolicyRegistry {
  if (cachedRegistry?.key !== snapshot.key) {
    const loaded = new Map(snapshot.policies.map((policy) => [policy.name, compilePolicy(policy, policy.name)]));
    cachedRegistry = { key: snapshot.key, registry: new PolicyRegistry(loaded, snapshot.defaultName, 0, snapshot.key) };
  }
  // The tenant's restriction travels with the snapshot, so a worker refuses what the event loop would.
  return cachedRegistry.registry.restrictedTo(snapshot.allowed);
}

/** The transform environment of a task, from the material the event loop sent. */
function transformEnvOf(task: { ring: RingMaterial; policies: PolicySnapshot; settings: TransformTaskSettings; nowMs: number }): TransformEnvironment {
  const registry = registryOf(task.policies);
  return {
    keyRing: ringOf(task.ring),
    policy: (name) => registry.get(name),
    compilePatterns: (raw) => compiled(raw),
    ...task.settings,
    nowMs: task.nowMs,
  };
}

/** A transform outcome as the event loop takes it: serialized here, so it only copies strings. */
function offloadedTransform(outcome: TransformOutcome, shape: TransformShape = 'response', input = ''): OffloadedTransform {
  const response = outcome.response;
  const promptSecurity = response.prompt_security;
  const facts = { ...transformFacts(response), ...(promptSecurity !== undefined ? { prompt_security: promptSecurity.triggered } : {}) };
  const base = { sessionState: outcome.sessionState, meta: outcome.meta, facts, ...(outcome.cleanedInput !== undefined ? { cleanedInput: outcome.cleanedInput } : {}) };
  switch (shape) {
    case 'response':
      return { ...base, body: toJsonText(JSON.stringify(response)) };
    case 'batch-item':
      return { ...base, body: JSON.stringify(batchItemFields(response)) };
    case 'frames': {
      const { safe_text: _safeText, entities, ...rest } = response;
      const cut = transformFrames(outcome.cleanedInput ?? input, entities);
      return { ...base, body: JSON.stringify(rest), frames: cut.map((frame) => JSON.stringify(frame)) };
    }
  }
}

/** A RAG flow's pure half, its response serialized here (the event loop splices the handle in). */
function runRagTask(task: RagTask): unknown {
  const material = task.core;
  const registry = registryOf(material.policies);
  const core: RagCore = {
    keyRing: ringOf(material.ring),
    policy: registry.get(material.policyName),
    corpusKeys: { idKey: Buffer.from(material.corpusKeys.idKey), capKey: Buffer.from(material.corpusKeys.capKey) },
    promptSecurity: material.promptSecurity,
    tenant: material.tenant,
    context: material.context,
    language: material.language,
    defaultRegion: material.defaultRegion,
    nowMs: material.nowMs,
  };
  if (task.flow === 'screen') return RAG_CORES.screen(core, task.input);
  const sealed = task.flow === 'ingest' ? RAG_CORES.ingest(core, task.input) : task.flow === 'query' ? RAG_CORES.query(core, task.input) : RAG_CORES.context(core, task.input);
  return { ...sealed, response: JSON.stringify(sealed.response) };
}

function execute(task: OffloadTask): unknown {
  switch (task.op) {
    case 'parse': {
      const text = decodeUtf8(task.body, 'body');
      const value = parseJsonBounded(text, task.limits);
      const fingerprint = task.fingerprintPrefix === undefined ? '' : createHash('sha256').update(task.fingerprintPrefix).update(text).digest('hex');
      const deferred: DeferrableField[] = [];
      if (task.defer !== undefined && isPlainObject(value)) {
        for (const field of task.defer) {
          if (!Object.hasOwn(value, field)) continue;
          // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- a fixed, known member name
          delete value[field];
          deferred.push(field);
        }
      }
      return { value, deferred, fingerprint } satisfies ParsedBody;
    }
    case 'detect':
      return detectAll(task.text, {
        customPatterns: compiled(task.patterns),
        defaultRegion: task.defaultRegion,
        ...(task.language !== undefined ? { language: task.language } : {}),
      }) satisfies Detection[];
    case 'detect-entities':
      return detectSerialized(task.text, { language: task.language, defaultRegion: task.defaultRegion, patterns: compiled(task.patterns) }, task.selection) satisfies OffloadedDetection;
    case 'transform': {
      const outcome = runTextTransform(transformEnvOf(task), task.request);
      return offloadedTransform(outcome, task.shape, task.request.input);
    }
    case 'transform-structured': {
      const env = transformEnvOf(task);
      const input = task.input;
      const outcome =
        input.kind === 'json'
          ? runJsonTransform(env, task.source !== undefined ? { ...input.request, inputJson: deferredValue(task.source) } : input.request)
          : runChatTransform(env, input.request);
      return offloadedTransform(outcome, task.shape);
    }
    case 'rehydrate-open': {
      const session = openSession(ringOf(task.ring), task.sessionState, { kinds: task.kinds ?? REHYDRATE_KINDS, tenant: task.tenant }, Math.floor(task.nowMs / 1000));
      return {
        sid: session.sid,
        iat: session.iat,
        policy: session.policy,
        expiresAtMs: session.exp * 1000,
        digests: sessionDigests(Buffer.from(task.digestKey), session, task.defaultRegion),
        session,
      } satisfies OpenedForRehydrate;
    }
    case 'rehydrate': {
      const started = performance.now();
      const registry = registryOf(task.policies);
      const env = {
        keyRing: ringOf(task.ring),
        policy: (name: string | undefined) => registry.get(name),
        templates: task.templates,
        outputProtection: task.outputProtection,
        nowMs: task.nowMs,
      };
      const opened = task.session ?? openForRehydrate(env, task.request.sessionState, task.request.tenant, task.kinds);
      const session = task.clearance !== undefined ? withinClearance(opened, task.clearance) : opened;
      if (task.document !== undefined) {
        const document = 'source' in task.document ? deferredValue(task.document.source) : task.document.value;
        const response = restoreJsonOpened(env, session, task.request, document, started);
        return { body: toJsonText(JSON.stringify(response)), outputGuardTriggered: response.output_guard?.triggered, tokensResolved: response.tokens_resolved } satisfies OffloadedRehydrate;
      }
      const response = restoreOpened(env, session, task.request, started);
      const facts = { outputGuardTriggered: response.output_guard?.triggered, tokensResolved: response.tokens_resolved };
      const shape = task.shape ?? 'response';
      if (shape === 'segments') {
        const { restored_text: restored, ...rest } = response;
        return { body: JSON.stringify(rest), segments: splitSegments(restored).map((segment) => segment.text), ...facts } satisfies OffloadedRehydrate;
      }
      return { body: toJsonText(JSON.stringify(shape === 'answer' ? answerOf(response) : response)), ...facts } satisfies OffloadedRehydrate;
    }
    case 'rag':
      return runRagTask(task);
  }
}

export default function run(task: OffloadTask): OffloadResult {
  try {
    const value = execute(task);
    // Long serialized answers are bytes: moved to the event loop, not copied (json-text.ts).
    const transfer = transferablesOf(value);
    if (transfer.length === 0) return { ok: true, value };
    return move({ [transferableSymbol]: transfer, [valueSymbol]: { ok: true, value } }) as unknown as OffloadResult;
  } catch (error) {
    if (isVeilError(error)) return { ok: false, code: error.code, message: error.message, detail: error.detail };
    return { ok: false, code: 'VEIL_INTERNAL', message: 'internal error', detail: error instanceof Error ? error.name : 'unknown' };
  }
}
