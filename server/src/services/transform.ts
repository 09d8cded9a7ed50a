// The text transform, start to finish: open a continuation, detect, apply the policy, tokenize,
// seal, and build the response body. One function used in two places: inline on the event loop
// for small inputs, and on a worker thread for large ones (services/offload.ts), so a 1 MB
// request never blocks the small requests behind it. Synchronous and free of Fastify.
import { randomUUID } from 'node:crypto';
import { VeilError, type Policy } from '@veil/common';
import { exposedMetadata, withMetadata, type EntityMetadata } from './metadata.js';
import { applyPolicyDetection, NER_DEGRADED_WARNING, type NerFailure } from './ner.js';
import { checkRequestedTypes } from '../domain/catalog.js';
import { detectAll, type CompiledPattern } from '../domain/detect/index.js';
import { regionForLanguage } from '../domain/detect/phone.js';
import { resolveOverlaps } from '../domain/detect/overlap.js';
import { dropLabelSpans } from '../domain/detect/ner-filter.js';
import { dropNonIdentifying, nonIdentifyingFor } from '../domain/detect/identifying.js';
import { openSession, newSessionId, sealSession, type KeyRing, type SessionPayload } from '../domain/seal/index.js';
import { renderToken, TokenAllocator } from '../domain/token/index.js';
import { tokenizeText } from '../domain/tokenize.js';
import { utf16ToCodePoints } from '../domain/text/codepoints.js';
import type { Detection, RequestContext, RestoreMode, TokenEntry } from '../domain/types.js';
import type { LoadedPolicy } from './policies.js';
import { promptSecurityWarning, type PromptSecuritySummary } from '../domain/guard/index.js';
import { screenPromptText, type PromptSecuritySettings } from './prompt-security.js';

export { NER_DEGRADED_WARNING } from './ner.js';

export type ContextStrategy = 'full' | 'type_summary' | 'referenced_only' | 'none';

/** What the transform needs from its surroundings; plain data plus two lookups. */
export interface TransformEnvironment {
  readonly keyRing: KeyRing;
  /** The named policy, or the default; throws VeilError for an unknown name. */
  readonly policy: (name: string | undefined) => LoadedPolicy;
  readonly compilePatterns: (raw: readonly RequestPattern[]) => CompiledPattern[];
  readonly defaultLanguage: string;
  /** detector.default_region: national phone numbers and numeric dates when the language names no region. */
  readonly defaultRegion: string;
  readonly ttlSeconds: number;
  readonly contextStrategy: ContextStrategy;
  readonly maxContextTokens: number;
  readonly nowMs: number;
  /** Prompt security settings; undefined when prompt_security is disabled. */
  readonly promptSecurity?: PromptSecuritySettings | undefined;
}

export interface RequestPattern {
  readonly entity_type: string;
  readonly pattern: string;
  readonly confidence?: number;
  readonly context_words?: readonly string[];
}

/** The validated text-mode request, already stripped to what the transform reads. */
export interface TextTransformRequest {
  readonly input: string;
  readonly language?: string | undefined;
  readonly policy?: string | undefined;
  readonly sessionState?: string | undefined;
  readonly customPatterns?: readonly RequestPattern[] | undefined;
  readonly protectionOverrides?: Readonly<Record<string, RestoreMode>> | undefined;
  readonly context: RequestContext;
  readonly tenant: string | null;
  readonly traceId?: string | undefined;
  /** Detector plan from services/ner.ts; absent means regex only with the degraded warning. */
  readonly detection?: {
    readonly useRegex: boolean;
    readonly nerRan: boolean;
    readonly nerFailure?: NerFailure | undefined;
    readonly ner: readonly Detection[];
    readonly detectorMode: string;
    readonly warnings: readonly string[];
  };
  /**
   * Set when the caller already ran prompt security on `input` (before NER, which must see the
   * cleaned text): the transform reports this summary instead of screening again.
   */
  readonly promptScreened?: PromptSecuritySummary | undefined;
}

/**
 * The custom patterns a transform detects with: the policy's, then the request's. The request's
 * `protection_overrides` keys are checked against them and the catalog here (every input mode
 * comes through), so a key naming no type is a 400 instead of an override that never applies.
 */
export function transformPatterns(
  env: Pick<TransformEnvironment, 'compilePatterns'>,
  loaded: LoadedPolicy,
  request: Pick<TextTransformRequest, 'customPatterns' | 'protectionOverrides'>,
): readonly CompiledPattern[] {
  const requested = request.customPatterns ?? [];
  const patterns = requested.length > 0 ? [...loaded.patterns, ...env.compilePatterns(requested)] : loaded.patterns;
  if (request.protectionOverrides !== undefined) {
    const customTypes = new Set(patterns.map((pattern) => pattern.type));
    checkRequestedTypes(Object.keys(request.protectionOverrides), customTypes, () => 'protection_overrides');
  }
  return patterns;
}

/** Regex and custom-pattern detections merged with NER ones (see mergeDetections). */
export function mergedDetections(
  text: string,
  patterns: readonly CompiledPattern[],
  language: string,
  defaultRegion: string,
  plan: TextTransformRequest['detection'],
  policy: Policy,
): Detection[] {
  return combineDetections(text, detectAll(text, { customPatterns: patterns, language, defaultRegion }), plan, policy);
}

/**
 * The second half of mergedDetections, for callers that ran the regex detectors elsewhere (on a
 * worker thread for a large RAG document): the policy's NER control, then the merge.
 */
export function combineDetections(text: string, regex: Detection[], plan: TextTransformRequest['detection'], policy: Policy): Detection[] {
  const ner = applyPolicyDetection(policy, plan ?? { nerRan: false, ner: [] });
  const released = nonIdentifyingFor(policy);
  if (plan === undefined) return dropNonIdentifying(text, regex, released);
  // Without builtin_regex only the caller's and policy's own patterns run.
  const kept = plan.useRegex ? regex : regex.filter((detection) => detection.detector === 'custom_pattern');
  // Addresses and URLs that identify no one leave only after the merge: a public URL has claimed
  // its span, so no name or number inside it is reported on its own (domain/detect/identifying.ts).
  return dropNonIdentifying(text, ner.length === 0 ? kept : mergeDetections(kept, ner), released);
}

/**
 * Overlaps between regex and NER spans resolve in domain/detect/overlap.ts: a built-in or custom
 * detection at or above the reporting threshold keeps its whole span against an NER label (an
 * IPv6 address is never cut around a "person"), and an NER span keeps only what lies outside it,
 * so no part of either value is left raw. NER spans are otherwise kept as the model gives them
 * (no extension over titles such as "Dr."). Field labels the model mistook for names ("Email"
 * before an email) are dropped first (domain/detect/ner-filter.ts).
 */
export function mergeDetections(regex: readonly Detection[], ner: readonly Detection[]): Detection[] {
  return resolveOverlaps([...regex, ...dropLabelSpans(ner, regex)]);
}

/** The response body without its session handle, which the route adds (blob or server-side id). */
export interface TransformResponse {
  safe_text: string;
  entity_context?: ({ token: string; type: string } & EntityMetadata)[];
  entities: ({
    token: string;
    type: string;
    protection_level: string;
    action_applied: string;
    confidence: number;
    detector: string;
    span: { start: number; end: number };
  } & EntityMetadata)[];
  entity_summary?: Record<string, number>;
  stats: {
    entities_detected: number;
    entities_transformed: number;
    entities_blocked: number;
    detection_time_ms: number;
    transform_time_ms: number;
  };
  detector_mode: string;
  warnings?: string[];
  /** Present when prompt security is enabled (counts only, never the text). */
  prompt_security?: PromptSecuritySummary;
  policy_version: string;
  trace_id: string;
}

export function elapsedMs(start: number): number {
  return Math.round((performance.now() - start) * 1000) / 1000;
}

/** A tokenized or redacted occurrence, as entity_context and entity_summary need it. */
export interface Occurrence {
  readonly token: string;
  readonly type: string;
  readonly action_applied: string;
}

export function entityContext(
  strategy: ContextStrategy,
  limit: number,
  allEntries: readonly TokenEntry[],
  entities: readonly Occurrence[],
): ({ token: string; type: string } & EntityMetadata)[] | undefined {
  switch (strategy) {
    case 'full':
      return allEntries.slice(0, limit).map((entry) => ({ token: renderToken(entry), type: entry.type }));
    case 'referenced_only': {
      const seen = new Set<string>();
      const items: ({ token: string; type: string } & EntityMetadata)[] = [];
      for (const entity of entities) {
        if (entity.action_applied !== 'tokenize' || seen.has(entity.token)) continue;
        seen.add(entity.token);
        items.push({ token: entity.token, type: entity.type });
        if (items.length >= limit) break;
      }
      return items;
    }
    case 'type_summary':
    case 'none':
      return undefined;
  }
}

export function summary(entities: readonly Occurrence[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const entity of entities) counts[entity.type] = (counts[entity.type] ?? 0) + 1;
  return counts;
}

/** What the route needs to run the store checks after the synchronous part. */
export interface SessionMeta {
  readonly sid: string;
  /** The session's tenant (whose store quotas its records count against). */
  readonly tenant: string | null;
  readonly counter: number;
  /** Name of the policy the session is under (for the audit event). */
  readonly policy?: string;
  readonly expiresAtMs: number;
  /** True when this call continued an earlier session (replay and deny-list checks apply). */
  readonly continued: boolean;
  /** Issue time (unix seconds) of the blob that was continued; set when `continued`. */
  readonly previousIat?: number;
}

/** The session facts a transform reports to the event loop's store checks. */
export function sessionMeta(payload: SessionPayload, previous: SessionPayload | undefined): SessionMeta {
  return {
    sid: payload.sid,
    tenant: payload.tenant,
    counter: payload.counter,
    expiresAtMs: payload.exp * 1000,
    continued: previous !== undefined,
    policy: payload.policy,
    ...(previous !== undefined ? { previousIat: previous.iat } : {}),
  };
}

export interface TransformOutcome {
  readonly response: TransformResponse;
  readonly sessionState: string;
  readonly meta: SessionMeta;
  /** The input after prompt security stripped it, when that changed it (spans refer to it). */
  readonly cleanedInput?: string;
}

/**
 * Prompt security for a text transform: screen `input` (the continued session's own tokens are
 * left alone) unless the caller screened it already. A changed text after NER ran is a wiring
 * error: NER's spans would not match it, so fail closed.
 */
function screenInput(
  env: TransformEnvironment,
  request: TextTransformRequest,
  previous: SessionPayload | undefined,
): { input: string; summary?: PromptSecuritySummary; warning?: string } {
  if (request.promptScreened !== undefined) {
    const warning = promptSecurityWarning(request.promptScreened);
    return { input: request.input, summary: request.promptScreened, ...(warning !== undefined ? { warning } : {}) };
  }
  if (env.promptSecurity === undefined) return { input: request.input };
  const screened = screenPromptText(env.promptSecurity, request.input, 'input', previous?.entries);
  if (screened.text !== request.input && (request.detection?.ner.length ?? 0) > 0) {
    throw new VeilError('VEIL_INTERNAL', undefined, 'prompt security must screen the input before NER runs');
  }
  return { input: screened.text, summary: screened.summary, ...(screened.warning !== undefined ? { warning: screened.warning } : {}) };
}

export function runTextTransform(env: TransformEnvironment, request: TextTransformRequest): TransformOutcome {
  const started = performance.now();
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
  // Prompt security first: detection, spans and tokens all refer to the screened input.
  const screened = screenInput(env, request, previous);
  const input = screened.input;

  const detectStarted = performance.now();
  const metadataPolicy = loaded.compiled.policy.metadata_policy;
  const detections = withMetadata(
    input,
    mergedDetections(input, patterns, language, env.defaultRegion, request.detection, loaded.compiled.policy),
    metadataPolicy,
    language,
  );
  const detectionMs = elapsedMs(detectStarted);

  const previousEntries = previous?.entries ?? [];
  const result = tokenizeText({
    text: input,
    detections,
    policy: loaded.compiled,
    context: request.context,
    // Same value, same token: national phone numbers are read in the language's region.
    allocator: new TokenAllocator(previousEntries, undefined, regionForLanguage(language, env.defaultRegion)),
    protectionOverrides: request.protectionOverrides,
  });
  const allEntries = previousEntries.length === 0 ? result.newEntries : [...previousEntries, ...result.newEntries];
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

  const flat: number[] = [];
  for (const entity of result.entities) flat.push(entity.start, entity.end);
  const points = utf16ToCodePoints(input, flat);
  const tokenByStart = new Map<number, string>();
  for (const entity of result.entities) if (entity.action_applied === 'tokenize') tokenByStart.set(entity.start, entity.token);
  const metadata = exposedMetadata(detections, metadataPolicy, (start) => tokenByStart.get(start));
  const items = entityContext(env.contextStrategy, env.maxContextTokens, allEntries, result.entities);
  if (items !== undefined && metadata.size > 0) {
    const byToken = new Map<string, EntityMetadata>();
    for (const entity of result.entities) {
      const meta = metadata.get(entity.start);
      if (meta !== undefined && !byToken.has(entity.token)) byToken.set(entity.token, meta);
    }
    for (const item of items) Object.assign(item, byToken.get(item.token));
  }
  const response: TransformResponse = {
    safe_text: result.safeText,
    entities: result.entities.map((entity, index) => ({
      token: entity.token,
      type: entity.type,
      protection_level: entity.protection_level,
      action_applied: entity.action_applied,
      confidence: entity.confidence,
      detector: entity.detector,
      span: { start: points[index * 2]!, end: points[index * 2 + 1]! },
      ...metadata.get(entity.start),
    })),
    stats: {
      entities_detected: detections.length,
      entities_transformed: result.transformed,
      entities_blocked: result.blocked,
      detection_time_ms: detectionMs,
      transform_time_ms: 0,
    },
    detector_mode: request.detection?.detectorMode ?? 'builtin_regex',
    policy_version: loaded.compiled.version,
    trace_id: request.traceId ?? randomUUID(),
  };
  const warnings = request.detection !== undefined ? [...request.detection.warnings] : [NER_DEGRADED_WARNING];
  if (screened.warning !== undefined) warnings.push(screened.warning);
  if (warnings.length > 0) response.warnings = warnings;
  if (screened.summary !== undefined) response.prompt_security = screened.summary;
  if (items !== undefined) response.entity_context = items;
  if (env.contextStrategy !== 'none') response.entity_summary = summary(result.entities);
  response.stats.transform_time_ms = elapsedMs(started);
  return {
    response,
    sessionState,
    meta: sessionMeta(payload, previous),
    ...(input !== request.input ? { cleanedInput: input } : {}),
  };
}

/** A transform result as one /v1/batch/transform item shows it (without its index and session handle). */
export interface BatchItemFields {
  safe_text: string;
  safe_json?: unknown;
  safe_messages?: unknown;
  entities_detected: number;
  entities_transformed: number;
  prompt_security?: PromptSecuritySummary;
  warnings?: string[];
}

/** The batch item of a text, JSON or chat transform response (inline and on a worker alike). */
export function batchItemFields(response: TransformResponse & { safe_json?: unknown; safe_messages?: unknown }): BatchItemFields {
  return {
    safe_text: response.safe_text,
    ...(Object.hasOwn(response, 'safe_json') ? { safe_json: response.safe_json } : {}),
    ...(response.safe_messages !== undefined ? { safe_messages: response.safe_messages } : {}),
    entities_detected: response.stats.entities_detected,
    entities_transformed: response.stats.entities_transformed,
    ...(response.prompt_security !== undefined ? { prompt_security: response.prompt_security } : {}),
    // As /v1/transform: NER coverage (degraded, unavailable) and prompt security warnings.
    ...(response.warnings !== undefined && response.warnings.length > 0 ? { warnings: [...response.warnings] } : {}),
  };
}
