// The one error-code table (decisions.md section 6, interface.md section 7). Every error the
// service returns is a VeilError carrying one of these codes; the HTTP status comes from here
// and nowhere else. docs/api.md mirrors this table and a test checks the two agree.

export const ERROR_CODES = {
  VEIL_VALIDATION_FAILED: { status: 400, message: 'request validation failed' },
  VEIL_AUTH_REQUIRED: { status: 401, message: 'authentication required' },
  VEIL_AUTH_INVALID: { status: 401, message: 'invalid credentials' },
  VEIL_AUTH_UNAVAILABLE: { status: 503, message: 'credentials cannot be verified right now' },
  VEIL_SCOPE_DENIED: { status: 403, message: 'missing required scope' },
  VEIL_POLICY_DENIED: { status: 403, message: 'request denied by policy' },
  VEIL_NOT_FOUND: { status: 404, message: 'route not found' },
  VEIL_METHOD_NOT_ALLOWED: { status: 405, message: 'method not allowed' },
  VEIL_SESSION_EXPIRED: { status: 410, message: 'session expired or invalid' },
  VEIL_PAYLOAD_TOO_LARGE: { status: 413, message: 'payload too large' },
  VEIL_UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'unsupported media type' },
  VEIL_RATE_LIMITED: { status: 429, message: 'rate limit exceeded' },
  VEIL_QUOTA_EXCEEDED: { status: 429, message: "the tenant's share of a state store is used up" },
  VEIL_IDEMPOTENCY_KEY_INVALID: { status: 400, message: 'Idempotency-Key must be 1 to 255 printable ASCII characters' },
  VEIL_IDEMPOTENCY_KEY_REUSE: { status: 409, message: 'Idempotency-Key reused with a different request' },
  VEIL_IDEMPOTENCY_IN_PROGRESS: { status: 409, message: 'a request with this Idempotency-Key is in progress' },
  VEIL_IDEMPOTENCY_RESULT_UNAVAILABLE: { status: 409, message: 'request completed but its response is too large to replay' },
  VEIL_IDEMPOTENCY_STORE_FULL: { status: 503, message: 'idempotency store at capacity' },
  VEIL_SESSION_REPLAY: { status: 409, message: 'session continuation replayed' },
  VEIL_REPLAY_STORE_UNAVAILABLE: { status: 503, message: 'replay store unavailable' },
  VEIL_AUDIT_UNAVAILABLE: { status: 503, message: 'audit trail unavailable' },
  VEIL_STORE_UNAVAILABLE: { status: 503, message: 'state store unavailable' },
  VEIL_OCR_UNAVAILABLE: { status: 501, message: 'OCR engine unavailable' },
  VEIL_DETECTION_FAILED: { status: 502, message: 'detection failed' },
  VEIL_LIMIT_EXCEEDED: { status: 413, message: 'input exceeds a processing limit' },
  VEIL_PROMPT_REJECTED: { status: 422, message: 'input rejected by prompt security' },
  VEIL_OUTPUT_BLOCKED: { status: 422, message: 'output blocked by output protection' },
  VEIL_NOT_READY: { status: 503, message: 'service not ready' },
  VEIL_OVERLOADED: { status: 503, message: 'server overloaded; retry later' },
  VEIL_REQUEST_TIMEOUT: { status: 408, message: 'request not received in time' },
  VEIL_UPSTREAM_FAILED: { status: 502, message: 'upstream model request failed' },
  VEIL_INTERNAL: { status: 500, message: 'internal error' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * The only error type that crosses module boundaries toward HTTP. `message` is safe to return
 * to a client (it names fields, never values); `detail` is internal and only ever logged.
 */
export class VeilError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly detail: string | undefined;

  /** `status` overrides the table only where one code has several statuses: decisions.md's
   * VEIL_DETECTION_FAILED (502 on a sidecar error, 504 on its timeout) and the proxy's
   * VEIL_UPSTREAM_FAILED (502, 504 on a timeout, or the upstream's own 4xx). */
  constructor(code: ErrorCode, message?: string, detail?: string, status?: number) {
    super(message ?? ERROR_CODES[code].message);
    this.name = 'VeilError';
    this.code = code;
    this.status = status ?? ERROR_CODES[code].status;
    this.detail = detail;
  }
}

export function isVeilError(error: unknown): error is VeilError {
  return error instanceof VeilError;
}
