// The JSON and chat transforms, start to finish (interface.md 4.1 JSON and chat rules): check the
// bounds and the structure before any work, open a continuation, detect and tokenize every
// text-bearing slot through one allocator, seal one session_state for the whole document, and
// build the response body. Mirrors runTextTransform (services/transform.ts): same environment,
// same outcome, same session rules; the response adds safe_json or safe_messages, and every
// entity carries a JSON Pointer `path` (spans are code points relative to the string at that
// path). Synchronous and free of Fastify: NER, which is asynchronous, runs before it over the
// slots jsonSlotTexts / chatSlotTexts list, and its results come in as `slotNer`.
import { randomUUID } from 'node:crypto';
import { applyPolicyDetection } from './ner.js';
import { VeilError } from '@veil/common';
import { regionForLanguage } from '../domain/detect/phone.js';
import { detectAll } from '../domain/detect/index.js';
import { newSessionId, openSession, sealSession, type SessionPayload } from '../domain/seal/index.js';
import {
  checkJsonDocument,
  prepareChatMessages,
  SlotScanner,
  tokenizeChatMessages,
  tokenizeJsonDocument,
  type StructuredEntity,
  type StructuredResult,
} from '../domain/structured/index.js';
import { PromptGuard, promptSecurityWarning, sessionTokenKeys } from '../domain/guard/index.js';
import { TokenAllocator } from '../domain/token/index.js';
import type { CompiledPattern } from '../domain/detect/index.js';
import type { Detection } from '../domain/types.js';
import type { LoadedPolicy } from './policies.js';
import {
  combineDetections,
  elapsedMs,
  entityContext,
  NER_DEGRADED_WARNING,
  sessionMeta,
  summary,
  transformPatterns,
  type TextTransformRequest,
  type TransformEnvironment,
  type TransformOutcome,
  type TransformResponse,
} from './transform.js';

/**
 * NER results per string slot, keyed by the slot's text as detection sees it (after prompt
 * security): what planDetectionForTexts returned for jsonSlotTexts / chatSlotTexts.
 */
export type SlotNer = ReadonlyMap<string, readonly Detection[]>;

/** The fields every structured request adds to text mode's (without `input`). */
interface StructuredFields extends Omit<TextTransformRequest, 'input'> {
  /** Required when `detection.nerRan`: NER results for every slot. */
  readonly slotNer?: SlotNer | undefined;
}

/** The validated json-mode request: text mode's fields with `input_json` instead of `input`. */
export interface JsonTransformRequest extends StructuredFields {
  /** The parsed `input_json` value (object, array, string, number, boolean or null). */
  readonly inputJson: unknown;
}

/** The validated chat-mode request: text mode's fields with `input_messages` instead of `input`. */
export interface ChatTransformRequest extends StructuredFields {
  /** The parsed `input_messages` value; validated here (interface.md 2.11). */
  readonly inputMessages: unknown;
}

/** A JSON or chat request as its transform takes it (with or without NER results yet). */
export type StructuredRequest = { readonly kind: 'json'; readonly request: JsonTransformRequest } | { readonly kind: 'chat_messages'; readonly request: ChatTransformRequest };

/** A response entity of a structured transform: the text-mode entity plus its location. */
export type StructuredEntityBody = TransformResponse['entities'][number] & {
  /** JSON Pointer into safe_json (json mode) or rooted at `/messages` (chat mode). */
  path: string;
  /** True when the entity was found in an object key (path then names that member). */
  in_key?: true;
};

export interface JsonTransformResponse extends TransformResponse {
  entities: StructuredEntityBody[];
  /** Same shape as input_json; `safe_text` is its JSON serialization. */
  safe_json: unknown;
}

export interface ChatTransformResponse extends TransformResponse {
  entities: StructuredEntityBody[];
  /** Same shape as input_messages; `safe_text` is its JSON serialization. */
  safe_messages: Record<string, unknown>[];
}

export interface JsonTransformOutcome extends TransformOutcome {
  readonly response: JsonTransformResponse;
}

export interface ChatTransformOutcome extends TransformOutcome {
  readonly response: ChatTransformResponse;
}

function entityBody(entity: StructuredEntity): StructuredEntityBody {
  return {
    token: entity.token,
    type: entity.type,
    protection_level: entity.protection_level,
    action_applied: entity.action_applied,
    confidence: entity.confidence,
    detector: entity.detector,
    span: { start: entity.span.start, end: entity.span.end },
    path: entity.path,
    ...(entity.in_key === true ? { in_key: true as const } : {}),
  };
}

interface StructuredRun<T> {
  readonly response: TransformResponse & { entities: StructuredEntityBody[] };
  readonly safe: T;
  readonly sessionState: string;
  readonly meta: TransformOutcome['meta'];
}

/** The session, policy and detection settings of a structured request, before any walk. */
interface Opened {
  readonly previous: SessionPayload | undefined;
  readonly loaded: LoadedPolicy;
  readonly language: string;
  readonly patterns: readonly CompiledPattern[];
  readonly guard: PromptGuard | undefined;
}

function openStructured(env: TransformEnvironment, request: Omit<TextTransformRequest, 'input'>): Opened {
  const nowSeconds = Math.floor(env.nowMs / 1000);
  const previous: SessionPayload | undefined =
    request.sessionState !== undefined
      ? openSession(env.keyRing, request.sessionState, { kinds: ['transform'], tenant: request.tenant }, nowSeconds)
      : undefined;
  if (previous !== undefined && request.policy !== undefined && request.policy !== previous.policy) {
    throw new VeilError('VEIL_VALIDATION_FAILED', "policy: does not match the session's policy");
  }
  const loaded = env.policy(request.policy ?? previous?.policy);
  const language = request.language ?? previous?.language ?? env.defaultLanguage;
  const patterns = transformPatterns(env, loaded, request);

  const previousEntries = previous?.entries ?? [];
  // Prompt security on every string slot (values, keys, chat contents, tool-call arguments);
  // the continued session's own tokens are left alone.
  const guard =
    env.promptSecurity !== undefined
      ? new PromptGuard(env.promptSecurity.action, previousEntries.length > 0 ? sessionTokenKeys(previousEntries) : undefined)
      : undefined;
  return { previous, loaded, language, patterns, guard };
}

/**
 * The texts NER must see for a structured request: every distinct string slot (values, keys,
 * chat contents and names, tool-call argument strings and keys) as the walk will detect on it,
 * i.e. after prompt security. Found by walking the document once with no detection, so the set
 * is exactly the walk's (numbers are regex-only and not included). Throws what the transform
 * would throw first (bounds, validation, session, prompt rejection).
 */
function slotTexts(env: TransformEnvironment, request: Omit<TextTransformRequest, 'input'>, field: string, walk: (scanner: SlotScanner) => unknown): string[] {
  const opened = openStructured(env, request);
  const texts = new Set<string>();
  const guard = opened.guard;
  walk(
    new SlotScanner({
      detect: () => [],
      detectText: (text) => {
        texts.add(text);
        return [];
      },
      policy: opened.loaded.compiled,
      context: request.context,
      allocator: new TokenAllocator(opened.previous?.entries ?? []),
      ...(guard !== undefined ? { screen: (text: string) => guard.screen(text, field) } : {}),
    }),
  );
  return [...texts];
}

/** The string slots of an input_json document that NER must see (see slotTexts). */
export function jsonSlotTexts(env: TransformEnvironment, request: JsonTransformRequest): string[] {
  checkJsonDocument(request.inputJson);
  return slotTexts(env, request, 'input_json', (scanner) => tokenizeJsonDocument(request.inputJson, scanner));
}

/** The string slots of input_messages that NER must see (see slotTexts). */
export function chatSlotTexts(env: TransformEnvironment, request: ChatTransformRequest): string[] {
  const prepared = prepareChatMessages(request.inputMessages);
  return slotTexts(env, request, 'input_messages', (scanner) => tokenizeChatMessages(prepared, scanner));
}

/** Everything after the structure check: the same steps as runTextTransform, over slots. */
function runStructured<T>(
  env: TransformEnvironment,
  request: StructuredFields,
  started: number,
  field: string,
  walk: (scanner: SlotScanner) => StructuredResult<T>,
): StructuredRun<T> {
  const nowSeconds = Math.floor(env.nowMs / 1000);
  const { previous, loaded, language, patterns, guard } = openStructured(env, request);
  const policy = loaded.compiled.policy;
  const plan = request.detection;
  // A policy that requires NER fails closed here when NER did not run.
  applyPolicyDetection(policy, plan ?? { nerRan: false, ner: [] });
  const slotNer = request.slotNer;
  if (plan?.nerRan === true && slotNer === undefined) throw new VeilError('VEIL_INTERNAL', undefined, 'structured transform: NER ran without slot results');
  const regex = (text: string) => detectAll(text, { customPatterns: patterns, language, defaultRegion: env.defaultRegion });
  const previousEntries = previous?.entries ?? [];
  const scanner = new SlotScanner({
    // Numbers: the regex detectors only (a bare number holds no name).
    detect: (text) => combineDetections(text, regex(text), plan !== undefined ? { ...plan, ner: [] } : undefined, policy),
    detectText: (text) => {
      if (plan === undefined || !plan.nerRan) return combineDetections(text, regex(text), plan, policy);
      const ner = slotNer?.get(text);
      // Every slot was planned from the same walk; a slot without results is a wiring error.
      if (ner === undefined) throw new VeilError('VEIL_INTERNAL', undefined, 'structured transform: a slot has no NER result');
      return combineDetections(text, regex(text), { ...plan, ner }, policy);
    },
    policy: loaded.compiled,
    context: request.context,
    allocator: new TokenAllocator(previousEntries, undefined, regionForLanguage(language, env.defaultRegion)),
    protectionOverrides: request.protectionOverrides,
    ...(guard !== undefined ? { screen: (text: string) => guard.screen(text, field) } : {}),
  });
  // Detection and tokenization interleave slot by slot, so detection time is not separable;
  // it is reported as the time of the whole walk.
  const walkStarted = performance.now();
  const result = walk(scanner);
  const walkMs = elapsedMs(walkStarted);

  // A continued session's entries that became parts of a split value here carry its wholes too.
  const allEntries = [...scanner.linked(previousEntries), ...scanner.newEntries];
  const payload: SessionPayload = {
    sid: previous?.sid ?? newSessionId(),
    kind: 'transform',
    tenant: request.tenant,
    language,
    policy: loaded.compiled.name,
    policyVersion: loaded.compiled.version,
    counter: (previous?.counter ?? 0) + 1,
    iat: nowSeconds,
    exp: nowSeconds + env.ttlSeconds,
    entries: allEntries,
  };
  const sessionState = sealSession(env.keyRing, payload);

  const items = entityContext(env.contextStrategy, env.maxContextTokens, allEntries, result.entities);
  const response: TransformResponse & { entities: StructuredEntityBody[] } = {
    safe_text: JSON.stringify(result.value),
    entities: result.entities.map(entityBody),
    stats: {
      entities_detected: scanner.detected,
      entities_transformed: scanner.transformed,
      entities_blocked: scanner.blocked,
      detection_time_ms: walkMs,
      transform_time_ms: 0,
    },
    detector_mode: plan?.detectorMode ?? 'builtin_regex',
    warnings: plan !== undefined ? [...plan.warnings] : [NER_DEGRADED_WARNING],
    policy_version: loaded.compiled.version,
    trace_id: request.traceId ?? randomUUID(),
  };
  if (guard !== undefined) {
    response.prompt_security = guard.summary();
    const warning = promptSecurityWarning(response.prompt_security);
    if (warning !== undefined) response.warnings = [...(response.warnings ?? []), warning];
  }
  if (response.warnings?.length === 0) delete response.warnings;
  if (items !== undefined) response.entity_context = items;
  if (env.contextStrategy !== 'none') response.entity_summary = summary(result.entities);
  response.stats.transform_time_ms = elapsedMs(started);
  return {
    response,
    safe: result.value,
    sessionState,
    meta: sessionMeta(payload, previous),
  };
}

/**
 * input_type `json`. The bounds (64 levels, 10,000 slots, 1 MB of text) are checked before the
 * session is opened or anything is detected. Throws VeilError: VEIL_PAYLOAD_TOO_LARGE,
 * VEIL_VALIDATION_FAILED (not JSON, key collision, policy mismatch), VEIL_POLICY_DENIED,
 * VEIL_SESSION_EXPIRED.
 */
export function runJsonTransform(env: TransformEnvironment, request: JsonTransformRequest): JsonTransformOutcome {
  const started = performance.now();
  checkJsonDocument(request.inputJson);
  const run = runStructured(env, request, started, 'input_json', (scanner) => tokenizeJsonDocument(request.inputJson, scanner));
  return { response: { ...run.response, safe_json: run.safe }, sessionState: run.sessionState, meta: run.meta };
}

/**
 * input_type `chat_messages`. The messages are validated and the bounds checked (over all
 * messages, tool-call arguments included) before the session is opened or anything is
 * detected. Throws like runJsonTransform.
 */
export function runChatTransform(env: TransformEnvironment, request: ChatTransformRequest): ChatTransformOutcome {
  const started = performance.now();
  const prepared = prepareChatMessages(request.inputMessages);
  const run = runStructured(env, request, started, 'input_messages', (scanner) => tokenizeChatMessages(prepared, scanner));
  return { response: { ...run.response, safe_messages: run.safe }, sessionState: run.sessionState, meta: run.meta };
}
