"""HTTP API of veil-ner (interface.md 4.27) on Starlette.

Routes: GET /livez, /readyz, /health (no credential) and POST /v1/detect, /v1/detect/batch
(header `X-Detector-API-Key`, compared in constant time). Without a configured secret every
detect call answers 503 unless VEIL_NER_ALLOW_INSECURE=1. Bodies are bounded while they are read,
requests are validated strictly (unknown fields rejected; text that is not well-formed Unicode,
such as a lone surrogate escaped in the JSON, is a 400, never a model crash), and error bodies are
`{error}` with messages that name a field but never echo request text. Model inference runs one
call at a time (a lock): a short request (at most INLINE_MAX_CHARS of text, about 20 ms of model
time) runs on the event loop itself when the model is free, saving the hand-off to a thread and
back (about 0.5 ms of a 1 KB request's 11 ms, docs/ner.md); anything longer, or a short request
while the model is busy, goes to one dedicated worker thread, so probes wait at most one short
call and stay responsive while a long text is being processed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import threading
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from . import SERVICE_NAME, __version__
from .config import Settings, normalize_language
from .detector import Detector, Item, State

log = logging.getLogger("veil_ner.app")

API_KEY_HEADER = "x-detector-api-key"
# Requests with at most this many characters of text in all run inline when the model is free.
INLINE_MAX_CHARS = 2048
MAX_LABELS = 64
MAX_LABEL_CHARS = 64
FIELD_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,39}")


class ApiError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def json_response(body: dict[str, Any], status: int = 200) -> Response:
    payload = json.dumps(body, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return Response(
        payload,
        status_code=status,
        media_type="application/json",
        headers={"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"},
    )


def error_response(status: int, message: str) -> Response:
    return json_response({"error": message}, status)


# --- request parsing ------------------------------------------------------------------------


async def read_json(request: Request, max_bytes: int) -> object:
    content_type = request.headers.get("content-type", "")
    if content_type.split(";", 1)[0].strip().lower() != "application/json":
        raise ApiError(415, "content-type must be application/json")
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise ApiError(400, "invalid content-length")
        if int(declared) > max_bytes:
            raise ApiError(413, f"request body exceeds {max_bytes} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_bytes:
            raise ApiError(413, f"request body exceeds {max_bytes} bytes")
        chunks.append(chunk)
    try:
        return json.loads(b"".join(chunks).decode("utf-8"))
    except (ValueError, RecursionError):  # bad UTF-8, bad JSON, oversized integers, deep nesting
        raise ApiError(400, "body is not valid JSON") from None


def well_formed(value: str) -> bool:
    """False when `value` holds a lone surrogate (JSON allows `\\ud800`; UTF-8 and the model do not)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def unknown_field(prefix: str, name: object) -> ApiError:
    # Field names are the caller's keys, not text values; quoted only when plainly an identifier.
    shown = name if isinstance(name, str) and FIELD_NAME.fullmatch(name) else "(a field)"
    return ApiError(400, f"{prefix}{shown}: unknown field")


def parse_item(raw: object, path: str, max_text_chars: int) -> Item:
    if not isinstance(raw, dict):
        raise ApiError(400, f"{path or 'body'}: must be an object")
    prefix = f"{path}." if path else ""
    unknown = sorted(set(raw) - {"text", "language", "labels"})
    if unknown:
        raise unknown_field(prefix, unknown[0])
    text = raw.get("text")
    if not isinstance(text, str):
        raise ApiError(400, f"{prefix}text: must be a string")
    if not well_formed(text):
        raise ApiError(400, f"{prefix}text: must be valid Unicode (it holds an unpaired surrogate)")
    if len(text) > max_text_chars:
        raise ApiError(413, f"{prefix}text: exceeds {max_text_chars} characters")
    language: str | None = None
    if raw.get("language") is not None:
        value = raw["language"]
        if not isinstance(value, str) or len(value) > 35 or (language := normalize_language(value)) is None:
            raise ApiError(400, f"{prefix}language: must be a language code such as en or en-US")
    labels: frozenset[str] | None = None
    if raw.get("labels") is not None:
        value = raw["labels"]
        if (
            not isinstance(value, list)
            or len(value) > MAX_LABELS
            or not all(isinstance(label, str) and 0 < len(label) <= MAX_LABEL_CHARS for label in value)
            or not all(well_formed(label) for label in value)
        ):
            raise ApiError(400, f"{prefix}labels: must be an array of at most {MAX_LABELS} non-empty strings")
        labels = frozenset(value)
    return Item(text=text, language=language, labels=labels)


# --- the application ------------------------------------------------------------------------


class Service:
    """State shared by the route handlers: settings, detector, worker thread, admission counter."""

    def __init__(
        self, settings: Settings, detector: Detector, on_fatal: Callable[[str], None] | None
    ) -> None:
        self.settings = settings
        self.detector = detector
        self.on_fatal = on_fatal
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="veil-ner-model")
        self.model_lock = threading.Lock()  # one model call at a time, inline or on the worker
        self.pending = 0

    def auth_mode(self) -> str:
        if self.settings.api_key is not None:
            return "required"
        return "insecure" if self.settings.allow_insecure else "unconfigured"

    def check_auth(self, request: Request) -> None:
        key = self.settings.api_key
        if key is None:
            if self.settings.allow_insecure:
                return
            raise ApiError(503, "detector API key not configured (set VEIL_NER_API_KEY)")
        presented = request.headers.get(API_KEY_HEADER)
        if presented is None or not key.matches(presented.encode("utf-8", "surrogateescape")):
            raise ApiError(401, "missing or invalid X-Detector-API-Key")

    def load_models(self) -> None:
        state = self.detector.load()
        if state is State.FAILED:
            message = (
                f"no model for the default language '{self.detector.default_language}' could be loaded "
                f"({json.dumps(self.detector.load_errors())})"
            )
            log.error("startup failed", extra={"reason": message})
            if self.on_fatal is not None:
                self.on_fatal(message)
        elif self.detector.degraded:
            log.warning("started degraded", extra={"errors": json.dumps(self.detector.load_errors())})
        else:
            log.info("ready", extra={"models": ",".join(self.detector.loaded_models())})

    def detect_on_worker(self, items: list[Item]) -> list[Any]:
        with self.model_lock:
            return self.detector.detect(items)

    async def run_detection(self, items: list[Item]) -> list[Any]:
        if not self.detector.loaded:
            raise ApiError(503, "model not loaded")
        if self.pending >= self.settings.max_pending:
            raise ApiError(503, "busy: too many pending requests")
        self.pending += 1
        try:
            if sum(len(item.text) for item in items) <= INLINE_MAX_CHARS and self.model_lock.acquire(
                blocking=False
            ):
                try:
                    return self.detector.detect(items)
                finally:
                    self.model_lock.release()
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self.executor, self.detect_on_worker, items)
        except Exception as error:
            # Only the type is logged: a model's exception message may quote the text.
            log.error("detection failed", extra={"error": type(error).__name__})  # noqa: TRY400
            raise ApiError(500, "detection failed") from None
        finally:
            self.pending -= 1


def create_app(  # noqa: PLR0915 - the routes are closures over one service; kept together on purpose
    settings: Settings,
    detector: Detector,
    *,
    on_fatal: Callable[[str], None] | None = None,
    load_in_background: bool = True,
) -> Starlette:
    service = Service(settings, detector, on_fatal)

    async def livez(_: Request) -> Response:
        return json_response({"status": "alive"})

    async def readyz(_: Request) -> Response:
        backend = detector.backend.name
        if not detector.loaded:
            reason = "model loading" if detector.state is State.LOADING else "no model loaded"
            return json_response({"status": "not_ready", "backend": backend, "reason": reason}, 503)
        if detector.degraded:
            return json_response({"status": "not_ready", "backend": backend, "reason": "degraded"}, 503)
        if service.auth_mode() == "unconfigured":
            return json_response(
                {"status": "not_ready", "backend": backend, "reason": "detector API key not configured"}, 503
            )
        return json_response({"status": "ready", "backend": backend})

    async def health(_: Request) -> Response:
        if detector.state is State.LOADING:
            status = "loading"
        elif detector.state is State.FAILED:
            status = "unavailable"
        else:
            status = "degraded" if detector.degraded else "ok"
        return json_response(
            {
                "status": status,
                "service": SERVICE_NAME,
                "version": __version__,
                "detector_loaded": detector.loaded,
                "backend": detector.backend.name,
                "ner_backend": detector.backend.engine(),
                "degraded": detector.degraded,
                "loaded_models": detector.loaded_models(),
                "default_language": detector.default_language,
                "auth": service.auth_mode(),
            }
        )

    async def detect(request: Request) -> Response:
        service.check_auth(request)
        body = await read_json(request, settings.max_body_bytes)
        item = parse_item(body, "", settings.max_text_chars)
        [result] = await service.run_detection([item])
        out: dict[str, Any] = {"entities": result.entities, "degraded": result.degraded}
        if result.warnings:
            out["warnings"] = result.warnings
        return json_response(out)

    async def detect_batch(request: Request) -> Response:
        service.check_auth(request)
        body = await read_json(request, settings.max_body_bytes)
        if not isinstance(body, dict):
            raise ApiError(400, "body: must be an object")
        unknown = sorted(set(body) - {"items"})
        if unknown:
            raise unknown_field("", unknown[0])
        raw_items = body.get("items")
        if not isinstance(raw_items, list):
            raise ApiError(400, "items: must be an array")
        if len(raw_items) > settings.max_batch_items:
            raise ApiError(413, f"items: at most {settings.max_batch_items} items")
        items = [
            parse_item(raw, f"items[{index}]", settings.max_text_chars) for index, raw in enumerate(raw_items)
        ]
        results = await service.run_detection(items) if items else []
        warnings = sorted({warning for result in results for warning in result.warnings})
        out: dict[str, Any] = {
            "results": [{"entities": result.entities, "degraded": result.degraded} for result in results]
        }
        if warnings:
            out["warnings"] = warnings
        return json_response(out)

    async def on_api_error(_: Request, error: Exception) -> Response:
        assert isinstance(error, ApiError)  # noqa: S101 - registered for ApiError only
        return error_response(error.status, error.message)

    async def on_http_error(_: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)  # noqa: S101
        messages = {404: "not found", 405: "method not allowed"}
        return error_response(error.status_code, messages.get(error.status_code, "request failed"))

    async def on_unexpected(_: Request, error: Exception) -> Response:
        log.error("internal error", extra={"error": type(error).__name__})
        return error_response(500, "internal error")

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        if load_in_background:
            threading.Thread(target=service.load_models, name="veil-ner-load", daemon=True).start()
        else:
            service.load_models()
        try:
            yield
        finally:
            service.executor.shutdown(wait=False, cancel_futures=True)

    routes = [
        Route("/livez", livez, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
        Route("/health", health, methods=["GET"]),
        Route("/v1/detect", detect, methods=["POST"]),
        Route("/v1/detect/batch", detect_batch, methods=["POST"]),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={ApiError: on_api_error, HTTPException: on_http_error, Exception: on_unexpected},
    )
    app.state.service = service
    return app
