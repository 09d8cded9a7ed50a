// The OpenAI-compatible proxy use case (/openai/v1/chat/completions and /openai/v1/embeddings):
// the whole sequence of a proxied call, free of HTTP (the route reads the Veil headers, builds
// the command, writes the answer or the SSE frames):
//   1. tokenize   `messages` (or embedding `input`) through the chat (JSON) transform of the
//                 transform use case: detection, policy, prompt security, session continuation,
//                 without recording the continuation yet;
//   2. prepare    the restore before the upstream is paid: the new blob opens, the deny list and
//                 revocations hold, the channels are valid (the rehydrate use case's openHere),
//                 one restorer per channel (prose under the requested channel, tool-call and
//                 function-call arguments under `tool_payload`) and the output guard;
//   3. upstream   the call (clients/upstream.ts: deadlines, byte bounds, clear errors);
//   4. commit     only once the upstream answered: the continuation recorded (replay
//                 protection), the session handle issued; a retry after an upstream failure may
//                 continue the same state again;
//   5. restore    a whole answer field by field (domain/proxy/restore.ts restoreCompletion), or a
//                 streamed one chunk by chunk (ProxyStream: one StreamRehydrator and one
//                 MarkupContext per text stream, the stream output guard, and the per-delta
//                 session checks of /v1/rehydrate/stream, so a value revoked mid-stream restores
//                 as [DELETED]). Embedding vectors carry no text and pass unchanged.
import { VeilError } from '@veil/common';
import { streamedUpstreamError, UpstreamError, type UpstreamAnswer, type UpstreamClient } from '../clients/upstream.js';
import { StreamOutputGuard, type OutputGuard } from '../domain/guard/index.js';
import { tightest, type Caller } from '../domain/policy/index.js';
import {
  ChunkRestorer,
  completionMembers,
  completionText,
  jsonStringRestore,
  parseChunk,
  prepareChatRequest,
  prepareEmbeddingRequest,
  restoreCompletion,
  urlTarget,
  type CompletionRestorers,
  type PreparedChatRequest,
  type PreparedEmbeddingRequest,
} from '../domain/proxy/index.js';
import { findTokensLenient } from '../domain/repair/index.js';
import { MarkupContext } from '../domain/restore/index.js';
import type { RestoreMode } from '../domain/types.js';
import type { UnresolvedToken } from '../domain/rehydrate.js';
import { StreamRehydrator, type RestoreFunction } from '../domain/stream/index.js';
import { createRestorer, outputGuardFor, sessionPolicy, type RehydrateRequest, type Restorer } from '../services/rehydrate.js';
import type { StateDeps } from '../services/state.js';
import { LiveSessionCheck } from '../services/stream-check.js';
import type { ChatTransformOutcome, JsonTransformOutcome } from '../services/structured.js';
import type { OpenedHere } from './executor.js';
import type { RehydrateUseCase } from './rehydrate.js';
import type { SessionHandle, TransformCommand, TransformUseCase, UseCaseCall } from './transform.js';

/** The channel tool-call and function-call arguments are restored under. */
export const TOOL_CHANNEL = 'tool_payload';

/** The warning a whole answer carries when the model wrote raw personal data of its own. */
export const OUTPUT_GUARD_WARNING = 'output protection: the model produced raw personal data of its own; see the audit trail';

export interface ProxyDeps {
  readonly transform: TransformUseCase;
  readonly rehydrate: RehydrateUseCase;
  /** The stores the per-delta session checks read (deny list, revocations). */
  readonly state: StateDeps;
  /** The upstream client; undefined when proxy.upstream_url is unset (the routes answer 404). */
  readonly upstream: UpstreamClient | undefined;
  /** proxy.allow_media_parts: image and audio parts pass (their text parts are still tokenized). */
  readonly allowMediaParts: boolean;
}

/** How the upstream is called: the credential the route chose and the cancellation of the client's request. */
export interface UpstreamAccess {
  readonly authorization?: string;
  readonly callerCredential: boolean;
  /** Aborts when the client goes away; created right before the upstream call. */
  readonly signal: () => AbortSignal;
}

/** Step 3: the tokenized body to the upstream, with the caller's credential when it brought one. */
/**
 * An upstream's error message (an error status, or an error event mid-stream) is relayed to the
 * caller (clients/upstream.ts `relayedMessage`: tokens and control characters out): it is text
 * of the answer, so it passes the output guard as any other (red team 17). Under `block` the
 * message is withheld, the status kept.
 */
export function guardedUpstreamError(error: unknown, guard: OutputGuard | undefined): unknown {
  if (!(error instanceof UpstreamError) || guard === undefined) return error;
  let message: string;
  try {
    message = guard.guard(error.message, 'upstream error');
  } catch (blocked) {
    if (!(blocked instanceof VeilError) || blocked.code !== 'VEIL_OUTPUT_BLOCKED') throw blocked;
    message = 'the upstream failed (its message is withheld: output protection)';
  }
  return message === error.message ? error : new UpstreamError(message, error.detail ?? 'upstream error', error.status, error.retryAfterSeconds);
}

function post(client: UpstreamClient, path: string, body: Record<string, unknown>, access: UpstreamAccess, stream: boolean): Promise<UpstreamAnswer> {
  return client.post(
    {
      path,
      body,
      ...(access.authorization !== undefined ? { authorization: access.authorization } : {}),
      callerCredential: access.callerCredential,
      signal: access.signal(),
    },
    stream,
  );
}

/** How the answer is restored: the request's restore mode and channel, the rehydrating caller. */
export interface ProxyRestoreParams {
  readonly restoreMode?: RestoreMode | undefined;
  readonly channel: string;
  readonly caller: Caller;
}

/** What every proxied answer carries back to the client: its session handle, warnings and trace id. */
export interface ProxyCommitted {
  readonly handle: SessionHandle;
  /** The transform's warnings (value-free sentences). */
  readonly warnings: readonly string[] | undefined;
  readonly traceId: string;
}

/** A chat completion: restored whole, or a stream to restore chunk by chunk. */
export type ProxyChat = ProxyCommitted &
  (
    | { readonly stream: false; readonly value: Record<string, unknown>; readonly tokensResolved: number; readonly unresolved: number; readonly guardWarnings: readonly string[] }
    | { readonly stream: true; readonly restore: ProxyStream }
  );

/**
 * The restore context of one proxied answer, one restorer per channel (services/rehydrate.ts
 * createRestorer, as /v1/rehydrate/stream): prose under the requested channel, tool-call
 * arguments under `tool_payload`. Creating them checks the channels and the session's policy,
 * before the upstream is paid. Both read `revokedIds` on every call: a stream's live session
 * checks append to it, so a value revoked while the stream is open restores as [DELETED].
 */
interface ProxyRestorers {
  readonly text: Restorer;
  readonly tool: Restorer;
}

function restorersOf(opened: OpenedHere, base: RehydrateRequest): ProxyRestorers {
  const { env, session, revokedIds } = opened;
  // Arguments restore under tool_payload, never above the channel the caller asked for: an answer
  // requested for `log_safe` or a custom channel restores nothing, in its tool calls either.
  const ceiling = sessionPolicy(env, session).compiled.channelCeiling(base.channel);
  const toolMode = base.restoreMode === undefined ? ceiling : tightest(base.restoreMode, ceiling);
  return { text: createRestorer(env, session, { ...base, revokedIds }), tool: createRestorer(env, session, { ...base, channel: TOOL_CHANNEL, restoreMode: toolMode, revokedIds }) };
}

/** Whole answers: each field is its own rendered whole, guarded before it is restored. */
function wholeRestorers(restorers: ProxyRestorers, guard: OutputGuard | undefined): CompletionRestorers {
  const json = jsonStringRestore(restorers.tool, findTokensLenient);
  const guardText = (text: string): string => (guard !== undefined ? guard.guard(text) : text);
  // A text member the guard left as it was is restored on the guard's token scan of it.
  const text: RestoreFunction = (member) => {
    if (guard === undefined) return restorers.text(member);
    const guarded = guard.guardScanned(member);
    return restorers.text(guarded.text, undefined, guarded.candidates);
  };
  // A URL member (url_citation.url, image_url.url) is restored as a link target.
  const url: RestoreFunction = (member) => {
    const guarded = guard !== undefined ? guard.guardScanned(member) : { text: member };
    return restorers.text(guarded.text, urlTarget(), guarded.candidates);
  };
  return { text, json: (member) => json(guardText(member)), url, guarded: guard !== undefined, identifier: identifierCheck(guard) };
}

/** The output guard over an answer's identifiers (names, ids): refuses rather than masks. */
function identifierCheck(guard: OutputGuard | undefined): ((value: string) => void) | undefined {
  return guard === undefined ? undefined : (value) => guard.guardIdentifier(value, 'answer identifier');
}

/**
 * Streams: the rehydrator of one text stream (a choice's content or refusal, a tool call's
 * arguments), with one MarkupContext for the stream (a URL opened in an earlier chunk still
 * clamps) and the stream output guard deciding what may leave, as /v1/rehydrate/stream does.
 */
function streamRehydrator(
  restorers: ProxyRestorers,
  guard: OutputGuard | undefined,
  kind: 'text' | 'json' | 'url',
  before?: StreamOutputGuard,
  next?: () => StreamOutputGuard | undefined,
): { rehydrator: StreamRehydrator; guard: StreamOutputGuard | undefined } {
  // A URL member's text renders inside a link target.
  const markup = kind === 'url' ? urlTarget() : new MarkupContext();
  // Seeded with the tail of the member before (`before`): a value split across the two is
  // masked in this one's piece (the piece already sent cannot be).
  const streamGuard = guard !== undefined ? new StreamOutputGuard(guard, findTokensLenient, { before, json: kind === 'json', next }) : undefined;
  // A text piece the guard released as it was is restored on the guard's token scan of it
  // (scanOf); a JSON stream's pieces are scanned string by string, not as released.
  const restore: RestoreFunction = kind !== 'json' ? (text) => restorers.text(text, markup, streamGuard?.scanOf(text)) : jsonStringRestore(restorers.tool, findTokensLenient, markup);
  return { rehydrator: new StreamRehydrator(restore, { guard: streamGuard }), guard: streamGuard };
}

/**
 * One streamed answer being restored. The route reads `events` (the upstream's `data:`
 * payloads, under its own deadline), hands each chunk to `chunk`, and ends with `finish`;
 * `close` releases the upstream connection whatever happened.
 */
export class ProxyStream {
  readonly events: AsyncGenerator<string>;
  readonly #answer: UpstreamAnswer;
  readonly #live: LiveSessionCheck;
  readonly #chunks: ChunkRestorer;
  readonly #guard: OutputGuard | undefined;
  readonly #call: UseCaseCall;

  constructor(call: UseCaseCall, answer: UpstreamAnswer, live: LiveSessionCheck, chunks: ChunkRestorer, guard: OutputGuard | undefined) {
    this.#call = call;
    this.#answer = answer;
    this.events = answer.events();
    this.#live = live;
    this.#chunks = chunks;
    this.#guard = guard;
  }

  /** One upstream chunk: the session checked again, the chunk restored (undefined: nothing to send yet). An upstream error chunk is relayed as an error. */
  async chunk(data: string): Promise<Record<string, unknown> | undefined> {
    const chunk = parseChunk(data);
    if (chunk.error !== undefined) throw guardedUpstreamError(streamedUpstreamError(chunk), this.#guard);
    await this.#live.check(this.#chunks.pendingWith(chunk));
    return this.#chunks.rewrite(chunk);
  }

  /** The upstream ended (`sawDone`: with `[DONE]`): what is still held back, the output guard's verdict recorded. */
  async finish(sawDone: boolean): Promise<Record<string, unknown> | undefined> {
    // Some servers end without `[DONE]`; that is only complete when every choice finished.
    if (!sawDone && !this.#chunks.complete) throw new UpstreamError('the upstream stream ended before the answer was complete', 'upstream stream truncated', 502);
    await this.#live.check(this.#chunks.pendingWith({}));
    const last = this.#chunks.finish();
    if (this.#guard !== undefined) this.#call.facts({ output_guard: this.#guard.triggered });
    return last;
  }

  get tokensResolved(): number {
    return this.#chunks.tokensResolved;
  }

  get tokensUnresolved(): UnresolvedToken[] {
    return this.#chunks.tokensUnresolved;
  }

  /** Stop reading the upstream and release its connection. */
  async close(): Promise<void> {
    this.#answer.cancel();
    await this.events.return(undefined);
  }
}

export class ProxyUseCase {
  readonly #deps: ProxyDeps;

  constructor(deps: ProxyDeps) {
    this.#deps = deps;
  }

  /** The upstream client; a 404 when the proxy is not enabled (checked before anything else of the request). */
  upstream(): UpstreamClient {
    const upstream = this.#deps.upstream;
    if (upstream === undefined) throw new VeilError('VEIL_NOT_FOUND', 'the OpenAI-compatible proxy is not enabled (set proxy.upstream_url)');
    return upstream;
  }

  /** A chat completion body checked: `messages` to tokenize, the fields passed through, whether it streams. */
  prepareChat(body: unknown): PreparedChatRequest {
    return prepareChatRequest(body, this.#deps.allowMediaParts);
  }

  /** An embeddings body checked: the text `input` to tokenize, the fields passed through. */
  prepareEmbeddings(body: unknown): PreparedEmbeddingRequest {
    return prepareEmbeddingRequest(body);
  }

  /** Step 4: the upstream answered 2xx; a refused continuation releases its connection. */
  async #commit(outcome: ChatTransformOutcome | JsonTransformOutcome, answer: UpstreamAnswer): Promise<ProxyCommitted> {
    try {
      const handle = await this.#deps.transform.commit(outcome.meta, outcome.sessionState);
      return { handle, warnings: outcome.response.warnings, traceId: outcome.response.trace_id };
    } catch (error) {
      answer.cancel();
      throw error;
    }
  }

  /** The whole chat completion: tokenize, prepare the restore, call the upstream, commit, restore (whole) or hand back the stream. */
  async chat(call: UseCaseCall, command: TransformCommand, prepared: PreparedChatRequest, params: ProxyRestoreParams, access: UpstreamAccess): Promise<ProxyChat> {
    const client = this.upstream();
    const outcome = (await this.#deps.transform.structuredOutcome(call, command, { kind: 'chat_messages', value: prepared.messages })) as ChatTransformOutcome;
    // The restore context before the upstream is paid: the new blob opens, the deny list
    // holds, the channels are valid.
    const base: RehydrateRequest = {
      output: '',
      sessionState: outcome.sessionState,
      restoreMode: params.restoreMode,
      channel: params.channel,
      caller: params.caller,
      tenant: call.scope.tenant,
      traceId: outcome.response.trace_id,
    };
    const opened = await this.#deps.rehydrate.openHere(call, base);
    const restorers = restorersOf(opened, base);
    const guard = outputGuardFor(opened.env, opened.session, base.caller);
    const answer = await post(client, '/chat/completions', { ...prepared.passthrough, messages: outcome.response.safe_messages }, access, prepared.stream).catch((error: unknown) => {
      throw guardedUpstreamError(error, guard);
    });
    const committed = await this.#commit(outcome, answer);
    if (prepared.stream) {
      const live = new LiveSessionCheck(this.#deps.state, opened.session, base.tenant, opened.revokedIds);
      // Each member's stream guard, for the member that follows it (streamRehydrator's `before`).
      const guards = new WeakMap<StreamRehydrator, StreamOutputGuard>();
      const open = (kind: 'text' | 'json', previous?: StreamRehydrator, next?: () => StreamRehydrator | undefined): StreamRehydrator => {
        const shownAfter = next === undefined ? undefined : (): StreamOutputGuard | undefined => {
          const rehydrator = next();
          return rehydrator === undefined ? undefined : guards.get(rehydrator);
        };
        const opened = streamRehydrator(restorers, guard, kind, previous !== undefined ? guards.get(previous) : undefined, shownAfter);
        if (opened.guard !== undefined) guards.set(opened.rehydrator, opened.guard);
        return opened.rehydrator;
      };
      const chunks = new ChunkRestorer(open, {
        guarded: guard !== undefined,
        identifier: identifierCheck(guard),
        openUrl: () => streamRehydrator(restorers, guard, 'url').rehydrator,
        // A member resuming after another member's text reads after that one's tail.
        follow: (rehydrator, before) => {
          const resumed = guards.get(rehydrator);
          const after = guards.get(before);
          if (resumed !== undefined && after !== undefined) resumed.follow(after);
        },
        // A call's arguments read after its name (shown right before them).
        named: (rehydrator, name) => guards.get(rehydrator)?.lead(name),
      });
      return { ...committed, stream: true, restore: new ProxyStream(call, answer, live, chunks, guard) };
    }
    // The session checked again once the upstream answered: a value revoked (or a session
    // invalidated) while the model was writing restores as [DELETED], as a new rehydrate would.
    const body = await answer.json();
    await new LiveSessionCheck(this.#deps.state, opened.session, base.tenant, opened.revokedIds).check(completionText(body));
    // A value the model split across two members (content and arguments, two choices) is masked
    // in both: the guard reads the members as one answer first.
    guard?.acrossMembers(completionMembers(body), 'answer');
    const restored = restoreCompletion(body, wholeRestorers(restorers, guard));
    if (guard !== undefined) call.facts({ output_guard: guard.triggered });
    return {
      ...committed,
      stream: false,
      value: restored.value,
      tokensResolved: restored.tokensResolved,
      unresolved: restored.tokensUnresolved.length,
      guardWarnings: guard?.triggered === true ? [OUTPUT_GUARD_WARNING] : [],
    };
  }

  /** Embeddings: tokenize `input` (JSON transform), call the upstream, commit; the vectors pass unchanged. */
  async embeddings(call: UseCaseCall, command: TransformCommand, prepared: PreparedEmbeddingRequest, access: UpstreamAccess): Promise<ProxyCommitted & { readonly body: unknown }> {
    const client = this.upstream();
    const outcome = (await this.#deps.transform.structuredOutcome(call, command, { kind: 'json', value: prepared.input })) as JsonTransformOutcome;
    const answer = await post(client, '/embeddings', { ...prepared.passthrough, input: outcome.response.safe_json }, access, false);
    const committed = await this.#commit(outcome, answer);
    return { ...committed, body: await answer.json() };
  }
}
