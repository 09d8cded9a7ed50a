"""The backend interface every NER engine implements (spaCy, transformers, GLiNER).

A backend turns texts in one language into raw labelled spans (Python str indices, i.e. Unicode
code points). Label mapping to Veil types, span hygiene, label filtering and the degraded
fallback live above it, in veil_ner.detector, so every backend behaves the same on the wire.

Life cycle: `preflight()` runs synchronously at startup and raises BackendError with a message an
operator can act on (package not installed, model directory missing, version mismatch); then
`load()` runs in a background thread while the HTTP server already answers probes.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol


class BackendError(Exception):
    """A backend cannot start; the message says what is missing and how to fix it."""


@dataclass(frozen=True, slots=True)
class RawEntity:
    start: int
    end: int
    label: str
    confidence: float


@dataclass(frozen=True, slots=True)
class LoadReport:
    """What `load()` achieved: models per language, and per-language load errors."""

    loaded: dict[str, str]
    errors: dict[str, str]


class Backend(Protocol):
    name: str

    def preflight(self) -> None:
        """Cheap checks before binding the port; raise BackendError when the backend can never work."""
        ...

    def load(self) -> LoadReport:
        """Load the models (slow). Errors for single languages go into the report."""
        ...

    def engine(self) -> str:
        """Engine and version, e.g. `spacy 3.8.18` (health `ner_backend`)."""
        ...

    def languages(self) -> frozenset[str]:
        """Languages with a loaded model; `*` means the model serves any language."""
        ...

    def detect(self, texts: Sequence[str], language: str) -> list[list[RawEntity]]:
        """Raw spans for each text, in order; `language` is one of `languages()`."""
        ...


def windows(text: str, size: int, overlap: int) -> Iterator[tuple[int, str]]:
    """Split a long text into overlapping windows cut at whitespace, for models with a short
    context (transformers, GLiNER). Yields (offset, window)."""
    if len(text) <= size:
        yield 0, text
        return
    start = 0
    while start < len(text):
        end = min(len(text), start + size)
        if end < len(text):
            cut = text.rfind(" ", start + size // 2, end)
            end = cut if cut > start else end
        yield start, text[start:end]
        if end >= len(text):
            return
        start = max(end - overlap, start + 1)


def merge_windowed(spans: list[RawEntity]) -> list[RawEntity]:
    """Drop duplicates and overlaps produced by overlapping windows (keep the longer span)."""
    spans.sort(key=lambda span: (span.start, -(span.end - span.start)))
    out: list[RawEntity] = []
    for span in spans:
        if out and span.start < out[-1].end:
            continue
        out.append(span)
    return out
