// The OpenAI-compatible proxy (docs/api.md, "OpenAI-compatible proxy"): POST
// /openai/v1/chat/completions and /openai/v1/embeddings, so the official SDKs work with
// `baseURL: <veil>/openai/v1`. Built from the pieces the other routes use, so their rules apply
// here unchanged:
//
//   tokenize   `messages` go through the chat transform of /v1/transform (structuredOutcome:
//              detection, policy, prompt security, session continuation); other text-bearing
//              fields are refused (domain/proxy/request.ts)
//   upstream   proxy.upstream_url with the configured or passed-through credential
//              (clients/upstream.ts: deadlines, byte bounds, clear errors)
//   restore    the answer through createRestorer (services/rehydrate.ts: deny list,
//              revocations, policy, restore mode, channel, URL/markup ceiling, output guard);
//              streamed answers chunk by chunk through StreamRehydrator with one MarkupContext
//              per text stream and the per-delta session checks of /v1/rehydrate/stream
//              (LiveSessionCheck: a value revoked mid-stream restores as [DELETED]), the same
//              path as that route. `content` and `refusal` restore under
//              the requested output channel (user_output by default); tool-call and
//              function-call arguments under `tool_payload`, so a policy can cap what reaches
//              tools separately (its channel_rules) and the request's restore mode caps both.
//
// Session across turns: the response carries the session in `x-veil-session-state` (sealed
// backend) or `x-veil-session-id` (server-side backends); a client that sends it back with the
// next turn keeps every value on its token, the values in the history it sends back included.
// The continuation is recorded (replay protection) only after the upstream answered, so a retry
// after an upstream failure may continue the same state again.
import { VeilError } from '@veil/common';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { auditFacts, factSink, type FactSink } from '../audit/facts.js';
import { UpstreamClient, UpstreamError, streamedUpstreamError, type UpstreamAnswer } from '../clients/upstream.js';
import type { UseCases } from '../compose.js';
import type { AppDeps } from '../deps.js';
import { StreamOutputGuard, type OutputGuard } from '../domain/guard/index.js';
import { ChunkRestorer, jsonStringRestore, parseChunk, prepareChatRequest, prepareEmbeddingRequest, restoreCompletion, type CompletionRestorers } from '../domain/proxy/index.js';
import { findTokensLenient } from '../domain/repair/index.js';
import { StreamRehydrator, type RestoreFunction } from '../domain/stream/index.js';
import { openAiErrorType, validationMessage } from '../plugins/errors.js';
import { MarkupContext } from '../domain/restore/index.js';
import { createRestorer, outputGuardFor, type RehydrateRequest, type Restorer } from '../services/rehydrate.js';
import { LiveSessionCheck } from '../services/stream-check.js';
import type { ChatTransformOutcome, JsonTransformOutcome } from '../services/structured.js';
import { callerOf, callOf, fingerprint, policyFact, principalOf, type Principal } from './common.js';
import { LabelSchema, LanguageSchema, PolicyNameSchema, RestoreModeSchema, SessionStateSchema, TraceIdSchema, type TransformBody } from './schemas.js';
import { runSseStream, untilAborted } from './sse.js';
import { commandOf } from './transform.js';
import type { OpenedHere } from '../usecases/executor.js';

/** Request headers that carry the Veil parameters of a proxied call, and their body-field twins. */
export const PROXY_HEADERS = {
  'x-veil-policy': 'policy',
  'x-veil-output-channel': 'output_channel',
  'x-veil-restore-mode': 'restore_mode',
  'x-veil-language': 'language',
  'x-veil-trace-id': 'trace_id',
  'x-veil-session-state': 'session_state',
  'x-veil-session-id': 'session_id',
} as const;

export const SESSION_STATE_HEADER = 'x-veil-session-state';
export const SESSION_ID_HEADER = 'x-veil-session-id';
export const WARNING_HEADER = 'x-veil-warning';
/** The channel tool-call and function-call arguments are restored under. */
export const TOOL_CHANNEL = 'tool_payload';
/**
 * Longest session_state sent back in a header. Clients commonly refuse response headers over
 * 16 KiB in total (Node's default); a longer state is left out with a warning (use a
 * server-side session backend for long conversations).
 */
export const MAX_STATE_HEADER = 12 * 1024;

/** The headers validated exactly like the body fields of /v1/transform and /v1/rehydrate. */
const ProxyParamsSchema = Type.Object(
  {
    policy: Type.Optional(PolicyNameSchema),
    output_channel: Type.Optional(LabelSchema),
    restore_mode: Type.Optional(RestoreModeSchema),
    language: Type.Optional(LanguageSchema),
    trace_id: Type.Optional(TraceIdSchema),
    session_state: Type.Optional(SessionStateSchema),
    session_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  },
  { additionalProperties: false },
);
type ProxyParams = Static<typeof ProxyParamsSchema>;

/** The request body as Fastify parses it: any JSON object (fields are checked by domain/proxy). */
const OpenAiBodySchema = Type.Object({}, { additionalProperties: true });

function headerParams(request: FastifyRequest): ProxyParams {
  const params: Record<string, string> = {};
  for (const [header, field] of Object.entries(PROXY_HEADERS)) {
    const value = request.headers[header];
    if (Array.isArray(value)) throw new VeilError('VEIL_VALIDATION_FAILED', `${header} header: send it once`);
    if (typeof value === 'string') params[field] = value;
  }
  const validate = request.compileValidationSchema(ProxyParamsSchema);
  if (!validate(params)) {
    const message = validationMessage(validate.errors?.[0] ?? undefined);
    const header = Object.entries(PROXY_HEADERS).find(([, field]) => message.startsWith(`${field}:`))?.[0];
    throw new VeilError('VEIL_VALIDATION_FAILED', header !== undefined ? `${header} header${message.slice(message.indexOf(':'))}` : message);
  }
  return params;
}

/** The upstream credential (see docs/api.md): the caller's own only when passing through is allowed. */
function upstreamCredential(deps: AppDeps, request: FastifyRequest): { authorization?: string; callerCredential: boolean } {
  const proxy = deps.config.proxy;
  const header = request.headers.authorization;
  if (proxy.pass_through_api_key && typeof header === 'string' && /^Bearer [\x21-\x7e]{1,4096}$/.test(header)) {
    return { authorization: header, callerCredential: true };
  }
  if (proxy.upstream_api_key !== undefined) return { authorization: `Bearer ${proxy.upstream_api_key.reveal()}`, callerCredential: false };
  return { callerCredential: false };
}

/** Aborts when the client goes away before the response is complete. */
function cancelOnClose(reply: FastifyReply): AbortController {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new Error('client closed'));
  });
  return controller;
}

/** The session handle and warnings as response headers (never a value: tokens only in the blob). */
function responseHeaders(handle: { session_state: string } | { session_id: string }, warnings: readonly string[] | undefined, requestId: string): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = { 'x-request-id': requestId };
  const notes = [...(warnings ?? [])];
  if ('session_id' in handle) headers[SESSION_ID_HEADER] = handle.session_id;
  else if (handle.session_state.length <= MAX_STATE_HEADER) headers[SESSION_STATE_HEADER] = handle.session_state;
  else notes.push(`the session state is longer than ${MAX_STATE_HEADER} characters and was not sent; use a server-side session backend (session.backend memory or redis) to carry long conversations`);
  // Header values must be single-line ASCII; warnings are Veil's own English sentences.
  const ascii = notes.map((note) => note.replace(/[^\x20-\x7e]/g, '?')).filter((note) => note !== '');
  if (ascii.length > 0) headers[WARNING_HEADER] = ascii;
  return headers;
}

/** The terminal event of a proxied stream, in OpenAI's error shape (its SDKs raise it as APIError). */
function openAiErrorFrame(log: FastifyBaseLogger, route: string, error: unknown): { error: { message: string; type: string; code: string; param: null } } {
  if (error instanceof VeilError) {
    log.info({ event: 'stream_failed', route, code: error.code, status: error.status, detail: error.detail }, 'stream_failed');
    return { error: { message: error.message, type: openAiErrorType(error.status), code: error.code, param: null } };
  }
  log.error({ event: 'stream_failed', route, code: 'VEIL_INTERNAL', error_type: error instanceof Error ? error.name : typeof error }, 'stream_failed');
  return { error: { message: 'internal error', type: 'api_error', code: 'VEIL_INTERNAL', param: null } };
}

/** The transform body the proxy hands to /v1/transform's JSON and chat modes. */
function transformBody(params: ProxyParams, input: Pick<TransformBody, 'input_messages' | 'input_json'>): TransformBody {
  return {
    ...input,
    ...(params.policy !== undefined ? { policy: params.policy } : {}),
    ...(params.language !== undefined ? { language: params.language } : {}),
    ...(params.trace_id !== undefined ? { trace_id: params.trace_id } : {}),
  };
}

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
  return { text: createRestorer(env, session, { ...base, revokedIds }), tool: createRestorer(env, session, { ...base, channel: TOOL_CHANNEL, revokedIds }) };
}

/** Whole answers: each field is its own rendered whole, guarded before it is restored. */
function wholeRestorers(restorers: ProxyRestorers, guard: OutputGuard | undefined): CompletionRestorers {
  const json = jsonStringRestore(restorers.tool, findTokensLenient);
  const guardText = (text: string): string => (guard !== undefined ? guard.guard(text) : text);
  return { text: (text) => restorers.text(guardText(text)), json: (text) => json(guardText(text)) };
}

/**
 * Streams: the rehydrator of one text stream (a choice's content or refusal, a tool call's
 * arguments), with one MarkupContext for the stream (a URL opened in an earlier chunk still
 * clamps) and the stream output guard deciding what may leave, as /v1/rehydrate/stream does.
 */
function streamRehydrator(restorers: ProxyRestorers, guard: OutputGuard | undefined, kind: 'text' | 'json'): StreamRehydrator {
  const markup = new MarkupContext();
  const restore: RestoreFunction = kind === 'text' ? (text) => restorers.text(text, markup) : jsonStringRestore(restorers.tool, findTokensLenient, markup);
  return new StreamRehydrator(restore, { guard: guard !== undefined ? new StreamOutputGuard(guard, findTokensLenient) : undefined });
}

export function openAiRoutes(deps: AppDeps, useCases: UseCases) {
  const proxy = deps.config.proxy;
  const upstream =
    proxy.upstream_url !== undefined
      ? new UpstreamClient({
          baseUrl: proxy.upstream_url,
          timeoutMs: proxy.timeout_secs * 1000,
          idleTimeoutMs: proxy.stream_idle_timeout_secs * 1000,
          maxResponseBytes: proxy.max_response_bytes,
        })
      : undefined;
  const enabled = (): UpstreamClient => {
    if (upstream === undefined) throw new VeilError('VEIL_NOT_FOUND', 'the OpenAI-compatible proxy is not enabled (set proxy.upstream_url)');
    return upstream;
  };

  /** Headers, then the transform of `input` (the continuation is not recorded yet). */
  async function tokenize<T extends ChatTransformOutcome | JsonTransformOutcome>(
    request: FastifyRequest,
    params: ProxyParams,
    principal: Principal,
    facts: FactSink,
    kind: 'chat_messages' | 'json',
    input: Pick<TransformBody, 'input_messages' | 'input_json'>,
  ): Promise<T> {
    auditFacts(request, { ...policyFact(deps, params.policy), ...(params.trace_id !== undefined ? { trace_id: params.trace_id } : {}) });
    const command = { ...commandOf(deps, transformBody(params, input), principal), sessionState: params.session_state, sessionId: params.session_id };
    const document = kind === 'json' ? { kind, value: input.input_json } : { kind, value: input.input_messages };
    // The route asked for this kind: the outcome is that kind's.
    return (await useCases.transform.structuredOutcome({ ...callOf(useCases, request), facts }, command, document)) as T;
  }

  /** The upstream answered 2xx: record the continuation (replay protection), issue the handle. */
  async function commit(outcome: ChatTransformOutcome | JsonTransformOutcome, answer: UpstreamAnswer, requestId: string): Promise<Record<string, string | string[]>> {
    try {
      const handle = await useCases.transform.commit(outcome.meta, outcome.sessionState);
      return responseHeaders(handle, outcome.response.warnings, requestId);
    } catch (error) {
      answer.cancel();
      throw error;
    }
  }

  return function register(app: FastifyInstance): void {
    app.post(
      '/openai/v1/chat/completions',
      { schema: { body: OpenAiBodySchema }, config: { scope: ['transform', 'rehydrate'] } },
      async (request, reply) => {
        const client = enabled();
        const principal = principalOf(request);
        const facts = factSink(request);
        const params = headerParams(request);
        const prepared = prepareChatRequest(request.body, deps.config.proxy.allow_media_parts);
        const outcome = await tokenize<ChatTransformOutcome>(request, params, principal, facts, 'chat_messages', { input_messages: prepared.messages });
        // The restore context before the upstream is paid: the new blob opens, the deny list
        // holds, the channels are valid.
        const base: RehydrateRequest = {
          output: '',
          sessionState: outcome.sessionState,
          restoreMode: params.restore_mode,
          channel: params.output_channel ?? 'user_output',
          caller: callerOf(deps, principal, undefined),
          tenant: principal.tenant,
          traceId: outcome.response.trace_id,
        };
        const opened = await useCases.rehydrate.openHere({ ...callOf(useCases, request), facts }, base);
        const restorers = restorersOf(opened, base);
        const guard = outputGuardFor(opened.env, opened.session, base.caller);
        const cancel = cancelOnClose(reply);
        const answer = await client.post(
          { path: '/chat/completions', body: { ...prepared.passthrough, messages: outcome.response.safe_messages }, ...upstreamCredential(deps, request), signal: cancel.signal },
          prepared.stream,
        );
        const headers = await commit(outcome, answer, request.id);
        const trace = fingerprint(outcome.response.trace_id);

        if (!prepared.stream) {
          const restored = restoreCompletion(await answer.json(), wholeRestorers(restorers, guard));
          if (guard !== undefined) facts({ output_guard: guard.triggered });
          request.log.info({ event: 'proxy_completed', trace_id: trace, resolved: restored.tokensResolved, unresolved: restored.tokensUnresolved.length }, 'proxy_completed');
          const warnings = guard?.triggered === true ? ['output protection: the model produced raw personal data of its own; see the audit trail'] : [];
          const earlier = headers[WARNING_HEADER];
          if (warnings.length > 0) headers[WARNING_HEADER] = [...(Array.isArray(earlier) ? earlier : earlier !== undefined ? [earlier] : []), ...warnings];
          return reply.headers(headers).send(restored.value);
        }

        const live = new LiveSessionCheck(deps, opened.session, base.tenant, opened.revokedIds);
        const chunks = new ChunkRestorer((kind) => streamRehydrator(restorers, guard, kind));
        await runSseStream({
          reply,
          log: request.log,
          route: 'proxy_chat_completions',
          maxSeconds: deps.config.limits.max_stream_seconds,
          writeTimeoutSeconds: deps.config.limits.stream_write_timeout_seconds,
          headers,
          errorFrame: openAiErrorFrame,
          produce: async (writer, deadline) => {
            const events = answer.events();
            let done = false;
            try {
              for (let next = await untilAborted(events.next(), deadline); next.done !== true; next = await untilAborted(events.next(), deadline)) {
                if (writer.closed) return undefined;
                if (next.value === '[DONE]') {
                  done = true;
                  break;
                }
                const chunk = parseChunk(next.value);
                if (chunk.error !== undefined) throw streamedUpstreamError(chunk);
                await live.check(chunks.pendingWith(chunk));
                const out = chunks.rewrite(chunk);
                if (out !== undefined && !(await writer.event(JSON.stringify(out)))) return undefined;
              }
              // Some servers end without `[DONE]`; that is only complete when every choice finished.
              if (!done && !chunks.complete) throw new UpstreamError('the upstream stream ended before the answer was complete', 'upstream stream truncated', 502);
              await live.check(chunks.pendingWith({}));
              const last = chunks.finish();
              if (last !== undefined && !(await writer.event(JSON.stringify(last)))) return undefined;
              if (guard !== undefined) facts({ output_guard: guard.triggered });
              request.log.info(
                { event: 'proxy_completed', streamed: true, trace_id: trace, resolved: chunks.tokensResolved, unresolved: chunks.tokensUnresolved.length },
                'proxy_completed',
              );
              await writer.event('[DONE]');
              return undefined;
            } finally {
              answer.cancel();
              await events.return(undefined);
            }
          },
        });
        return reply;
      },
    );

    app.post('/openai/v1/embeddings', { schema: { body: OpenAiBodySchema }, config: { scope: 'transform' } }, async (request, reply) => {
      const client = enabled();
      const principal = principalOf(request);
      const params = headerParams(request);
      const prepared = prepareEmbeddingRequest(request.body);
      const outcome = await tokenize<JsonTransformOutcome>(request, params, principal, factSink(request), 'json', { input_json: prepared.input });
      const cancel = cancelOnClose(reply);
      const answer = await client.post({ path: '/embeddings', body: { ...prepared.passthrough, input: outcome.response.safe_json }, ...upstreamCredential(deps, request), signal: cancel.signal }, false);
      const headers = await commit(outcome, answer, request.id);
      // Vectors carry no text: the answer passes unchanged.
      const body = await answer.json();
      request.log.info({ event: 'proxy_completed', route: 'embeddings', trace_id: fingerprint(outcome.response.trace_id) }, 'proxy_completed');
      return reply.headers(headers).send(body);
    });
  };
}
