// One envelope, one handler: every error leaves as {code, error, request_id}. Validation
// messages name the field, never its value; framework messages (which can quote the body, as
// JSON.parse does) are never forwarded. Each error response is logged once with its detail.
// Under /openai/ (the OpenAI-compatible proxy) the same error takes OpenAI's shape, so the
// official SDKs raise their APIError with the message: `error` is then an object
// {message, type, code, param} and `code` and `request_id` stay at the top level.
import { ERROR_CODES, isVeilError, VeilError, type ErrorCode } from '@veil/common';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requestSlot } from './request-slot.js';

export interface ErrorBody {
  code: ErrorCode;
  error: string;
  request_id: string;
}

/** The error body of the OpenAI-compatible routes (OpenAI's shape plus Veil's top-level fields). */
export interface OpenAiErrorBody {
  code: ErrorCode;
  error: { message: string; type: string; code: ErrorCode; param: null };
  request_id: string;
}

/** Paths whose errors take OpenAI's shape (routes/openai.ts). */
export const OPENAI_PREFIX = '/openai/';

/** OpenAI's error `type` for a status, as its SDKs map them to error classes. */
export function openAiErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

/** The body of an error response for `request`: the envelope, or OpenAI's shape under /openai/. */
export function errorBodyFor(request: FastifyRequest, code: ErrorCode, message: string, status: number): ErrorBody | OpenAiErrorBody {
  if (request.url.startsWith(OPENAI_PREFIX)) {
    return { code, error: { message, type: openAiErrorType(status), code, param: null }, request_id: request.id };
  }
  return { code, error: message, request_id: request.id };
}

/** Field names from the request are echoed only when they look like identifiers. */
const SAFE_FIELD = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

interface AjvIssue {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

function fieldPath(instancePath: string | undefined): string {
  if (instancePath === undefined || instancePath === '') return 'body';
  const segments = instancePath.split('/').slice(1);
  const rendered = segments.map((segment) => (/^\d+$/.test(segment) ? `[${segment}]` : SAFE_FIELD.test(segment) ? `.${segment}` : '.<field>'));
  return rendered.join('').replace(/^\./, '');
}

/** Turn an ajv issue into a message that names the field and the rule, never a value. */
export function validationMessage(issue: AjvIssue | undefined): string {
  if (issue === undefined) return 'request validation failed';
  const path = fieldPath(issue.instancePath);
  const params = issue.params ?? {};
  switch (issue.keyword) {
    case 'required': {
      const missing = params.missingProperty;
      const name = typeof missing === 'string' && SAFE_FIELD.test(missing) ? missing : '<field>';
      return `${path === 'body' ? '' : `${path}.`}${name}: is required`;
    }
    case 'additionalProperties': {
      const extra = params.additionalProperty;
      const name = typeof extra === 'string' && SAFE_FIELD.test(extra) ? extra : '<field>';
      return `${path === 'body' ? '' : `${path}.`}${name}: unknown field`;
    }
    case 'type':
      return `${path}: must be ${typeof params.type === 'string' ? params.type : 'of another type'}`;
    case 'enum':
      return `${path}: must be one of the allowed values`;
    case 'maxLength':
    case 'minLength':
    case 'maxItems':
    case 'minItems':
    case 'maximum':
    case 'minimum':
    case 'maxProperties':
    case 'minProperties':
      return `${path}: ${issue.message ?? 'out of range'}`;
    case 'pattern':
    case 'format':
      return `${path}: has an invalid format`;
    default:
      return `${path}: is invalid`;
  }
}

function toVeilError(error: FastifyError | VeilError | Error): VeilError {
  if (isVeilError(error)) return error;
  const fastifyError = error as FastifyError & { validation?: AjvIssue[] };
  if (Array.isArray(fastifyError.validation)) {
    return new VeilError('VEIL_VALIDATION_FAILED', validationMessage(fastifyError.validation[0]));
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new VeilError('VEIL_PAYLOAD_TOO_LARGE', 'request body exceeds the size limit');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new VeilError('VEIL_UNSUPPORTED_MEDIA_TYPE', 'unsupported Content-Type; send application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new VeilError('VEIL_VALIDATION_FAILED', 'body: is required');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new VeilError('VEIL_VALIDATION_FAILED', 'body: is not valid JSON');
    default:
      break;
  }
  const status = fastifyError.statusCode;
  if (status === 413) return new VeilError('VEIL_PAYLOAD_TOO_LARGE', 'request body exceeds the size limit');
  if (status === 415) return new VeilError('VEIL_UNSUPPORTED_MEDIA_TYPE', 'unsupported Content-Type; send application/json');
  if (status !== undefined && status >= 400 && status < 500) {
    // Body-parser failures (e.g. JSON syntax): their text may quote the body, so say less.
    return new VeilError('VEIL_VALIDATION_FAILED', 'body: is not valid JSON', fastifyError.code);
  }
  return new VeilError('VEIL_INTERNAL', ERROR_CODES.VEIL_INTERNAL.message, fastifyError.code ?? error.name);
}

/**
 * The frames of a stack without its first line: that line is the error's message, which for
 * a parser or a library error can quote the input.
 */
function stackFrames(stack: string | undefined): string | undefined {
  return stack
    ?.split('\n')
    .filter((line) => line.trimStart().startsWith('at '))
    .join('\n');
}

/** The code of the error envelope a request was answered with (metrics read it). */
const sentCodes = requestSlot<ErrorCode>('veil.error-code');

export function errorCodeOf(request: FastifyRequest): ErrorCode | undefined {
  return sentCodes.get(request);
}

/**
 * Answer with the envelope and log the failure: exactly one error-level line per error
 * response, with `extra` (an internal error's stack) folded into that same line.
 */
export function sendError(request: FastifyRequest, reply: FastifyReply, error: VeilError, extra: Record<string, unknown> = {}): FastifyReply {
  sentCodes.set(request, error.code);
  request.log.error(
    { ...extra, request_id: request.id, error_code: error.code, status: error.status, detail: error.detail },
    'request failed',
  );
  const body = errorBodyFor(request, error.code, error.message, error.status);
  // OpenAI's SDKs read the request id from this header (APIError.requestID).
  if (request.url.startsWith(OPENAI_PREFIX)) void reply.header('x-request-id', request.id);
  if (error.code === 'VEIL_METHOD_NOT_ALLOWED') void reply.header('allow', (error.detail ?? '').replace(/^allow: /, ''));
  // decisions.md 6: 429 carries Retry-After in whole seconds. Any error that knows when trying
  // again makes sense says so (RateLimitedError, TenantQuotaError, an upstream's 429 or 503
  // relayed by the proxy when the upstream said when to come back: clients/upstream.ts).
  const retryAfter = (error as { readonly retryAfterSeconds?: unknown }).retryAfterSeconds;
  if (typeof retryAfter === 'number' && Number.isSafeInteger(retryAfter) && retryAfter >= 0) void reply.header('retry-after', String(retryAfter));
  return reply.code(error.status).type('application/json; charset=utf-8').send(body);
}

export function registerErrorHandling(app: FastifyInstance): void {
  const methodsByPath = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const set = methodsByPath.get(route.url) ?? new Set<string>();
    for (const method of methods) set.add(method);
    methodsByPath.set(route.url, set);
  });

  app.setErrorHandler((error: FastifyError | VeilError, request, reply) => {
    const veilError = toVeilError(error);
    // Internal errors: the stack is internal detail, logged (on the one error line), never returned.
    const extra = veilError.code === 'VEIL_INTERNAL' ? { err: { type: error.name, stack: stackFrames(error.stack) } } : {};
    return sendError(request, reply, veilError, extra);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? request.url;
    const allowed = methodsByPath.get(path);
    if (allowed !== undefined && allowed.size > 0) {
      const allow = [...allowed].sort().join(', ');
      return sendError(request, reply, new VeilError('VEIL_METHOD_NOT_ALLOWED', `method ${request.method} not allowed on this route`, `allow: ${allow}`));
    }
    return sendError(request, reply, new VeilError('VEIL_NOT_FOUND'));
  });
}
