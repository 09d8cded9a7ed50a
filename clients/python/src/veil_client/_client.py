"""Client and AsyncClient: every route of the Veil API over httpx, with typed errors and retries.

Retries follow the TypeScript client: idempotent routes (those of the route table with
Idempotency-Key support) get a key generated once per call and sent with every attempt; 429 and
503 are retried on every route after Retry-After (up to 60 s) or an exponential backoff with
jitter; 409 VEIL_IDEMPOTENCY_IN_PROGRESS on keyed calls; 502, 504 and lost connections only on
keyed calls and GETs. Streams are retried only until they start; ``restore_stream`` never is
(its body is the model's live output).

The route methods are written once (``_Routes``), generic in what a call returns, so ``Client``
returns values and ``AsyncClient`` awaitables with the same signatures.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
import uuid
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Iterable, Iterator, Mapping
from typing import Any, Generic, TypeVar

import httpx

from ._duplex import stream_lines, stream_lines_sync
from ._errors import ConnectionError, VeilError, error_from_answer
from ._routes import ROUTES, Route
from ._sse import aiter_sse_data, iter_sse_data, parse_frame

JSONObject = dict[str, Any]
"""A JSON object as the API sends and takes it (field names as in docs/api.md)."""

FileField = bytes | tuple[str, bytes] | tuple[str, bytes, str]
"""A multipart file: its bytes, or (filename, bytes[, content type])."""

_RETRY_ALWAYS = frozenset({429, 503})
_RETRY_WHEN_SAFE = frozenset({502, 504})
_MAX_RETRY_AFTER_SECONDS = 60

J = TypeVar("J")
T = TypeVar("T")
B = TypeVar("B")


class _Base:
    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        bearer_token: str | None = None,
        max_retries: int = 2,
        timeout: float = 60.0,
        initial_backoff: float = 0.5,
        max_backoff: float = 8.0,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.max_retries = max_retries
        self.timeout = timeout
        self.initial_backoff = initial_backoff
        self.max_backoff = max_backoff
        self._headers = dict(headers or {})
        if api_key is not None:
            self._headers["x-api-key"] = api_key
        if bearer_token is not None:
            self._headers["authorization"] = f"Bearer {bearer_token}"

    def _request_headers(self, key: str | None, extra: Mapping[str, str] | None) -> dict[str, str]:
        headers = dict(self._headers)
        if key is not None:
            headers["idempotency-key"] = key
        headers.update(extra or {})
        return headers

    @staticmethod
    def _key(route: Route, idempotency_key: str | None) -> str | None:
        return (idempotency_key or str(uuid.uuid4())) if route.idempotent else None

    @staticmethod
    def _retryable(error: VeilError, keyed: bool, safe: bool) -> bool:
        if error.status in _RETRY_ALWAYS:
            return error.retry_after_seconds is None or error.retry_after_seconds <= _MAX_RETRY_AFTER_SECONDS
        if error.code == "VEIL_IDEMPOTENCY_IN_PROGRESS":
            return keyed
        return error.status in _RETRY_WHEN_SAFE and safe

    def _backoff(self, attempt: int, retry_after: int | None) -> float:
        if retry_after is not None:
            return float(retry_after)
        step = min(self.max_backoff, self.initial_backoff * 2**attempt)
        return step / 2 + random.random() * step / 2  # noqa: S311 - jitter, not a secret

    @staticmethod
    def _payload(route: Route, body: Any) -> dict[str, Any]:
        if body is None:
            return {}
        if route.body == "multipart":
            files: dict[str, Any] = {}
            data: dict[str, str] = {}
            for name, value in body.items():
                if isinstance(value, bytes | tuple):
                    files[name] = value
                elif value is not None:
                    data[name] = str(value)
            return {"files": files, "data": data}
        return {"json": body}

    @staticmethod
    def _decode(route: Route, response: httpx.Response) -> Any:
        if route.answer == "json":
            return response.json()
        return response.text if route.answer == "text" else response.content


def _connection_error(error: Exception) -> ConnectionError:
    timeout = isinstance(error, httpx.TimeoutException)
    message = "no answer in time" if timeout else "the connection to Veil failed"
    return ConnectionError(message, code="VEIL_CONNECTION_FAILED", status=0)


class _Routes(Generic[J, T, B]):
    """Every non-streaming route, once. ``J``, ``T``, ``B``: what a JSON, text and binary call returns."""

    def _call(
        self, name: str, body: Any, *, idempotency_key: str | None = None, headers: Mapping[str, str] | None = None
    ) -> Any:
        raise NotImplementedError

    def request(
        self,
        name: str,
        body: Any = None,
        *,
        idempotency_key: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Any:
        """Call any operation of the route table by name (``request("Detect", {...})``)."""
        return self._call(name, body, idempotency_key=idempotency_key, headers=headers)

    # Transform and rehydrate.
    def transform(
        self, body: JSONObject, *, idempotency_key: str | None = None, headers: Mapping[str, str] | None = None
    ) -> J:
        """POST /v1/transform (text, JSON or chat input). Idempotent: retried under one key."""
        return self._call("Transform", body, idempotency_key=idempotency_key, headers=headers)

    def rehydrate(self, body: JSONObject, *, headers: Mapping[str, str] | None = None) -> J:
        """POST /v1/rehydrate: restore ``output`` (text) or ``output_json`` (a tokenized document)."""
        return self._call("Rehydrate", body, headers=headers)

    # Files and images.
    def transform_file(self, file: FileField, *, policy: str | None = None, language: str | None = None) -> J:
        """POST /v1/transform/file: a document (text, Markdown, CSV, JSON, HTML, PDF, DOCX)."""
        return self._call("TransformFile", {"file": file, "policy": policy, "language": language})

    def rehydrate_file(
        self,
        file: FileField,
        *,
        session_state: str | None = None,
        session_id: str | None = None,
        restore_mode: str | None = None,
        output_channel: str | None = None,
    ) -> B:
        """POST /v1/rehydrate/file: the restored file, in its own format (bytes)."""
        fields = {
            "file": file,
            "session_state": session_state,
            "session_id": session_id,
            "restore_mode": restore_mode,
            "output_channel": output_channel,
        }
        return self._call("RehydrateFile", fields)

    def transform_image(self, image: FileField, *, policy: str | None = None, language: str | None = None) -> J:
        """POST /v1/transform/image: OCR, then transform; entities carry pixel boxes."""
        return self._call("TransformImage", {"image": image, "policy": policy, "language": language})

    def redact_image(self, image: FileField, *, policy: str | None = None, language: str | None = None) -> B:
        """POST /v1/redact/image: a PNG with the detected regions blacked out (bytes)."""
        return self._call("RedactImage", {"image": image, "policy": policy, "language": language})

    # Detection, policy, validation, batches.
    def detect(self, body: JSONObject) -> J:
        return self._call("Detect", body)

    def evaluate_policy(self, body: JSONObject) -> J:
        return self._call("EvaluatePolicy", body)

    def validate_entity_type(self, body: JSONObject) -> J:
        return self._call("EntityTypes", body)

    def validate_pattern(self, body: JSONObject) -> J:
        return self._call("Patterns", body)

    def batch_transform(self, body: JSONObject, *, idempotency_key: str | None = None) -> J:
        return self._call("BatchTransform", body, idempotency_key=idempotency_key)

    def batch_detect(self, body: JSONObject) -> J:
        return self._call("BatchDetect", body)

    # RAG.
    def rag_ingest(self, body: JSONObject, *, idempotency_key: str | None = None) -> J:
        return self._call("RagIngest", body, idempotency_key=idempotency_key)

    def rag_ingest_batch(self, body: JSONObject, *, idempotency_key: str | None = None) -> J:
        return self._call("RagIngestBatch", body, idempotency_key=idempotency_key)

    def rag_query(self, body: JSONObject) -> J:
        return self._call("RagQuery", body)

    def rag_context(self, body: JSONObject) -> J:
        return self._call("RagContext", body)

    def rag_answer(self, body: JSONObject) -> J:
        return self._call("RagAnswer", body)

    def rag_delete(self, body: JSONObject, *, idempotency_key: str | None = None) -> J:
        return self._call("RagDelete", body, idempotency_key=idempotency_key)

    # Erasure and sessions.
    def revoke(self, body: JSONObject, *, idempotency_key: str | None = None) -> J:
        return self._call("Revoke", body, idempotency_key=idempotency_key)

    def revoke_bulk(self, body: JSONObject, *, idempotency_key: str | None = None) -> J:
        return self._call("RevokeBulk", body, idempotency_key=idempotency_key)

    def revocations_count(self) -> J:
        return self._call("RevocationsCount", None)

    def session_status(self, body: JSONObject) -> J:
        return self._call("SessionsStatus", body)

    def delete_session(self, body: JSONObject, *, idempotency_key: str | None = None) -> J:
        return self._call("DeleteSessions", body, idempotency_key=idempotency_key)

    # System and operations.
    def health(self) -> J:
        return self._call("Health", None)

    def capabilities(self) -> J:
        return self._call("Capabilities", None)

    def diagnostics(self) -> J:
        return self._call("Diagnostics", None)

    def metrics(self) -> T:
        """GET /metrics: Prometheus text."""
        return self._call("Metrics", None)

    def validate_policies(self, body: JSONObject) -> J:
        return self._call("AdminPolicyValidate", body)

    def reload_policies(self) -> J:
        return self._call("AdminPolicyReload", {})

    def livez(self) -> J:
        return self._call("Livez", None)

    def readyz(self) -> J:
        return self._call("Readyz", None)

    def openapi(self) -> J:
        """GET /openapi.json: the server's OpenAPI document."""
        return self._call("OpenapiJson", None)

    def openapi_html(self) -> T:
        return self._call("OpenapiHtml", None)


def _ndjson(params: Mapping[str, Any], delta: str | None = None) -> bytes:
    value = dict(params) if delta is None else {"delta": delta}
    return json.dumps(value, ensure_ascii=False).encode("utf-8") + b"\n"


class Client(_Base, _Routes[JSONObject, str, bytes]):
    """Synchronous client. Use as a context manager, or call ``close()``."""

    def __init__(
        self, base_url: str, *, transport: httpx.BaseTransport | None = None, sleep: Any = time.sleep, **options: Any
    ) -> None:
        super().__init__(base_url, **options)
        self._http = httpx.Client(transport=transport, timeout=self.timeout)
        self._sleep = sleep

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _send(
        self, name: str, body: Any, idempotency_key: str | None, headers: Mapping[str, str] | None, stream: bool
    ) -> httpx.Response:
        route = ROUTES[name]
        key = self._key(route, idempotency_key)
        safe = key is not None or route.method == "GET"
        attempt = 0
        while True:
            request = self._http.build_request(
                route.method,
                self.base_url + route.path,
                headers=self._request_headers(key, headers),
                **self._payload(route, body),
            )
            try:
                response = self._http.send(request, stream=stream)
            except httpx.TransportError as error:
                if safe and attempt < self.max_retries:
                    self._sleep(self._backoff(attempt, None))
                    attempt += 1
                    continue
                raise _connection_error(error) from error
            if response.is_success:
                return response
            error = error_from_answer(response.status_code, response.read(), response.headers)
            response.close()
            if attempt < self.max_retries and self._retryable(error, key is not None, safe):
                self._sleep(self._backoff(attempt, error.retry_after_seconds))
                attempt += 1
                continue
            raise error

    def _call(
        self, name: str, body: Any, *, idempotency_key: str | None = None, headers: Mapping[str, str] | None = None
    ) -> Any:
        response = self._send(name, body, idempotency_key, headers, stream=False)
        return self._decode(ROUTES[name], response)

    def _frames(self, name: str, body: JSONObject) -> Iterator[JSONObject]:
        response = self._send(name, body, None, None, stream=True)
        request_id = response.headers.get("x-request-id")
        try:
            for data in iter_sse_data(response.iter_lines()):
                yield parse_frame(data, request_id)
        finally:
            response.close()

    def transform_stream(self, body: JSONObject) -> Iterator[JSONObject]:
        """POST /v1/transform/stream: the frames, the last one ``{complete: true, session_state, ...}``."""
        return self._frames("TransformStream", body)

    def rehydrate_stream(self, body: JSONObject) -> Iterator[JSONObject]:
        """POST /v1/rehydrate/stream with a whole output: ``{index, restored_text}`` frames, then the last one."""
        return self._frames("RehydrateStream", body)

    def restore_stream(self, deltas: Iterable[str], params: JSONObject) -> Iterator[str]:
        """Turn a model's stream of text deltas into restored text as it streams.

        The deltas go to /v1/rehydrate/stream as an ndjson body while restored pieces come back,
        each as soon as Veil can release it (a token split across deltas is restored whole, once).
        ``params`` is the rehydrate body without ``output`` (``session_state`` or ``session_id``,
        ``restore_mode``, ``output_channel``, ...).
        """

        def body() -> Iterator[bytes]:
            yield _ndjson(params)
            for delta in deltas:
                if delta != "":
                    yield _ndjson(params, delta)

        headers = {**self._headers, "content-type": "application/x-ndjson", "accept": "text/event-stream"}
        lines = stream_lines_sync(
            self.base_url + ROUTES["RehydrateStream"].path, headers, body(), connect_timeout=self.timeout
        )
        for data in iter_sse_data(lines):
            text = _restored_text(parse_frame(data, None))
            if text is None:
                return
            if text:
                yield text
        raise _unfinished()


def _restored_text(frame: JSONObject) -> str | None:
    """The text of a restore-stream frame; None for the last frame."""
    if frame.get("complete") is True:
        return None
    text = frame.get("restored_text", "")
    return text if isinstance(text, str) else ""


def _unfinished() -> ConnectionError:
    return ConnectionError("the stream ended without its last frame", code="VEIL_CONNECTION_FAILED", status=200)


class AsyncClient(_Base, _Routes[Awaitable[JSONObject], Awaitable[str], Awaitable[bytes]]):
    """Asynchronous client (asyncio or trio through anyio). Use ``async with``, or ``aclose()``."""

    def __init__(
        self, base_url: str, *, transport: httpx.AsyncBaseTransport | None = None, sleep: Any = None, **options: Any
    ) -> None:
        super().__init__(base_url, **options)
        self._http = httpx.AsyncClient(transport=transport, timeout=self.timeout)
        self._sleep = sleep or asyncio.sleep

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _send(
        self, name: str, body: Any, idempotency_key: str | None, headers: Mapping[str, str] | None, stream: bool
    ) -> httpx.Response:
        route = ROUTES[name]
        key = self._key(route, idempotency_key)
        safe = key is not None or route.method == "GET"
        attempt = 0
        while True:
            request = self._http.build_request(
                route.method,
                self.base_url + route.path,
                headers=self._request_headers(key, headers),
                **self._payload(route, body),
            )
            try:
                response = await self._http.send(request, stream=stream)
            except httpx.TransportError as error:
                if safe and attempt < self.max_retries:
                    await self._sleep(self._backoff(attempt, None))
                    attempt += 1
                    continue
                raise _connection_error(error) from error
            if response.is_success:
                return response
            error = error_from_answer(response.status_code, await response.aread(), response.headers)
            await response.aclose()
            if attempt < self.max_retries and self._retryable(error, key is not None, safe):
                await self._sleep(self._backoff(attempt, error.retry_after_seconds))
                attempt += 1
                continue
            raise error

    async def _call_async(
        self, name: str, body: Any, idempotency_key: str | None, headers: Mapping[str, str] | None
    ) -> Any:
        response = await self._send(name, body, idempotency_key, headers, stream=False)
        return self._decode(ROUTES[name], response)

    def _call(
        self, name: str, body: Any, *, idempotency_key: str | None = None, headers: Mapping[str, str] | None = None
    ) -> Any:
        return self._call_async(name, body, idempotency_key, headers)

    async def _frames(self, name: str, body: JSONObject) -> AsyncIterator[JSONObject]:
        response = await self._send(name, body, None, None, stream=True)
        request_id = response.headers.get("x-request-id")
        try:
            async with contextlib.aclosing(aiter_sse_data(response.aiter_lines())) as frames:
                async for data in frames:
                    yield parse_frame(data, request_id)
        finally:
            await response.aclose()

    def transform_stream(self, body: JSONObject) -> AsyncIterator[JSONObject]:
        """POST /v1/transform/stream: the frames, the last one ``{complete: true, session_state, ...}``."""
        return self._frames("TransformStream", body)

    def rehydrate_stream(self, body: JSONObject) -> AsyncIterator[JSONObject]:
        """POST /v1/rehydrate/stream with a whole output: ``{index, restored_text}`` frames, then the last one."""
        return self._frames("RehydrateStream", body)

    async def restore_stream(
        self, deltas: AsyncIterable[str] | Iterable[str], params: JSONObject
    ) -> AsyncIterator[str]:
        """The asynchronous ``Client.restore_stream``: restored text as the model's deltas stream in."""

        async def body() -> AsyncIterator[bytes]:
            yield _ndjson(params)
            if isinstance(deltas, AsyncIterable):
                async for delta in deltas:
                    if delta != "":
                        yield _ndjson(params, delta)
            else:
                for delta in deltas:
                    if delta != "":
                        yield _ndjson(params, delta)

        headers = {**self._headers, "content-type": "application/x-ndjson", "accept": "text/event-stream"}
        lines = stream_lines(
            self.base_url + ROUTES["RehydrateStream"].path, headers, body(), connect_timeout=self.timeout
        )
        async for data in aiter_sse_data(lines):
            text = _restored_text(parse_frame(data, None))
            if text is None:
                return
            if text:
                yield text
        raise _unfinished()
