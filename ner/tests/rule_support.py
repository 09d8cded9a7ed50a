"""Helpers of the pipeline rule tests (`test_session15b_rules.py`, `test_session15c_rules.py`): word
vectors for a few common words only, and the pipeline run on hand-given model spans."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from veil_ner import gazetteer, pipeline
from veil_ner.backends import RawEntity
from veil_ner.labels import veil_type


class CommonWords:
    """Word vectors for `words` only: every other word is rare."""

    def __init__(self, words: Iterable[str]) -> None:
        self.common = frozenset(word.lower() for word in words)

    def has_vector(self, word: str) -> bool:
        return word.lower() in self.common


@contextmanager
def common_words(words: Iterable[str]) -> Iterator[None]:
    """The gazetteer reads `words` as the only words with vectors while the block runs."""
    gazetteer.use_vocabulary(CommonWords(words))
    try:
        yield
    finally:
        gazetteer._vocabulary.clear()


def vocabulary_fixture(words: Iterable[str]) -> Callable[[], Iterator[None]]:
    """A test module's `vocabulary` fixture: word vectors for `words` only, every other word rare
    (`vocabulary = vocabulary_fixture(COMMON)`)."""
    common = frozenset(words)

    @pytest.fixture
    def vocabulary() -> Iterator[None]:
        with common_words(common):
            yield

    return vocabulary


def recognized(text: str, model: list[tuple[str, str]]) -> set[tuple[str, str | None]]:
    """(value, Veil type) of what the pipeline makes of `text` with the model's `(value, label)` spans."""
    spans = []
    for value, label in model:
        start = text.index(value)
        spans.append(RawEntity(start, start + len(value), label, 0.9))
    return {(text[s.start : s.end], veil_type(s.label)) for s in pipeline.recognize(text, spans)}


def of_kind(found: set[tuple[str, str | None]], kind: str) -> set[str]:
    """The values of `recognized`'s result typed `kind`."""
    return {value for value, k in found if k == kind}


DEV_CORPUS = Path(__file__).resolve().parents[2] / "data" / "dev-corpus.jsonl"


def dev_corpus_texts(limit: int = 1_000) -> list[str]:
    """The first `limit` texts of the repository's dev corpus (none where the file is absent)."""
    if not DEV_CORPUS.exists():
        return []
    texts = []
    with DEV_CORPUS.open(encoding="utf-8") as lines:
        for line in lines:
            texts.append(json.loads(line)["text"])
            if len(texts) >= limit:
                break
    return texts
