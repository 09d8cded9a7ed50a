"""Helpers of the pipeline rule tests (`test_session15b_rules.py`, `test_session15c_rules.py`): word
vectors for a few common words only, and the pipeline run on hand-given model spans."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

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
