"""HTTP behaviour over a fake backend (Starlette TestClient): auth modes, limits, validation, probes."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
from starlette.testclient import TestClient

from conftest import API_KEY, FakeBackend
from veil_ner.app import create_app
from veil_ner.config import Settings, load_settings
from veil_ner.detector import Detector

HEADERS = {"X-Detector-API-Key": API_KEY}


def client_for(settings: Settings, backend: FakeBackend | None = None) -> TestClient:
    """A client whose `with` block runs the lifespan (loads the fake models); without `with`
    the models are never loaded, which is the "still loading" state."""
    backend = backend or FakeBackend(languages=settings.languages)
    detector = Detector(backend, settings.languages, settings.default_language)
    app = create_app(settings, detector, load_in_background=False)
    return TestClient(app, raise_server_exceptions=False)


def post_json(client: TestClient, path: str, body: object) -> httpx.Response:
    """POST `body` as JSON with Python's escaping (`\\ud800` for a lone surrogate, as JavaScript's
    JSON.stringify sends it); httpx's own json= cannot encode lone surrogates."""
    content = json.dumps(body).encode("ascii")
    return client.post(path, content=content, headers={**HEADERS, "Content-Type": "application/json"})


@pytest.fixture
def client() -> Iterator[TestClient]:
    settings = load_settings(
        {
            "VEIL_NER_API_KEY": API_KEY,
            "VEIL_NER_MAX_TEXT_CHARS": "50",
            "VEIL_NER_MAX_BODY_BYTES": "2048",
            "VEIL_NER_MAX_BATCH_ITEMS": "3",
        }
    )
    with client_for(settings) as test_client:
        yield test_client


def test_detect(client: TestClient) -> None:
    response = client.post(
        "/v1/detect", json={"text": "Jane Roe in Paris", "language": "en"}, headers=HEADERS
    )
    assert response.status_code == 200
    assert response.json() == {
        "entities": [
            {"type": "person", "start": 0, "end": 8, "confidence": 0.9, "label": "PERSON"},
            {"type": "location", "start": 12, "end": 17, "confidence": 0.8, "label": "GPE"},
        ],
        "degraded": False,
    }
    assert response.headers["content-type"] == "application/json"


def test_wrong_or_missing_key_is_401(client: TestClient) -> None:
    assert client.post("/v1/detect", json={"text": "x"}).status_code == 401
    assert (
        client.post("/v1/detect", json={"text": "x"}, headers={"X-Detector-API-Key": "nope"}).status_code
        == 401
    )
    long_wrong = {"X-Detector-API-Key": API_KEY + "x"}
    assert client.post("/v1/detect/batch", json={"items": []}, headers=long_wrong).status_code == 401


def test_without_a_secret_detect_fails_closed() -> None:
    with client_for(load_settings({})) as test_client:
        response = test_client.post("/v1/detect", json={"text": "Jane Roe"})
        assert response.status_code == 503
        assert "VEIL_NER_API_KEY" in response.json()["error"]
        assert test_client.post("/v1/detect/batch", json={"items": []}).status_code == 503
        ready = test_client.get("/readyz")
        assert ready.status_code == 503 and ready.json()["status"] == "not_ready"
        assert test_client.get("/health").json()["auth"] == "unconfigured"


def test_insecure_mode_must_be_explicit() -> None:
    with client_for(load_settings({"VEIL_NER_ALLOW_INSECURE": "1"})) as test_client:
        assert test_client.post("/v1/detect", json={"text": "Jane Roe"}).status_code == 200
        assert test_client.get("/readyz").status_code == 200
        assert test_client.get("/health").json()["auth"] == "insecure"


def test_a_secret_still_applies_in_insecure_mode() -> None:
    settings = load_settings({"VEIL_NER_ALLOW_INSECURE": "1", "VEIL_NER_API_KEY": API_KEY})
    with client_for(settings) as test_client:
        assert test_client.post("/v1/detect", json={"text": "Jane Roe"}).status_code == 401


def test_limits(client: TestClient) -> None:
    too_long = client.post("/v1/detect", json={"text": "a" * 51}, headers=HEADERS)
    assert too_long.status_code == 413 and too_long.json() == {"error": "text: exceeds 50 characters"}
    assert client.post("/v1/detect", json={"text": "a" * 50}, headers=HEADERS).status_code == 200
    body = json.dumps({"text": "a", "pad": "b" * 3000})
    big = client.post("/v1/detect", content=body, headers={**HEADERS, "Content-Type": "application/json"})
    assert big.status_code == 413 and "bytes" in big.json()["error"]
    many = client.post("/v1/detect/batch", json={"items": [{"text": "a"}] * 4}, headers=HEADERS)
    assert many.status_code == 413


def test_chunked_body_is_bounded_while_reading(client: TestClient) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"text": "'
        for _ in range(10):
            yield b"a" * 500
        yield b'"}'

    response = client.post(
        "/v1/detect", content=chunks(), headers={**HEADERS, "Content-Type": "application/json"}
    )
    assert response.status_code == 413


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ([], "body: must be an object"),
        ({}, "text: must be a string"),
        ({"text": 5}, "text: must be a string"),
        ({"text": "a", "extra": 1}, "extra: unknown field"),
        ({"text": "a", "language": "english!"}, "language: must be a language code such as en or en-US"),
        ({"text": "a", "labels": "person"}, "labels: must be an array of at most 64 non-empty strings"),
        ({"text": "a", "labels": [""]}, "labels: must be an array of at most 64 non-empty strings"),
        ({"text": "Jane \ud800 Roe"}, "text: must be valid Unicode (it holds an unpaired surrogate)"),
        ({"text": "\udc00"}, "text: must be valid Unicode (it holds an unpaired surrogate)"),
        ({"text": "a", "labels": ["x\ud800"]}, "labels: must be an array of at most 64 non-empty strings"),
        ({"text": "a", "\ud800": 1}, "(a field): unknown field"),
        ({"text": "a", "no such field": 1}, "(a field): unknown field"),
    ],
)
def test_validation_names_the_field_not_the_value(client: TestClient, body: object, message: str) -> None:
    response = post_json(client, "/v1/detect", body)
    assert response.status_code == 400
    assert response.json() == {"error": message}


def test_batch_validation_paths(client: TestClient) -> None:
    response = client.post("/v1/detect/batch", json={"items": [{"text": "a"}, {"text": 1}]}, headers=HEADERS)
    assert response.json() == {"error": "items[1].text: must be a string"}
    assert client.post("/v1/detect/batch", json={"items": {}}, headers=HEADERS).status_code == 400
    assert client.post("/v1/detect/batch", json={"items": [], "x": 1}, headers=HEADERS).status_code == 400
    lone = post_json(client, "/v1/detect/batch", {"items": [{"text": "ok"}, {"text": "\ud83d x"}]})
    assert lone.json() == {"error": "items[1].text: must be valid Unicode (it holds an unpaired surrogate)"}
    odd_key = post_json(client, "/v1/detect/batch", {"items": [], "\udfff": 1})
    assert odd_key.status_code == 400 and odd_key.json() == {"error": "(a field): unknown field"}


def test_content_type_and_json(client: TestClient) -> None:
    wrong_type = client.post(
        "/v1/detect", content=b'{"text":"a"}', headers={**HEADERS, "Content-Type": "text/plain"}
    )
    assert wrong_type.status_code == 415
    broken = client.post(
        "/v1/detect", content=b'{"text":', headers={**HEADERS, "Content-Type": "application/json"}
    )
    assert broken.status_code == 400 and broken.json() == {"error": "body is not valid JSON"}
    not_utf8 = client.post(
        "/v1/detect", content=b'{"text":"\xff"}', headers={**HEADERS, "Content-Type": "application/json"}
    )
    assert not_utf8.status_code == 400


def test_hostile_json_is_a_400() -> None:
    with client_for(load_settings({"VEIL_NER_API_KEY": API_KEY})) as test_client:
        deep = b'{"text": "a", "labels": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
        nested = test_client.post(
            "/v1/detect", content=deep, headers={**HEADERS, "Content-Type": "application/json"}
        )
        assert nested.status_code == 400
        huge_int = b'{"text": "a", "labels": [' + b"9" * 5000 + b"]}"
        number = test_client.post(
            "/v1/detect", content=huge_int, headers={**HEADERS, "Content-Type": "application/json"}
        )
        assert number.status_code == 400


def test_batch(client: TestClient) -> None:
    response = client.post(
        "/v1/detect/batch",
        json={"items": [{"text": "Jane Roe"}, {"text": "in Paris", "language": "de", "labels": ["person"]}]},
        headers=HEADERS,
    )
    assert response.status_code == 200
    body = response.json()
    assert [len(result["entities"]) for result in body["results"]] == [1, 0]
    assert [result["degraded"] for result in body["results"]] == [False, True]
    assert body["warnings"] == ["no NER model for language 'de'; used the 'en' model"]


def test_unknown_routes_and_methods(client: TestClient) -> None:
    assert client.get("/nope").json() == {"error": "not found"}
    wrong_method = client.get("/v1/detect")
    assert wrong_method.status_code == 405 and wrong_method.json() == {"error": "method not allowed"}


def test_probes_while_loading_and_after_failure() -> None:
    settings = load_settings({"VEIL_NER_API_KEY": API_KEY})
    loading = client_for(settings)  # no `with`: lifespan not run, models never loaded
    assert loading.get("/livez").json() == {"status": "alive"}
    ready = loading.get("/readyz")
    assert (
        ready.status_code == 503
        and ready.json()["status"] == "not_ready"
        and ready.json()["backend"] == "fake"
    )
    health = loading.get("/health")
    assert health.status_code == 200 and health.json()["detector_loaded"] is False
    assert health.json()["status"] == "loading"
    assert loading.post("/v1/detect", json={"text": "x"}, headers=HEADERS).status_code == 503

    fatal: list[str] = []
    detector = Detector(FakeBackend(raise_on_load=True), ("en",), "en")
    with TestClient(
        create_app(settings, detector, on_fatal=fatal.append, load_in_background=False)
    ) as failed:
        assert failed.get("/readyz").status_code == 503
        assert failed.get("/health").json()["status"] == "unavailable"
        assert failed.get("/health").json()["loaded_models"] == []
    assert fatal and "default language" in fatal[0]


def test_degraded_service_is_not_ready() -> None:
    settings = load_settings({"VEIL_NER_API_KEY": API_KEY, "VEIL_NER_MODELS": "en=a,fr=b"})
    with client_for(settings, FakeBackend(languages=("en", "fr"), fail=("fr",))) as test_client:
        ready = test_client.get("/readyz")
        assert ready.status_code == 503 and ready.json()["reason"] == "degraded"
        health = test_client.get("/health").json()
        assert health["degraded"] is True and health["detector_loaded"] is True
        assert health["loaded_models"] == ["en:fake-en"]
        french = test_client.post("/v1/detect", json={"text": "Jane Roe", "language": "fr"}, headers=HEADERS)
        assert french.status_code == 200 and french.json()["degraded"] is True


def test_health_fields(client: TestClient) -> None:
    body = client.get("/health").json()
    for key in (
        "status",
        "service",
        "detector_loaded",
        "backend",
        "ner_backend",
        "degraded",
        "loaded_models",
    ):
        assert key in body
    assert body["service"] == "veil-ner" and body["status"] == "ok"


def test_busy_when_too_many_pending() -> None:
    settings = load_settings({"VEIL_NER_API_KEY": API_KEY})
    with client_for(settings) as test_client:
        service = test_client.app.state.service  # type: ignore[attr-defined]
        service.pending = settings.max_pending
        response = test_client.post("/v1/detect", json={"text": "x"}, headers=HEADERS)
        assert response.status_code == 503 and response.json() == {"error": "busy: too many pending requests"}


def test_backend_failure_is_generic_500() -> None:
    class Exploding(FakeBackend):
        def detect(self, texts, language):  # type: ignore[no-untyped-def]
            raise ValueError("text was: Jane Roe secret")

    with client_for(load_settings({"VEIL_NER_API_KEY": API_KEY}), Exploding()) as test_client:
        response = test_client.post("/v1/detect", json={"text": "Jane Roe"}, headers=HEADERS)
        assert response.status_code == 500 and response.json() == {"error": "detection failed"}


class ThreadRecording(FakeBackend):
    """Records the thread each model call runs on."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[str] = []

    def detect(self, texts, language):  # type: ignore[no-untyped-def]
        import threading  # noqa: PLC0415

        self.threads.append(threading.current_thread().name)
        return super().detect(texts, language)


def test_short_texts_run_inline_long_ones_and_busy_model_on_the_worker() -> None:
    """A short text runs on the event loop when the model is free (no thread hand-off); a long one,
    or a short one while the model is busy, runs on the single model thread, one call at a time."""
    from veil_ner.app import INLINE_MAX_CHARS  # noqa: PLC0415

    backend = ThreadRecording()
    settings = load_settings({"VEIL_NER_API_KEY": API_KEY})
    with client_for(settings, backend) as test_client:
        backend.threads.clear()  # the warm-up's
        assert test_client.post("/v1/detect", json={"text": "Jane Roe"}, headers=HEADERS).status_code == 200
        long_text = "Jane Roe " * (INLINE_MAX_CHARS // 9 + 1)
        assert test_client.post("/v1/detect", json={"text": long_text}, headers=HEADERS).status_code == 200
        batch = {
            "items": [{"text": "x" * (INLINE_MAX_CHARS // 2 + 1)}, {"text": "y" * (INLINE_MAX_CHARS // 2)}]
        }
        assert test_client.post("/v1/detect/batch", json=batch, headers=HEADERS).status_code == 200
        service = test_client.app.state.service  # type: ignore[attr-defined]
        with service.model_lock:  # the model is busy: a short text waits for the worker
            import threading  # noqa: PLC0415

            results: list[int] = []
            request = threading.Thread(
                target=lambda: results.append(
                    test_client.post("/v1/detect", json={"text": "Jane Roe"}, headers=HEADERS).status_code
                )
            )
            request.start()
            request.join(0.5)
            assert request.is_alive() and results == []  # waiting, not running beside the holder
        request.join(10)
        assert results == [200]
    inline, long_call, batch_call, busy = backend.threads
    assert not inline.startswith("veil-ner-model")
    assert long_call.startswith("veil-ner-model") and batch_call.startswith("veil-ner-model")
    assert busy.startswith("veil-ner-model")
