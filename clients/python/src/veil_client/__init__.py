"""veil-client: typed Python client for the Veil tokenization API (docs/api.md).

``Client`` (sync) and ``AsyncClient`` cover every route with typed errors and retries, and
``restore_stream`` turns a model's delta stream into restored text as it streams.
"""

from ._client import AsyncClient, Client, FileField, JSONObject
from ._errors import (
    ERROR_FAMILIES,
    AuthenticationError,
    ConnectionError,
    ContentRejectedError,
    DetectionError,
    IdempotencyError,
    InternalServerError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    SessionError,
    StreamError,
    UnavailableError,
    UpstreamError,
    ValidationError,
    VeilError,
)
from ._routes import ERROR_CODES, ROUTES, Route

__all__ = [
    "ERROR_CODES",
    "ERROR_FAMILIES",
    "ROUTES",
    "AsyncClient",
    "AuthenticationError",
    "Client",
    "ConnectionError",
    "ContentRejectedError",
    "DetectionError",
    "FileField",
    "IdempotencyError",
    "InternalServerError",
    "JSONObject",
    "NotFoundError",
    "PermissionDeniedError",
    "RateLimitError",
    "Route",
    "SessionError",
    "StreamError",
    "UnavailableError",
    "UpstreamError",
    "ValidationError",
    "VeilError",
]
