// POST /v1/transform (text mode). Validation, identity and the store checks here; the transform
// itself is services/transform.ts, run inline for small inputs and on a worker thread for
// large ones.
import { isVeilError, VeilError } from '@veil/common';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { auditFacts, factSink, NO_FACTS, transformFacts, type FactSink } from '../audit/facts.js';
import { keyRingFor, policiesFor, ringMaterial, type AppDeps } from '../deps.js';
import type { PolicyRegistry } from '../services/policies.js';
import { compileCustomPatterns } from '../domain/detect/index.js';
import { incomingSession, outgoingHandle, recordContinuation, withHandleParts } from '../services/state.js';
import { jsonString, type JsonText } from '../services/json-text.js';
import {
  chatSlotTexts,
  jsonSlotTexts,
  runChatTransform,
  runJsonTransform,
  type ChatTransformOutcome,
  type JsonTransformOutcome,
  type SlotNer,
  type StructuredRequest,
} from '../services/structured.js';
import { runTextTransform, type TextTransformRequest, type TransformEnvironment, type TransformOutcome, type TransformResponse } from '../services/transform.js';
import type { DeferredSource, OffloadedTransform, TransformShape } from '../workers/offload-worker.js';
import { deferredSource, jsonLimits } from '../plugins/json.js';
import { detectsInline, jsonCost } from '../services/offload.js';
import { checkJsonDocument } from '../domain/structured/index.js';
import { nerWillRun, planDetection, planDetectionForTexts, type DetectorName, type NerLog } from '../services/ner.js';
import type { LoadedPolicy } from '../services/policies.js';
import { promptSecuritySettings, screenBeforeNer, type PromptSecuritySummary } from '../services/prompt-security.js';
import { effectiveContext, fingerprint, policyFact, principalOf, sendJson, traceIdOf, type Principal } from './common.js';
import { TransformBodySchema, TransformResponseSchema, type TransformBody } from './schemas.js';

/** interface.md 4.1: exactly one of input, input_json, input_messages, matching input_type. */
export function inputTypeOf(body: TransformBody): 'text' | 'json' | 'chat_messages' {
  const given: ('text' | 'json' | 'chat_messages')[] = [];
  if (body.input !== undefined) given.push('text');
  if (Object.hasOwn(body, 'input_json')) given.push('json');
  if (body.input_messages !== undefined) given.push('chat_messages');
  if (given.length !== 1) throw new VeilError('VEIL_VALIDATION_FAILED', 'input: send exactly one of input, input_json, input_messages');
  const kind = given[0]!;
  if (body.input_type !== undefined && body.input_type !== kind) {
    throw new VeilError('VEIL_VALIDATION_FAILED', `input_type: '${body.input_type}' does not match the input field sent`);
  }
  return kind;
}

export function transformSettings(deps: AppDeps) {
  return {
    defaultLanguage: deps.config.detector.default_language,
    defaultRegion: deps.config.detector.default_region,
    ttlSeconds: deps.config.session.ttl_seconds,
    contextStrategy: deps.config.transform.context_strategy,
    maxContextTokens: deps.config.transform.max_context_tokens,
    promptSecurity: promptSecuritySettings(deps.config),
  };
}

/** The prompt-security audit fact of a transform response (absent when it is disabled). */
export function promptFacts(response: { readonly prompt_security?: { readonly triggered: boolean } }): { prompt_security?: boolean } {
  return response.prompt_security !== undefined ? { prompt_security: response.prompt_security.triggered } : {};
}

/** A transform refused by prompt security (action block) still records that it triggered. */
export async function recordingRejection<T>(facts: FactSink, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isVeilError(error) && error.code === 'VEIL_PROMPT_REJECTED') facts({ prompt_security: true });
    throw error;
  }
}

export { nerWillRun } from '../services/ner.js';

/**
 * `tenant`: the caller's (its key ring seals and opens the blob). `registry`: the request's policy
 * snapshot as the tenant may use it, read once (a reload swaps it between requests).
 */
export function transformEnvironment(deps: AppDeps, tenant: string | null, registry: PolicyRegistry = policiesFor(deps, tenant)): TransformEnvironment {
  return {
    keyRing: keyRingFor(deps, tenant),
    policy: (name) => registry.get(name),
    compilePatterns: (raw) => compileCustomPatterns(raw, 'custom_patterns'),
    ...transformSettings(deps),
    nowMs: deps.now(),
  };
}

/** The request fields every input mode passes to its transform. */
export function requestFields(deps: AppDeps, body: TransformBody, principal: Principal, sessionState: string | undefined) {
  return {
    language: body.language,
    policy: body.policy,
    sessionState,
    customPatterns: body.custom_patterns,
    protectionOverrides: body.protection_overrides,
    context: effectiveContext(deps, principal, body.context),
    tenant: principal.tenant,
    traceId: traceIdOf(body.trace_id),
  };
}

/**
 * The policy that decides NER fallback before the transform runs: the one the request names,
 * else the default for a new session (a continuation's own policy is only known once its blob
 * is opened; the transform re-checks the effective policy's detection rules then).
 */
export function plannedPolicy(registry: PolicyRegistry, name: string | undefined, sessionState: string | undefined): LoadedPolicy | undefined {
  return name !== undefined ? registry.get(name) : sessionState === undefined ? registry.get(undefined) : undefined;
}

export type { StructuredRequest } from '../services/structured.js';

/** A finished transform: the outcome itself (inline), or what a worker serialized. */
export type TransformDone = TransformOutcome | OffloadedTransform;

/** A structured transform's answer as an object (a worker's serialized body parsed back; bounded by the document limits). */
export function structuredObject(result: Record<string, unknown> | JsonText[]): Record<string, unknown> {
  return Array.isArray(result) ? (JSON.parse(result.map(jsonString).join('')) as Record<string, unknown>) : result;
}

/** A transform a worker ran and serialized. */
export function isOffloadedTransform(done: TransformDone): done is OffloadedTransform {
  return 'body' in done;
}

/** The response object of a finished transform (a worker's is parsed back: callers that need it are bounded). */
export function transformResponseOf(done: TransformDone): TransformOutcome['response'] & Record<string, unknown> {
  return (isOffloadedTransform(done) ? JSON.parse(jsonString(done.body)) : done.response) as TransformOutcome['response'] & Record<string, unknown>;
}

/**
 * JSON and chat modes: the same detector mode as text mode, over every string slot. The slots
 * (as prompt security leaves them) go to the NER sidecar in few batched calls; the plan and the
 * per-slot results then drive the synchronous transform. Fallback and fail-closed rules are text
 * mode's (planDetectionForTexts).
 */
export async function runStructuredWithNer(
  deps: AppDeps,
  env: TransformEnvironment,
  input: StructuredRequest,
  detectors: readonly DetectorName[] | undefined,
  policy: LoadedPolicy | undefined,
  log: NerLog | undefined,
  scope: {
    readonly tenant: string | null;
    readonly registry: PolicyRegistry;
    readonly shape?: TransformShape;
    readonly source?: DeferredSource | undefined;
    /** Run on a worker whatever this document's size (one item of a large batch). */
    readonly offload?: boolean;
  },
): Promise<TransformDone> {
  const language = input.request.language ?? deps.config.detector.default_language;
  let source = scope.source;
  if (source !== undefined && input.kind === 'json' && nerWillRun(deps, detectors)) {
    // NER needs the document's slots here: parse it over (its size is bounded by limits.max_json_values).
    const parsed = await deps.offload.run({ op: 'parse', body: source.raw, limits: jsonLimits(deps.config) });
    input = { kind: 'json', request: { ...input.request, inputJson: (parsed.value as Record<string, unknown>)[source.field] } };
    source = undefined;
  }
  let texts: string[] = [];
  if (nerWillRun(deps, detectors)) texts = input.kind === 'json' ? jsonSlotTexts(env, input.request) : chatSlotTexts(env, input.request);
  const { perText, ...plan } = await planDetectionForTexts(deps, texts, language, detectors, policy?.compiled.policy, log);
  const slotNer: SlotNer | undefined = plan.nerRan ? new Map(texts.map((text, index) => [text, perText[index]!])) : undefined;
  const detection = {
    useRegex: plan.useRegex,
    nerRan: plan.nerRan,
    ...(plan.nerFailure !== undefined ? { nerFailure: plan.nerFailure } : {}),
    ner: [],
    detectorMode: plan.detectorMode,
    warnings: plan.warnings,
  };
  const planned: StructuredRequest =
    input.kind === 'json' ? { kind: 'json', request: { ...input.request, detection, slotNer } } : { kind: 'chat_messages', request: { ...input.request, detection, slotNer } };
  const document = input.kind === 'json' ? input.request.inputJson : input.request.inputMessages;
  // Like a text transform, the document's size weighed with the caller's patterns: a short
  // document scanned by an expensive pattern leaves the event loop too (services/offload.ts).
  const callerPatterns = input.request.customPatterns === undefined ? [] : compileCustomPatterns(input.request.customPatterns, 'custom_patterns');
  if (source !== undefined || scope.offload === true || !detectsInline(jsonCost(document, deps.offload.threshold), callerPatterns, deps.offload.threshold)) {
    // The bounds are checked here first (a bounded walk), so only a document within them is copied
    // to the worker; a document still in its raw body is parsed and checked there.
    if (input.kind === 'json' && source === undefined) checkJsonDocument(input.request.inputJson);
    return deps.offload.run({
      op: 'transform-structured',
      input: planned,
      ...(source !== undefined ? { source } : {}),
      ring: ringMaterial(deps, scope.tenant),
      policies: scope.registry.snapshot(),
      settings: transformSettings(deps),
      nowMs: env.nowMs,
      ...(scope.shape !== undefined ? { shape: scope.shape } : {}),
    });
  }
  return planned.kind === 'json' ? runJsonTransform(env, planned.request) : runChatTransform(env, planned.request);
}

/**
 * The JSON and chat transform itself (the request's detector mode, NER included, over every
 * string slot), with its audit facts, before any store check: the continuation is not recorded
 * and no handle is issued yet (structuredTransform does both). A large document runs on a worker,
 * which answers with its serialized body (`source`: a document the body parser left raw).
 */
async function structuredDone(
  deps: AppDeps,
  log: FastifyBaseLogger,
  body: TransformBody,
  inputType: 'json' | 'chat_messages',
  sessionState: string | undefined,
  principal: Principal,
  facts: FactSink,
  source?: DeferredSource,
): Promise<{ done: TransformDone; traceId: string }> {
  const registry = policiesFor(deps, principal.tenant);
  const common = requestFields(deps, body, principal, sessionState);
  const env = transformEnvironment(deps, principal.tenant, registry);
  const input: StructuredRequest =
    inputType === 'json' ? { kind: 'json', request: { ...common, inputJson: body.input_json } } : { kind: 'chat_messages', request: { ...common, inputMessages: body.input_messages } };
  const done = await recordingRejection(facts, () =>
    runStructuredWithNer(deps, env, input, body.detectors, plannedPolicy(registry, body.policy, sessionState), log, { tenant: principal.tenant, registry, source }),
  );
  const outcomeFacts = isOffloadedTransform(done) ? done.facts : { ...transformFacts(done.response), ...promptFacts(done.response) };
  facts({ ...outcomeFacts, session_id: done.meta.sid, trace_id: common.traceId, ...(done.meta.policy !== undefined ? { policy: done.meta.policy } : {}) });
  return { done, traceId: common.traceId };
}

/**
 * structuredDone as an object, for the OpenAI-compatible proxy, which records the continuation
 * only once its upstream has answered (so a retry after an upstream failure can continue the
 * same session_state) and sends the tokenized messages upstream. A worker's body is parsed back
 * (its size is bounded by the document limits the request passed).
 */
export async function structuredOutcome(
  deps: AppDeps,
  log: FastifyBaseLogger,
  body: TransformBody,
  inputType: 'json' | 'chat_messages',
  sessionState: string | undefined,
  principal: Principal,
  facts: FactSink = NO_FACTS,
): Promise<JsonTransformOutcome | ChatTransformOutcome> {
  const { done } = await structuredDone(deps, log, body, inputType, sessionState, principal, facts);
  if (!isOffloadedTransform(done)) return done as JsonTransformOutcome | ChatTransformOutcome;
  return { response: transformResponseOf(done) as unknown as JsonTransformOutcome['response'] & ChatTransformOutcome['response'], sessionState: done.sessionState, meta: done.meta };
}

/** JSON and chat modes of /v1/transform (and its stream and file routes): structuredDone, then replay protection and the outgoing handle. */
export async function structuredTransform(
  deps: AppDeps,
  log: FastifyBaseLogger,
  body: TransformBody,
  inputType: 'json' | 'chat_messages',
  sessionState: string | undefined,
  principal: Principal,
  facts: FactSink = NO_FACTS,
  source?: DeferredSource,
): Promise<Record<string, unknown> | JsonText[]> {
  const { done, traceId } = await structuredDone(deps, log, body, inputType, sessionState, principal, facts, source);
  if (done.meta.continued) await recordContinuation(deps, done.meta);
  const handle = await outgoingHandle(deps, done.meta, done.sessionState);
  log.info({ event: 'transform_completed', input_type: inputType, trace_id: fingerprint(traceId), offloaded: isOffloadedTransform(done) }, 'transform_completed');
  // A worker's body goes out as it is, the session handle spliced in.
  if (isOffloadedTransform(done)) return withHandleParts(done.body, handle);
  return { ...done.response, ...handle };
}

/** A finished text transform: the response object (inline) or the body a worker serialized. */
export interface TextTransformDone {
  /** The input the spans refer to: as sent, or as prompt security cleaned it. */
  readonly input: string;
  readonly handle: { session_state: string } | { session_id: string };
  readonly trace: string;
  readonly response?: TransformResponse;
  /** Set when a worker serialized the body (without its session handle; with `frames`, without safe_text and entities too). */
  readonly serialized?: JsonText;
  /** With `frames`, for a transform a worker ran: the stream frames, each serialized. */
  readonly frames?: string[];
  /** With `frames`, for a transform a worker ran: how many entities the frames carry. */
  readonly entityCount?: number;
}

/**
 * The text mode of /v1/transform, shared with /v1/transform/stream: NER planning, the
 * transform (inline, or on a worker for large inputs), replay protection for continuations,
 * and the outgoing session handle.
 */
export async function textTransform(
  deps: AppDeps,
  body: TransformBody,
  principal: Principal,
  sessionState: string | undefined,
  facts: FactSink = NO_FACTS,
  log?: NerLog,
  options: { readonly frames?: boolean } = {},
): Promise<TextTransformDone> {
  return recordingRejection(facts, () => runTextTransformRoute(deps, body, principal, sessionState, facts, log, options.frames === true));
}

async function runTextTransformRoute(
  deps: AppDeps,
  body: TransformBody,
  principal: Principal,
  sessionState: string | undefined,
  facts: FactSink,
  log: NerLog | undefined,
  frames: boolean,
): Promise<TextTransformDone> {
  const registry = policiesFor(deps, principal.tenant);
  let input = body.input ?? '';
  // Prompt security normally runs inside the transform (on a worker for large inputs); when
  // the NER sidecar will see the text, it runs here first so NER sees the cleaned text.
  const promptSettings = promptSecuritySettings(deps.config);
  let promptScreened: PromptSecuritySummary | undefined;
  if (promptSettings !== undefined && nerWillRun(deps, body.detectors)) {
    const screened = screenBeforeNer(promptSettings, input, { keyRing: keyRingFor(deps, principal.tenant), sessionState, tenant: principal.tenant, nowMs: deps.now() });
    input = screened.text;
    promptScreened = screened.summary;
  }
  // The request's policy (or the default for a new session) decides NER fallback here;
  // the effective policy re-checks its detection rules inside the transform.
  const policy = plannedPolicy(registry, body.policy, sessionState);
  const plan = await planDetection(deps, input, body.language ?? deps.config.detector.default_language, body.detectors, policy?.compiled.policy, log);
  const transformRequest: TextTransformRequest = {
    ...requestFields(deps, body, principal, sessionState),
    input,
    detection: plan,
    ...(promptScreened !== undefined ? { promptScreened } : {}),
  };
  const trace = fingerprint(transformRequest.traceId ?? '');
  // Caller patterns can make even a short text long to scan (services/offload.ts detectsInline);
  // compiling them here is a cache hit for the transform that follows.
  const patterns = body.custom_patterns === undefined ? [] : compileCustomPatterns(body.custom_patterns, 'custom_patterns');
  if (!detectsInline(input.length, patterns, deps.offload.threshold) || deps.offload.offloads(sessionState?.length ?? 0)) {
    const outcome = await deps.offload.run({
      op: 'transform',
      request: transformRequest,
      ring: ringMaterial(deps, principal.tenant),
      policies: registry.snapshot(),
      settings: transformSettings(deps),
      nowMs: deps.now(),
      shape: frames ? 'frames' : 'response',
    });
    facts({ ...outcome.facts, session_id: outcome.meta.sid, trace_id: transformRequest.traceId ?? '', ...(outcome.meta.policy !== undefined ? { policy: outcome.meta.policy } : {}) });
    if (outcome.meta.continued) await recordContinuation(deps, outcome.meta);
    return {
      input: outcome.cleanedInput ?? input,
      handle: await outgoingHandle(deps, outcome.meta, outcome.sessionState),
      trace,
      serialized: outcome.body,
      ...(outcome.frames !== undefined ? { frames: outcome.frames, entityCount: outcome.facts.entity_count ?? 0 } : {}),
    };
  }
  const outcome = runTextTransform(transformEnvironment(deps, principal.tenant, registry), transformRequest);
  facts({ ...transformFacts(outcome.response), ...promptFacts(outcome.response), session_id: outcome.meta.sid, trace_id: transformRequest.traceId ?? '', ...(outcome.meta.policy !== undefined ? { policy: outcome.meta.policy } : {}) });
  if (outcome.meta.continued) await recordContinuation(deps, outcome.meta);
  return { input: outcome.cleanedInput ?? input, handle: await outgoingHandle(deps, outcome.meta, outcome.sessionState), trace, response: outcome.response };
}

export function transformRoutes(deps: AppDeps) {
  return function register(app: FastifyInstance): void {
    app.post<{ Body: TransformBody }>(
      '/v1/transform',
      { schema: { body: TransformBodySchema, response: { 200: TransformResponseSchema } }, config: { scope: 'transform', idempotent: true, deferDocuments: true } },
      async (request, reply) => {
        const body = request.body;
        const principal = principalOf(request);
        // Known before anything can fail, so a refused transform's event still names them.
        auditFacts(request, { ...policyFact(deps, body.policy), ...(body.trace_id !== undefined ? { trace_id: body.trace_id } : {}) });
        const inputType = inputTypeOf(body);
        const sessionState = await incomingSession(deps, body.session_id, body.session_state);
        if (inputType !== 'text') {
          const structured = await structuredTransform(deps, request.log, body, inputType, sessionState, principal, factSink(request), deferredSource(request, 'input_json'));
          return Array.isArray(structured) ? sendJson(reply, structured) : structured;
        }
        const done = await textTransform(deps, body, principal, sessionState, factSink(request), request.log);
        const logFields = { event: 'transform_completed', trace_id: done.trace, policy: body.policy ?? deps.policies.registry.defaultName };
        if (done.serialized !== undefined) {
          request.log.info({ ...logFields, offloaded: true }, 'transform_completed');
          return sendJson(reply, withHandleParts(done.serialized, done.handle));
        }
        request.log.info({ ...logFields, entities: done.response?.entities.length ?? 0 }, 'transform_completed');
        return { ...done.response, ...done.handle };
      },
    );
  };
}
