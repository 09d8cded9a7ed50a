// The OpenAI-compatible proxy (docs/api.md, "OpenAI-compatible proxy"): POST
// /openai/v1/chat/completions and /openai/v1/embeddings, so the official SDKs work with
// `baseURL: <veil>/openai/v1`. Thin adapters: the Veil parameters come as `x-veil-*` headers
// (validated exactly like the body fields of /v1/transform and /v1/rehydrate), the upstream
// credential is chosen here, and the proxy use case (usecases/proxy.ts) runs the whole sequence:
// tokenize through the chat transform, prepare the restore (deny list, revocations, channels)
// before the upstream is paid, call it, commit the continuation once it answered, restore the
// answer whole or chunk by chunk (the per-delta session checks of /v1/rehydrate/stream).
// `content` and `refusal` restore under the requested output channel (user_output by default);
// tool-call and function-call arguments under `tool_payload`.
//
// Session across turns: the response carries the session in `x-veil-session-state` (sealed
// backend) or `x-veil-session-id` (server-side backends); a client that sends it back with the
// next turn keeps every value on its token, the values in the history it sends back included.
// Errors take OpenAI's shape under /openai/ (plugins/errors.ts), so the SDKs raise APIError.
import { VeilError } from '@veil/common';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { auditFacts } from '../audit/facts.js';
import type { UseCases } from '../compose.js';
import type { ConfigSlice } from '../config/index.js';
import { openAiErrorType, validationMessage } from '../plugins/errors.js';
import type { ProxyCommitted, UpstreamAccess } from '../usecases/proxy.js';
import type { TransformCommand } from '../usecases/transform.js';
import { callerOf, callOf, fingerprint, policyFact, principalOf, type CallerDeps, type Principal } from './common.js';
import { LabelSchema, LanguageSchema, PolicyNameSchema, RestoreModeSchema, SessionStateSchema, TraceIdSchema, type TransformBody } from './schemas.js';
import { runSseStream, untilAborted } from './sse.js';
import { commandOf } from './transform.js';

export { TOOL_CHANNEL } from '../usecases/proxy.js';

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

/**
 * How the upstream is called for this request: the credential (see docs/api.md: the caller's own
 * only when passing through is allowed) and a signal that aborts when the client goes away
 * before the response is complete.
 */
function upstreamAccess(deps: ConfigSlice<'proxy'>, request: FastifyRequest, reply: FastifyReply): UpstreamAccess {
  const signal = (): AbortSignal => {
    const controller = new AbortController();
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) controller.abort(new Error('client closed'));
    });
    return controller.signal;
  };
  const proxy = deps.config.proxy;
  const header = request.headers.authorization;
  if (proxy.pass_through_api_key && typeof header === 'string' && /^Bearer [\x21-\x7e]{1,4096}$/.test(header)) {
    return { authorization: header, callerCredential: true, signal };
  }
  if (proxy.upstream_api_key !== undefined) return { authorization: `Bearer ${proxy.upstream_api_key.reveal()}`, callerCredential: false, signal };
  return { callerCredential: false, signal };
}

/** The session handle and warnings as response headers (never a value: tokens only in the blob); `later` warnings come after the handle's own note. */
function responseHeaders(committed: ProxyCommitted, requestId: string, later: readonly string[] = []): Record<string, string | string[]> {
  const handle = committed.handle;
  const headers: Record<string, string | string[]> = { 'x-request-id': requestId };
  const notes = [...(committed.warnings ?? [])];
  if ('session_id' in handle) headers[SESSION_ID_HEADER] = handle.session_id;
  else if (handle.session_state.length <= MAX_STATE_HEADER) headers[SESSION_STATE_HEADER] = handle.session_state;
  else notes.push(`the session state is longer than ${MAX_STATE_HEADER} characters and was not sent; use a server-side session backend (session.backend memory or redis) to carry long conversations`);
  notes.push(...later);
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

/** The proxied call's transform command (headers as the body fields of /v1/transform); its policy and trace on record first. */
function commandFor(deps: CallerDeps, request: FastifyRequest, params: ProxyParams, principal: Principal, input: Pick<TransformBody, 'input_messages' | 'input_json'>): TransformCommand {
  auditFacts(request, { ...policyFact(deps, params.policy), ...(params.trace_id !== undefined ? { trace_id: params.trace_id } : {}) });
  return { ...commandOf(deps, transformBody(params, input), principal), sessionState: params.session_state, sessionId: params.session_id };
}

export function openAiRoutes(deps: CallerDeps & ConfigSlice<'auth' | 'proxy' | 'limits'>, useCases: Pick<UseCases, 'scopeOf' | 'proxy'>) {
  const proxy = useCases.proxy;
  return function register(app: FastifyInstance): void {
    app.post(
      '/openai/v1/chat/completions',
      { schema: { body: OpenAiBodySchema }, config: { scope: ['transform', 'rehydrate'] } },
      async (request, reply) => {
        proxy.upstream();
        const principal = principalOf(request);
        const params = headerParams(request);
        const prepared = proxy.prepareChat(request.body);
        const command = commandFor(deps, request, params, principal, { input_messages: prepared.messages });
        const restore = { restoreMode: params.restore_mode, channel: params.output_channel ?? 'user_output', caller: callerOf(deps, principal, undefined) };
        const done = await proxy.chat(callOf(useCases, request), command, prepared, restore, upstreamAccess(deps, request, reply));
        const trace = fingerprint(done.traceId);

        if (!done.stream) {
          request.log.info({ event: 'proxy_completed', trace_id: trace, resolved: done.tokensResolved, unresolved: done.unresolved }, 'proxy_completed');
          return reply.headers(responseHeaders(done, request.id, done.guardWarnings)).send(done.value);
        }

        const stream = done.restore;
        await runSseStream({
          reply,
          log: request.log,
          route: 'proxy_chat_completions',
          maxSeconds: deps.config.limits.max_stream_seconds,
          writeTimeoutSeconds: deps.config.limits.stream_write_timeout_seconds,
          headers: responseHeaders(done, request.id),
          errorFrame: openAiErrorFrame,
          produce: async (writer, deadline) => {
            const events = stream.events;
            let sawDone = false;
            try {
              for (let next = await untilAborted(events.next(), deadline); next.done !== true; next = await untilAborted(events.next(), deadline)) {
                if (writer.closed) return undefined;
                if (next.value === '[DONE]') {
                  sawDone = true;
                  break;
                }
                const out = await stream.chunk(next.value);
                if (out !== undefined && !(await writer.event(JSON.stringify(out)))) return undefined;
              }
              const last = await stream.finish(sawDone);
              if (last !== undefined && !(await writer.event(JSON.stringify(last)))) return undefined;
              request.log.info(
                { event: 'proxy_completed', streamed: true, trace_id: trace, resolved: stream.tokensResolved, unresolved: stream.tokensUnresolved.length },
                'proxy_completed',
              );
              await writer.event('[DONE]');
              return undefined;
            } finally {
              await stream.close();
            }
          },
        });
        return reply;
      },
    );

    app.post('/openai/v1/embeddings', { schema: { body: OpenAiBodySchema }, config: { scope: 'transform' } }, async (request, reply) => {
      proxy.upstream();
      const principal = principalOf(request);
      const params = headerParams(request);
      const prepared = proxy.prepareEmbeddings(request.body);
      const command = commandFor(deps, request, params, principal, { input_json: prepared.input });
      const done = await proxy.embeddings(callOf(useCases, request), command, prepared, upstreamAccess(deps, request, reply));
      request.log.info({ event: 'proxy_completed', route: 'embeddings', trace_id: fingerprint(done.traceId) }, 'proxy_completed');
      return reply.headers(responseHeaders(done, request.id)).send(done.body);
    });
  };
}
