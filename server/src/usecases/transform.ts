// The transform use case: the whole sequence of a tokenizing request, written once for every
// route that tokenizes (/v1/transform and its stream, batch items, file and image uploads, image
// redaction, the OpenAI-compatible proxy):
//   0. the incoming session is resolved (a blob, or the blob a server-side id points to),
//   1. prompt security screens the text first when the NER sidecar will see it (NER must see the
//      cleaned text; otherwise the transform screens it itself),
//   2. detection is planned (the NER sidecar called, fallback decided by the planned policy),
//   3. the executor runs the pure transform inline or on a worker (usecases/executor.ts),
//   4. the audit facts of the outcome are recorded,
//   5. for a request that keeps its session: the continuation is recorded (replay protection)
//      and the outgoing handle issued (services/state.ts).
// Free of Fastify: the route adapts HTTP to a TransformCommand and the answer back.
import { recordingRefusal, transformFacts, type AuditFacts, type FactSink } from '../audit/facts.js';
import type { RequestContext } from '../domain/types.js';
import { nerWillRun, planDetection, planDetectionForTexts, type DetectorName, type NerDeps, type NerLog } from '../services/ner.js';
import type { LoadedPolicy, PolicyRegistry } from '../services/policies.js';
import { screenBeforeNer, type PromptSecuritySettings, type PromptSecuritySummary } from '../services/prompt-security.js';
import { incomingSession, outgoingHandle, recordContinuation, withHandleParts, type StateDeps } from '../services/state.js';
import { chatSlotTexts, jsonSlotTexts, type ChatTransformOutcome, type JsonTransformOutcome, type SlotNer, type StructuredRequest } from '../services/structured.js';
import type { RequestPattern, SessionMeta, TextTransformRequest, TransformResponse } from '../services/transform.js';
import type { DeferredSource, OffloadedTransform, TransformShape } from '../workers/offload-worker.js';
import type { Executor, RequestScope, StructuredRun, TextRun } from './executor.js';
import { jsonString, type JsonText } from '../services/json-text.js';

/** What the transform use case needs: the executor, detection planning, the session stores, prompt security. */
export interface TransformDeps {
  readonly executor: Executor;
  readonly ner: NerDeps;
  readonly state: StateDeps;
  readonly promptSecurity: PromptSecuritySettings | undefined;
  readonly defaultLanguage: string;
}

/** The per-request side of a call: its scope, where its audit facts go, where NER logs. */
export interface UseCaseCall {
  readonly scope: RequestScope;
  readonly facts: FactSink;
  readonly log?: NerLog | undefined;
}

/** A transform request as the use case takes it (every input mode; the route resolved identity and session). */
export interface TransformCommand {
  readonly language?: string | undefined;
  readonly policy?: string | undefined;
  /** The blob being continued, as sent (session_state) or behind a server-side id (sessionId; resolved by the use case). */
  readonly sessionState?: string | undefined;
  readonly sessionId?: string | undefined;
  readonly customPatterns?: readonly RequestPattern[] | undefined;
  readonly protectionOverrides?: TextTransformRequest['protectionOverrides'];
  /** The request context with caller fields taken from the credential (routes/common.ts effectiveContext). */
  readonly context: RequestContext;
  readonly traceId: string;
  readonly detectors?: readonly DetectorName[] | undefined;
}

export type SessionHandle = { session_state: string } | { session_id: string };

/** A finished text transform: the response object (inline) or the body a worker serialized. */
export interface TextTransformDone {
  /** The input the spans refer to: as sent, or as prompt security cleaned it. */
  readonly input: string;
  readonly handle: SessionHandle;
  readonly response?: TransformResponse;
  /** Set when a worker serialized the body (without its session handle; with `frames`, without safe_text and entities too). */
  readonly serialized?: JsonText;
  /** With `frames`, for a transform a worker ran: the stream frames, each serialized. */
  readonly frames?: string[];
  /** With `frames`, for a transform a worker ran: how many entities the frames carry. */
  readonly entityCount?: number;
}

/** A text run with the input its spans refer to. */
export type TextRunWithInput = TextRun & { readonly input: string };

/** The prompt-security audit fact of a transform response (absent when it is disabled). */
export function promptFacts(response: { readonly prompt_security?: { readonly triggered: boolean } }): { prompt_security?: boolean } {
  return response.prompt_security !== undefined ? { prompt_security: response.prompt_security.triggered } : {};
}

/** The audit facts of a finished transform (types, counts, prompt security), wherever it ran. */
export function runFacts(run: TextRun | StructuredRun): AuditFacts {
  return run.where === 'worker' ? run.outcome.facts : { ...transformFacts(run.outcome.response), ...promptFacts(run.outcome.response) };
}

/** The session a finished transform issued (its blob and meta), wherever it ran. */
export function runSession(run: TextRun | StructuredRun): { readonly sessionState: string; readonly meta: SessionMeta } {
  return run.outcome;
}

/** A transform refused by prompt security (action block) still records that it triggered. */
export function recordingRejection<T>(facts: FactSink, run: () => Promise<T>): Promise<T> {
  return recordingRefusal(facts, 'VEIL_PROMPT_REJECTED', 'prompt_security', run);
}

/**
 * The policy that decides NER fallback before the transform runs: the one the request names,
 * else the default for a new session (a continuation's own policy is only known once its blob
 * is opened; the transform re-checks the effective policy's detection rules then).
 */
export function plannedPolicy(registry: PolicyRegistry, name: string | undefined, sessionState: string | undefined): LoadedPolicy | undefined {
  return name !== undefined ? registry.get(name) : sessionState === undefined ? registry.get(undefined) : undefined;
}

export class TransformUseCase {
  readonly #deps: TransformDeps;

  constructor(deps: TransformDeps) {
    this.#deps = deps;
  }

  /** Step 0: the command with its incoming session resolved to a blob (a server-side id looked up). */
  async #resolved(command: TransformCommand): Promise<TransformCommand> {
    if (command.sessionId === undefined) return command;
    return { ...command, sessionId: undefined, sessionState: await incomingSession(this.#deps.state, command.sessionId, command.sessionState) };
  }

  /** Whether the NER sidecar will see a request naming `detectors`. */
  nerWillRun(detectors: readonly string[] | undefined): boolean {
    return nerWillRun(this.#deps.ner, detectors);
  }

  #request(call: UseCaseCall, command: TransformCommand) {
    return {
      language: command.language,
      policy: command.policy,
      sessionState: command.sessionState,
      customPatterns: command.customPatterns,
      protectionOverrides: command.protectionOverrides,
      context: command.context,
      tenant: call.scope.tenant,
      traceId: command.traceId,
    };
  }

  /**
   * Steps 1-4 for a text: screen, plan, run, facts. No store check and no handle: a batch item
   * is continued by the next item, a redaction keeps no session.
   */
  async runText(call: UseCaseCall, command: TransformCommand, text: string, options: { readonly shape?: TransformShape; readonly worker?: boolean } = {}): Promise<TextRunWithInput> {
    return recordingRejection(call.facts, async () => {
      let input = text;
      let promptScreened: PromptSecuritySummary | undefined;
      const settings = this.#deps.promptSecurity;
      if (settings !== undefined && this.nerWillRun(command.detectors)) {
        const screened = screenBeforeNer(settings, input, { keyRing: call.scope.keyRing, sessionState: command.sessionState, tenant: call.scope.tenant, nowMs: call.scope.nowMs });
        input = screened.text;
        promptScreened = screened.summary;
      }
      // The request's policy (or the default for a new session) decides NER fallback here; the
      // effective policy re-checks its detection rules inside the transform.
      const policy = plannedPolicy(call.scope.registry, command.policy, command.sessionState);
      const detection = await planDetection(this.#deps.ner, input, command.language ?? this.#deps.defaultLanguage, command.detectors, policy?.compiled.policy, call.log);
      const request: TextTransformRequest = { ...this.#request(call, command), input, detection, ...(promptScreened !== undefined ? { promptScreened } : {}) };
      const run = await this.#deps.executor.transformText(call.scope, request, options);
      call.facts(runFacts(run));
      return { ...run, input: run.outcome.cleanedInput ?? input };
    });
  }

  /** Step 5: replay protection for a continuation, then the outgoing handle; the session facts recorded. */
  async #keep(call: UseCaseCall, command: TransformCommand, run: TextRun | StructuredRun): Promise<SessionHandle> {
    const { meta, sessionState } = runSession(run);
    call.facts({ session_id: meta.sid, trace_id: command.traceId, ...(meta.policy !== undefined ? { policy: meta.policy } : {}) });
    return this.commit(meta, sessionState);
  }

  /**
   * Step 5 alone, for the proxy, which commits only once its upstream answered: a continuation
   * advances the replay store (each blob continues once), then the outgoing handle is issued.
   */
  async commit(meta: SessionMeta, sessionState: string): Promise<SessionHandle> {
    if (meta.continued) await recordContinuation(this.#deps.state, meta);
    return outgoingHandle(this.#deps.state, meta, sessionState);
  }

  /** The whole text transform of /v1/transform, its stream (`frames`) and the upload routes. */
  async text(call: UseCaseCall, given: TransformCommand, text: string, options: { readonly frames?: boolean } = {}): Promise<TextTransformDone> {
    const command = await this.#resolved(given);
    const run = await this.runText(call, command, text, { shape: options.frames === true ? 'frames' : 'response' });
    const handle = await this.#keep(call, command, run);
    if (run.where === 'inline') return { input: run.input, handle, response: run.outcome.response };
    const outcome = run.outcome;
    return {
      input: run.input,
      handle,
      serialized: outcome.body,
      ...(outcome.frames !== undefined ? { frames: outcome.frames, entityCount: outcome.facts.entity_count ?? 0 } : {}),
    };
  }

  /**
   * Steps 2-4 for a JSON or chat document: the same detector mode as text mode over every string
   * slot (the slots go to the NER sidecar in few batched calls), then the transform, inline or on
   * a worker (`source`: a document the body parser left raw; `worker`: one item of a large batch).
   */
  async runStructured(
    call: UseCaseCall,
    command: TransformCommand,
    document: { readonly kind: 'json'; readonly value: unknown; readonly source?: DeferredSource | undefined } | { readonly kind: 'chat_messages'; readonly value: unknown },
    options: { readonly shape?: TransformShape; readonly worker?: boolean } = {},
  ): Promise<StructuredRun> {
    return recordingRejection(call.facts, async () => {
      const common = this.#request(call, command);
      let source = document.kind === 'json' ? document.source : undefined;
      let input: StructuredRequest = document.kind === 'json' ? { kind: 'json', request: { ...common, inputJson: document.value } } : { kind: 'chat_messages', request: { ...common, inputMessages: document.value } };
      const nerRuns = this.nerWillRun(command.detectors);
      if (source !== undefined && input.kind === 'json' && nerRuns) {
        // NER needs the document's slots here: parse it over (its size is bounded by limits.max_json_values).
        input = { kind: 'json', request: { ...input.request, inputJson: await this.#deps.executor.parseMember(source) } };
        source = undefined;
      }
      const env = this.#deps.executor.transformEnvironment(call.scope);
      const texts = nerRuns ? (input.kind === 'json' ? jsonSlotTexts(env, input.request) : chatSlotTexts(env, input.request)) : [];
      const policy = plannedPolicy(call.scope.registry, command.policy, command.sessionState);
      const { perText, ...plan } = await planDetectionForTexts(this.#deps.ner, texts, command.language ?? this.#deps.defaultLanguage, command.detectors, policy?.compiled.policy, call.log);
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
      const run = await this.#deps.executor.transformStructured(call.scope, planned, { source, ...options });
      call.facts(runFacts(run));
      return run;
    });
  }

  /**
   * The whole JSON or chat transform of /v1/transform (and its stream and file routes): an object
   * (inline), or the body a worker serialized with the handle spliced in (sent as it is).
   */
  async structured(
    call: UseCaseCall,
    given: TransformCommand,
    document: Parameters<TransformUseCase['runStructured']>[2],
  ): Promise<{ readonly object: Record<string, unknown>; readonly json?: undefined } | { readonly object?: undefined; readonly json: JsonText[] }> {
    const command = await this.#resolved(given);
    const run = await this.runStructured(call, command, document);
    const handle = await this.#keep(call, command, run);
    if (run.where === 'worker') return { json: withHandleParts(run.outcome.body, handle) };
    return { object: { ...run.outcome.response, ...handle } };
  }

  /**
   * Steps 1-4 of a JSON or chat transform as an object, for the OpenAI-compatible proxy, which
   * records the continuation only once its upstream has answered (a retry after an upstream
   * failure can continue the same session_state). A worker's body is parsed back (bounded by
   * the document limits the request passed).
   */
  async structuredOutcome(call: UseCaseCall, given: TransformCommand, document: Parameters<TransformUseCase['runStructured']>[2]): Promise<JsonTransformOutcome | ChatTransformOutcome> {
    const command = await this.#resolved(given);
    const run = await this.runStructured(call, command, document);
    const { meta } = runSession(run);
    call.facts({ session_id: meta.sid, trace_id: command.traceId, ...(meta.policy !== undefined ? { policy: meta.policy } : {}) });
    if (run.where === 'inline') return run.outcome;
    return { response: parsedResponse(run.outcome), sessionState: run.outcome.sessionState, meta: run.outcome.meta };
  }
}

/** A worker's serialized structured response, parsed back (callers that need the object are bounded). */
function parsedResponse(outcome: OffloadedTransform): JsonTransformOutcome['response'] & ChatTransformOutcome['response'] {
  return JSON.parse(jsonString(outcome.body)) as JsonTransformOutcome['response'] & ChatTransformOutcome['response'];
}
