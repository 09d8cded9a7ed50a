"""The synchronous client against the real server: every route of the generated table has a
method, values round-trip, errors are typed, idempotent calls are retried under one key, and
restore_stream restores a model's delta stream incrementally with tokens split everywhere."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from veil_client import (
    ERROR_CODES,
    ERROR_FAMILIES,
    ROUTES,
    AsyncClient,
    AuthenticationError,
    Client,
    ConnectionError,
    PermissionDeniedError,
    RateLimitError,
    SessionError,
    StreamError,
    ValidationError,
)

from .conftest import ROOT, Veil, start_veil, stop_veil

TEXT = "Email jane.doe@example.com or call +1 415 555 0134 about card 4111 1111 1111 1111."

# The method of each operation; None: served by another client (the openai package, for the proxy).
METHODS: dict[str, str | None] = {
    "Livez": "livez",
    "Readyz": "readyz",
    "Metrics": "metrics",
    "OpenapiJson": "openapi",
    "OpenapiHtml": "openapi_html",
    "AdminPolicyReload": "reload_policies",
    "AdminPolicyValidate": "validate_policies",
    "BatchDetect": "batch_detect",
    "BatchTransform": "batch_transform",
    "Capabilities": "capabilities",
    "Detect": "detect",
    "Diagnostics": "diagnostics",
    "EntityTypes": "validate_entity_type",
    "EvaluatePolicy": "evaluate_policy",
    "Health": "health",
    "Patterns": "validate_pattern",
    "RagAnswer": "rag_answer",
    "RagContext": "rag_context",
    "RagDelete": "rag_delete",
    "RagIngest": "rag_ingest",
    "RagIngestBatch": "rag_ingest_batch",
    "RagQuery": "rag_query",
    "RedactImage": "redact_image",
    "Rehydrate": "rehydrate",
    "RehydrateFile": "rehydrate_file",
    "RehydrateStream": "rehydrate_stream",
    "RevocationsCount": "revocations_count",
    "Revoke": "revoke",
    "RevokeBulk": "revoke_bulk",
    "DeleteSessions": "delete_session",
    "SessionsStatus": "session_status",
    "Transform": "transform",
    "TransformFile": "transform_file",
    "TransformImage": "transform_image",
    "TransformStream": "transform_stream",
    "OpenaiChatCompletions": None,
    "OpenaiEmbeddings": None,
}


@pytest.fixture
def client(veil: Veil) -> Iterator[Client]:
    with Client(veil.url) as veil_client:
        yield veil_client


def test_every_route_has_a_method_and_every_code_a_family() -> None:
    for name in ROUTES:
        assert name in METHODS, f"{name}: add a method to Client and AsyncClient and to METHODS"
        method = METHODS[name]
        if method is not None:
            assert callable(getattr(Client, method)), name
            assert callable(getattr(AsyncClient, method)), name
    for code in ERROR_CODES:
        assert code in ERROR_FAMILIES, code


@pytest.mark.skipif(
    not (ROOT / "docs" / "openapi.json").exists(), reason="docs/openapi.json arrives with the OpenAPI work"
)
def test_route_table_matches_the_openapi_document() -> None:
    tool = Path(__file__).resolve().parents[1] / "tools" / "generate_routes.py"
    assert subprocess.run([sys.executable, str(tool), "--check"], check=False).returncode == 0


def test_round_trips_text_json_files_and_streams(client: Client) -> None:
    transformed = client.transform({"input": TEXT})
    assert "jane.doe" not in transformed["safe_text"]
    state = transformed["session_state"]
    assert client.rehydrate({"output": transformed["safe_text"], "session_state": state})["restored_text"] == TEXT
    restored = client.rehydrate({"output_json": {"note": transformed["safe_text"]}, "session_state": state})
    assert restored["restored_json"] == {"note": TEXT}

    uploaded = client.transform_file(("notes.txt", TEXT.encode(), "text/plain"))
    assert "jane.doe" not in uploaded["safe_text"]
    file_back = client.rehydrate_file(
        ("notes.txt", uploaded["safe_text"].encode()), session_state=uploaded["session_state"]
    )
    assert file_back.decode() == TEXT

    frames = list(client.transform_stream({"input": f"{TEXT}\n\nAgain: {TEXT}"}))
    assert frames[-1]["complete"] is True
    safe = "".join(frame["safe_text"] for frame in frames[:-1])
    pieces = client.rehydrate_stream({"output": safe, "session_state": frames[-1]["session_state"]})
    assert "".join(frame.get("restored_text", "") for frame in pieces) == f"{TEXT}\n\nAgain: {TEXT}"


def test_calls_the_other_routes(client: Client) -> None:
    assert len(client.detect({"input": TEXT})["entities"]) >= 3
    assert len(client.evaluate_policy({"entities": [{"type": "email"}]})["decisions"]) == 1
    assert client.validate_entity_type({"name": "ticket_id"})["valid"] is True
    assert client.validate_pattern({"entity_type": "ticket", "pattern": "TCK-[0-9]{6}"})["valid"] is True
    assert len(client.batch_transform({"items": [{"text": TEXT}]})["results"]) == 1
    assert len(client.batch_detect({"items": [{"text": TEXT}]})["results"]) == 1
    rag_text = "Contact py.rag@example.org about IBAN DE89 3704 0044 0532 0130 00."
    metadata = {"document_id": "d", "classification": "internal"}
    ingested = client.rag_ingest({"text": rag_text, "document_metadata": metadata, "corpus_id": "py"})
    query = client.rag_query({"query": "Who is py.rag@example.org?", "corpus_id": "py"})
    context = client.rag_context(
        {
            "chunks": [chunk["safe_text"] for chunk in ingested["chunks"]],
            "document_sessions": [chunk["chunk_session_state"] for chunk in ingested["chunks"]],
            "session_state": query["session_state"],
            "access_level": "internal",
            "corpus_id": "py",
        }
    )
    answer = client.rag_answer({"answer": " ".join(context["safe_chunks"]), "session_state": context["session_state"]})
    assert "py.rag@example.org" in answer["restored_answer"]
    assert len(client.rag_ingest_batch({"items": [{"text": rag_text}]})["results"]) == 1
    assert client.rag_delete({"session_state": ingested["session_state"]})["deleted"] is True
    assert client.revoke({"entity_type": "email", "value": "py.gone@example.com"})["revoked"] == 1
    assert client.revoke_bulk({"entities": [{"entity_type": "email", "value": "py.gone2@example.com"}]})["revoked"] == 1
    assert client.revocations_count()["count"] >= 2
    session = client.transform({"input": TEXT})["session_state"]
    assert client.session_status({"session_state": session})["state"] == "stateless"
    assert client.delete_session({"session_state": session})["invalidated"] is True
    with pytest.raises(SessionError):
        client.session_status({"session_state": session})
    assert client.health()["status"] in ("healthy", "degraded")
    assert len(client.capabilities()["entity_types"]) > 50
    assert "detector_mode" in client.diagnostics()
    assert "veil_transforms_total" in client.metrics()
    default_policy = (ROOT / "policies" / "default.yaml").read_text(encoding="utf-8")
    assert client.validate_policies({"files": {"default.yaml": default_policy}})["valid"] is True
    assert client.reload_policies()["reloaded"] is False
    assert client.livez() == {"status": "ok"}
    assert client.readyz() == {"status": "ready"}
    with pytest.raises(ValidationError):
        client.transform_image(b"not an image")
    with pytest.raises(ValidationError):
        client.redact_image(b"not an image")


def test_restore_stream_restores_a_stream_split_at_every_position(client: Client) -> None:
    transformed = client.transform({"input": TEXT})
    pieces = list(
        client.restore_stream(
            iter(f"Reply: {transformed['safe_text']}"), {"session_state": transformed["session_state"]}
        )
    )
    assert "".join(pieces) == f"Reply: {TEXT}"
    assert all("{" not in piece and "}" not in piece for piece in pieces)


def test_restore_stream_releases_text_while_the_model_streams(client: Client) -> None:
    long = f"{TEXT} " + "Nothing to see here. " * 30
    transformed = client.transform({"input": long})
    first_piece = threading.Event()

    def model() -> Iterator[str]:
        half = len(transformed["safe_text"]) // 2
        yield from transformed["safe_text"][:half]
        # Half way, the model waits until restored text has arrived: a client that sent the
        # whole body before reading would never get here (the wait is bounded only to fail).
        assert first_piece.wait(timeout=20), "no restored text before the model finished"
        yield from transformed["safe_text"][half:]

    restored = ""
    for piece in client.restore_stream(model(), {"session_state": transformed["session_state"]}):
        restored += piece
        first_piece.set()
    assert restored == long


def test_restore_stream_raises_stream_error_when_the_session_dies(client: Client) -> None:
    transformed = client.transform({"input": TEXT})
    started = threading.Event()

    def model() -> Iterator[str]:
        yield "Plain words first. " * 20
        # Once restored text came back the stream has started: an erasure now ends it with the
        # error frame (before it, the same erasure is a 410 answer instead).
        assert started.wait(timeout=20)
        client.delete_session({"session_state": transformed["session_state"]})
        yield transformed["safe_text"]

    def drain() -> None:
        for _piece in client.restore_stream(model(), {"session_state": transformed["session_state"]}):
            started.set()

    with pytest.raises(StreamError, match="session"):
        drain()


def test_errors_are_typed(client: Client) -> None:
    with pytest.raises(ValidationError) as invalid:
        client.transform({"input": "x", "language": "not a language"})
    assert invalid.value.code == "VEIL_VALIDATION_FAILED"
    assert invalid.value.status == 400
    assert invalid.value.request_id is not None
    with pytest.raises(SessionError):
        client.rehydrate({"output": "x", "session_state": "v1.nope.AAAA"})
    first = client.transform({"input": TEXT})
    client.transform({"input": "more", "session_state": first["session_state"]})
    with pytest.raises(SessionError) as replay:
        client.transform({"input": "more", "session_state": first["session_state"]})
    assert replay.value.code == "VEIL_SESSION_REPLAY"


def test_authentication_and_scope_errors() -> None:
    secured = start_veil(
        {
            "VEIL_AUTH__MODE": "api_key",
            "VEIL_AUTH__API_KEYS": "[{key: py-detect-only-0123456789, identity: reader, scopes: [detect]}]",
            "VEIL_ALLOW_EPHEMERAL_AUDIT": "1",
        }
    )
    try:
        with Client(secured.url) as anonymous, pytest.raises(AuthenticationError):
            anonymous.detect({"input": TEXT})
        with Client(secured.url, api_key="py-detect-only-0123456789") as reader:
            assert reader.detect({"input": TEXT})["entities"]
            with pytest.raises(PermissionDeniedError, match="missing required scope: transform"):
                reader.transform({"input": TEXT})
    finally:
        stop_veil(secured)


class LosingTransport(httpx.BaseTransport):
    """Injected failure around the real transport: the first answer is lost after the server sent it."""

    def __init__(self) -> None:
        self.real = httpx.HTTPTransport()
        self.keys: list[str | None] = []
        self.replayed: list[str | None] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.keys.append(request.headers.get("idempotency-key"))
        response = self.real.handle_request(request)
        response.read()
        self.replayed.append(response.headers.get("idempotency-replayed"))
        if len(self.keys) == 1:
            raise httpx.ReadError("connection lost", request=request)
        return response

    def close(self) -> None:
        self.real.close()


def test_idempotent_calls_are_retried_under_one_key(veil: Veil) -> None:
    transport = LosingTransport()
    with Client(veil.url, transport=transport, sleep=lambda _seconds: None) as retrying:
        assert retrying.revoke({"entity_type": "email", "value": "py.once@example.com"})["revoked"] == 1
    assert len(transport.keys) == 2
    assert transport.keys[0] is not None
    assert transport.keys[1] == transport.keys[0]
    assert transport.replayed == [None, "true"]


def test_non_idempotent_calls_are_not_repeated_after_a_lost_connection(veil: Veil) -> None:
    calls: list[str] = []

    def broken(request: httpx.Request) -> httpx.Response:
        calls.append(request.url.path)
        raise httpx.ConnectError("refused", request=request)

    with Client(veil.url, transport=httpx.MockTransport(broken), sleep=lambda _seconds: None) as failing:
        with pytest.raises(ConnectionError):
            failing.rehydrate({"output": "x", "session_state": "y"})
        assert len(calls) == 1
        with pytest.raises(ConnectionError):
            failing.health()
        assert len(calls) == 4


def test_rate_limited_calls_wait_for_retry_after() -> None:
    # One request per 20 s, burst 1: the second call is refused however loaded the machine is (a
    # token takes 20 s to come back), so nothing here depends on timing. The injected sleep records
    # each wait without waiting: every retry is refused again, and the call ends in RateLimitError
    # after max_retries waits, each the server's Retry-After in whole seconds (never the jittered
    # backoff, which stays under a second here), counting down as the token comes back.
    limited = start_veil(
        {
            "VEIL_RATE_LIMIT__ENABLED": "true",
            "VEIL_RATE_LIMIT__REQUESTS_PER_SECOND": "0.05",
            "VEIL_RATE_LIMIT__BURST_SIZE": "1",
        }
    )
    waits: list[float] = []
    try:
        with Client(limited.url, sleep=waits.append, max_retries=2) as patient:
            patient.detect({"input": "a"})
            with pytest.raises(RateLimitError) as refused:
                patient.detect({"input": "b"})
        last = refused.value.retry_after_seconds
        assert last is not None
        assert len(waits) == 2
        assert all(wait == int(wait) and 1 <= wait <= 20 for wait in waits)
        assert waits[0] >= waits[1] >= last
    finally:
        stop_veil(limited)
