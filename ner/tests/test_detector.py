"""The detection service over a fake backend: fallback and degraded, filtering, batching, load states."""

from __future__ import annotations

from conftest import FakeBackend
from veil_ner.detector import Detector, Item, State


def make(backend: FakeBackend, languages: tuple[str, ...] = ("en",)) -> Detector:
    detector = Detector(backend, languages, "en")
    detector.load()
    return detector


def test_maps_filters_and_drops(fake_backend: FakeBackend) -> None:
    detector = make(fake_backend)
    # "went to": "flew to" is a place context (pipeline), whose own span would replace the model's GPE
    [result] = detector.detect([Item("Jane Roe went to Paris in 2024.", None, None)])
    assert [(e["type"], e["start"], e["end"], e["label"]) for e in result.entities] == [
        ("person", 0, 8, "PERSON"),
        ("location", 17, 22, "GPE"),
    ]  # DATE is dropped
    assert result.degraded is False and result.warnings == []
    [only_places] = detector.detect([Item("Jane Roe flew to Paris.", None, frozenset({"location"}))])
    assert [e["type"] for e in only_places.entities] == ["location"]
    [nothing] = detector.detect([Item("Jane Roe flew to Paris.", None, frozenset())])
    assert nothing.entities == []


def test_unknown_language_falls_back_and_is_degraded(fake_backend: FakeBackend) -> None:
    detector = make(fake_backend)
    [result] = detector.detect([Item("Jane Roe", "xx", None)])
    assert result.degraded is True
    assert result.warnings == ["no NER model for language 'xx'; used the 'en' model"]
    assert result.entities[0]["type"] == "person"


def test_batch_groups_by_language_and_keeps_order() -> None:
    backend = FakeBackend(languages=("en", "fr"))
    detector = make(backend, ("en", "fr"))
    backend.calls.clear()  # the warm-up's
    results = detector.detect(
        [
            Item("Jane Roe", "en", None),
            Item("Marie Curie", "fr", None),
            Item("Paris", "en", None),
            Item("x", "de", None),
        ]
    )
    assert [r.entities[0]["label"] if r.entities else None for r in results] == [
        "PERSON",
        "PERSON",
        "GPE",
        None,
    ]
    assert [r.degraded for r in results] == [False, False, False, True]
    assert sorted(backend.calls) == [(1, "fr"), (3, "en")]  # en + the de fallback in one pass


def test_load_states() -> None:
    assert make(FakeBackend()).state is State.READY
    assert make(FakeBackend(raise_on_load=True)).state is State.FAILED
    assert make(FakeBackend(fail=("en",))).state is State.FAILED
    partial = make(FakeBackend(languages=("en", "fr"), fail=("fr",)), ("en", "fr"))
    assert partial.state is State.READY and partial.degraded is True
    assert partial.loaded_models() == ["en:fake-en"]
    [result] = partial.detect([Item("Jane Roe", "fr", None)])
    assert result.degraded is True


def test_load_warms_every_language_before_ready() -> None:
    """The whole path runs once per loaded language during load, so the first request does not
    pay for lazy initialisation; a failed language is not warmed."""
    backend = FakeBackend(languages=("en", "fr", "de"), fail=("de",))
    detector = make(backend, ("en", "fr", "de"))
    assert detector.state is State.READY
    assert sorted(backend.calls) == [(1, "en"), (1, "fr")]
    assert make(FakeBackend(fail=("en",))).state is State.FAILED
