"""Typed errors: one class per family of Veil error codes (the same families as the TypeScript client).

Every error carries the HTTP status, the ``code`` of the server's envelope ``{code, error,
request_id}``, its request id and, when the server said, how long to wait (Retry-After).
"""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Mapping


class VeilError(Exception):
    """Any failure of a call to Veil."""

    def __init__(
        self,
        message: str,
        *,
        code: str,
        status: int,
        request_id: str | None = None,
        retry_after_seconds: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.status = status
        self.request_id = request_id
        self.retry_after_seconds = retry_after_seconds


class ValidationError(VeilError):
    """The request was refused as invalid: a field, the body size, the media type or a limit."""


class AuthenticationError(VeilError):
    """No credential, a bad one, or credentials that cannot be verified right now."""


class PermissionDeniedError(VeilError):
    """A missing scope, or the policy denied the request."""


class NotFoundError(VeilError):
    """Unknown route or method."""


class SessionError(VeilError):
    """The session cannot be used: expired, invalidated, tampered, or continued twice."""


class IdempotencyError(VeilError):
    """An Idempotency-Key problem."""


class RateLimitError(VeilError):
    """Too many requests, or the tenant is at its quota of a store: wait ``retry_after_seconds``."""


class ContentRejectedError(VeilError):
    """Prompt security or the output guard refused the content."""


class UnavailableError(VeilError):
    """A store, the audit trail, OCR or the service is unavailable right now (or overloaded)."""


class DetectionError(VeilError):
    """The NER detector failed or timed out."""


class UpstreamError(VeilError):
    """The OpenAI-compatible proxy's upstream model failed."""


class InternalServerError(VeilError):
    """The server failed unexpectedly."""


class ConnectionError(VeilError):  # the family name of the TypeScript client (shadows the builtin)
    """No answer: the connection failed or the call timed out."""


class StreamError(VeilError):
    """A stream ended with an error frame after it had started."""


ERROR_FAMILIES: Mapping[str, type[VeilError]] = {
    "VEIL_VALIDATION_FAILED": ValidationError,
    "VEIL_PAYLOAD_TOO_LARGE": ValidationError,
    "VEIL_UNSUPPORTED_MEDIA_TYPE": ValidationError,
    "VEIL_LIMIT_EXCEEDED": ValidationError,
    "VEIL_AUTH_REQUIRED": AuthenticationError,
    "VEIL_AUTH_INVALID": AuthenticationError,
    "VEIL_AUTH_UNAVAILABLE": AuthenticationError,
    "VEIL_SCOPE_DENIED": PermissionDeniedError,
    "VEIL_POLICY_DENIED": PermissionDeniedError,
    "VEIL_NOT_FOUND": NotFoundError,
    "VEIL_METHOD_NOT_ALLOWED": NotFoundError,
    "VEIL_SESSION_EXPIRED": SessionError,
    "VEIL_SESSION_REPLAY": SessionError,
    "VEIL_REPLAY_STORE_UNAVAILABLE": UnavailableError,
    "VEIL_IDEMPOTENCY_KEY_INVALID": IdempotencyError,
    "VEIL_IDEMPOTENCY_KEY_REUSE": IdempotencyError,
    "VEIL_IDEMPOTENCY_IN_PROGRESS": IdempotencyError,
    "VEIL_IDEMPOTENCY_RESULT_UNAVAILABLE": IdempotencyError,
    "VEIL_IDEMPOTENCY_STORE_FULL": IdempotencyError,
    "VEIL_RATE_LIMITED": RateLimitError,
    "VEIL_QUOTA_EXCEEDED": RateLimitError,
    "VEIL_PROMPT_REJECTED": ContentRejectedError,
    "VEIL_OUTPUT_BLOCKED": ContentRejectedError,
    "VEIL_AUDIT_UNAVAILABLE": UnavailableError,
    "VEIL_STORE_UNAVAILABLE": UnavailableError,
    "VEIL_OCR_UNAVAILABLE": UnavailableError,
    "VEIL_NOT_READY": UnavailableError,
    "VEIL_OVERLOADED": UnavailableError,
    "VEIL_REQUEST_TIMEOUT": UnavailableError,
    "VEIL_DETECTION_FAILED": DetectionError,
    "VEIL_UPSTREAM_FAILED": UpstreamError,
    "VEIL_INTERNAL": InternalServerError,
}


def _class_of_status(status: int) -> type[VeilError]:
    by_status: dict[int, type[VeilError]] = {
        401: AuthenticationError,
        403: PermissionDeniedError,
        404: NotFoundError,
        405: NotFoundError,
        410: SessionError,
        429: RateLimitError,
        502: UpstreamError,
        503: UnavailableError,
        504: UpstreamError,
    }
    if status in by_status:
        return by_status[status]
    return InternalServerError if status >= 500 else ValidationError


def retry_after_of(header: str | None) -> int | None:
    """Retry-After as whole seconds (a number of seconds or an HTTP date)."""
    if header is None:
        return None
    text = header.strip()
    if text.isdigit():
        return int(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    return max(0, int(when.timestamp() - time.time() + 0.999))


def error_from_answer(status: int, body: bytes, headers: Mapping[str, str]) -> VeilError:
    """The typed error of an error answer."""
    code: str | None = None
    message: str | None = None
    request_id: str | None = None
    try:
        parsed = json.loads(body)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        if isinstance(parsed.get("code"), str):
            code = parsed["code"]
        error = parsed.get("error")
        # The envelope's `error` is the message; the proxy's OpenAI-shaped errors nest it.
        if isinstance(error, str):
            message = error
        elif isinstance(error, dict) and isinstance(error.get("message"), str):
            message = error["message"]
        if isinstance(parsed.get("request_id"), str):
            request_id = parsed["request_id"]
    family = ERROR_FAMILIES.get(code or "") or _class_of_status(status)
    return family(
        message or f"HTTP {status}",
        code=code or f"HTTP_{status}",
        status=status,
        request_id=request_id,
        retry_after_seconds=retry_after_of(headers.get("retry-after")),
    )
