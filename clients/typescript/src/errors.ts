// Typed errors: one class per family of Veil error codes, so callers catch what they can act on
// (`catch (e) { if (e instanceof RateLimitError) ... }`) and still read the exact `code`. Every
// error carries the HTTP status, the code of the server's envelope {code, error, request_id}
// and its request id. Messages are the server's own, which name fields, never values.
import { ERROR_CODES, type ErrorCode } from './generated/api.js';

/** Any failure of a call to Veil. */
export class VeilError extends Error {
  /** A Veil error code (`VEIL_*`), or a client-side one (VEIL_CONNECTION_FAILED, VEIL_STREAM_FAILED). */
  readonly code: string;
  /** The HTTP status (0 when no answer arrived). */
  readonly status: number;
  /** The server's request id, to quote when reporting a problem. */
  readonly requestId: string | undefined;
  /** Seconds the server asked to wait before retrying (Retry-After), when it said. */
  readonly retryAfterSeconds: number | undefined;

  constructor(message: string, options: { code: string; status: number; requestId?: string | undefined; retryAfterSeconds?: number | undefined; cause?: unknown }) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = new.target.name;
    this.code = options.code;
    this.status = options.status;
    this.requestId = options.requestId;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** The request was refused as invalid: a field, the body size, the media type or a processing limit. */
export class ValidationError extends VeilError {}
/** No credential, a bad one, or credentials that cannot be verified right now. */
export class AuthenticationError extends VeilError {}
/** A missing scope, or the policy denied the request. */
export class PermissionDeniedError extends VeilError {}
/** Unknown route or method. */
export class NotFoundError extends VeilError {}
/** The session cannot be used: expired, invalidated, tampered, or continued twice (replay). */
export class SessionError extends VeilError {}
/** An Idempotency-Key problem: invalid, reused for another request, in progress, or not replayable. */
export class IdempotencyError extends VeilError {}
/** Too many requests, or the tenant is at its quota of a store: wait `retryAfterSeconds`. */
export class RateLimitError extends VeilError {}
/** Prompt security or the output guard refused the content. */
export class ContentRejectedError extends VeilError {}
/** A store, the audit trail, OCR or the service itself is unavailable right now. */
export class UnavailableError extends VeilError {}
/** The NER detector failed or timed out. */
export class DetectionError extends VeilError {}
/** The OpenAI-compatible proxy's upstream model failed. */
export class UpstreamError extends VeilError {}
/** The server failed unexpectedly. */
export class InternalServerError extends VeilError {}
/** No answer: the connection failed or the call timed out. */
export class ConnectionError extends VeilError {}
/** A stream ended with an error frame after it had started. */
export class StreamError extends VeilError {}

type ErrorClass = new (message: string, options: ConstructorParameters<typeof VeilError>[1]) => VeilError;

/**
 * The family of every code. Keyed by string rather than ErrorCode so a code a newer server adds
 * (and a regenerated ErrorCode union) never breaks the build; a test checks every generated code
 * has an entry here.
 */
export const ERROR_FAMILIES: Readonly<Record<string, ErrorClass>> = {
  VEIL_VALIDATION_FAILED: ValidationError,
  VEIL_PAYLOAD_TOO_LARGE: ValidationError,
  VEIL_UNSUPPORTED_MEDIA_TYPE: ValidationError,
  VEIL_LIMIT_EXCEEDED: ValidationError,
  VEIL_AUTH_REQUIRED: AuthenticationError,
  VEIL_AUTH_INVALID: AuthenticationError,
  VEIL_AUTH_UNAVAILABLE: AuthenticationError,
  VEIL_SCOPE_DENIED: PermissionDeniedError,
  VEIL_POLICY_DENIED: PermissionDeniedError,
  VEIL_NOT_FOUND: NotFoundError,
  VEIL_METHOD_NOT_ALLOWED: NotFoundError,
  VEIL_SESSION_EXPIRED: SessionError,
  VEIL_SESSION_REPLAY: SessionError,
  VEIL_REPLAY_STORE_UNAVAILABLE: UnavailableError,
  VEIL_IDEMPOTENCY_KEY_INVALID: IdempotencyError,
  VEIL_IDEMPOTENCY_KEY_REUSE: IdempotencyError,
  VEIL_IDEMPOTENCY_IN_PROGRESS: IdempotencyError,
  VEIL_IDEMPOTENCY_RESULT_UNAVAILABLE: IdempotencyError,
  VEIL_IDEMPOTENCY_STORE_FULL: IdempotencyError,
  VEIL_RATE_LIMITED: RateLimitError,
  VEIL_QUOTA_EXCEEDED: RateLimitError,
  VEIL_PROMPT_REJECTED: ContentRejectedError,
  VEIL_OUTPUT_BLOCKED: ContentRejectedError,
  VEIL_AUDIT_UNAVAILABLE: UnavailableError,
  VEIL_STORE_UNAVAILABLE: UnavailableError,
  VEIL_OCR_UNAVAILABLE: UnavailableError,
  VEIL_NOT_READY: UnavailableError,
  VEIL_OVERLOADED: UnavailableError,
  VEIL_REQUEST_TIMEOUT: UnavailableError,
  VEIL_DETECTION_FAILED: DetectionError,
  VEIL_UPSTREAM_FAILED: UpstreamError,
  VEIL_INTERNAL: InternalServerError,
};

/** The generated codes (from the OpenAPI document) this client knows. */
export const KNOWN_ERROR_CODES: readonly ErrorCode[] = ERROR_CODES;

/** The class for an answer without a usable envelope, by status. */
function classOfStatus(status: number): ErrorClass {
  if (status === 401) return AuthenticationError;
  if (status === 403) return PermissionDeniedError;
  if (status === 404 || status === 405) return NotFoundError;
  if (status === 410) return SessionError;
  if (status === 429) return RateLimitError;
  if (status === 502 || status === 504) return UpstreamError;
  if (status === 503) return UnavailableError;
  if (status >= 500) return InternalServerError;
  return ValidationError;
}

/** Retry-After as seconds (a number or an HTTP date). */
export function retryAfterOf(header: string | null, nowMs = Date.now()): number | undefined {
  if (header === null) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - nowMs) / 1000));
}

/** The typed error of an error answer (its body already read as text). */
export function errorFromAnswer(status: number, bodyText: string, headers: Headers): VeilError {
  let code: string | undefined;
  let message: string | undefined;
  let requestId: string | undefined;
  try {
    const body = JSON.parse(bodyText) as { code?: unknown; error?: unknown; request_id?: unknown };
    if (typeof body.code === 'string') code = body.code;
    // The envelope's `error` is the message; the proxy's OpenAI-shaped errors nest it.
    if (typeof body.error === 'string') message = body.error;
    else if (typeof body.error === 'object' && body.error !== null && typeof (body.error as { message?: unknown }).message === 'string') message = (body.error as { message: string }).message;
    if (typeof body.request_id === 'string') requestId = body.request_id;
  } catch {
    // Not an envelope (a proxy in front of Veil, say): the status decides.
  }
  const ErrorType = (code !== undefined ? ERROR_FAMILIES[code] : undefined) ?? classOfStatus(status);
  return new ErrorType(message ?? `HTTP ${status}`, { code: code ?? `HTTP_${status}`, status, requestId, retryAfterSeconds: retryAfterOf(headers.get('retry-after')) });
}
