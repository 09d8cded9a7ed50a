"""A fixed table of the English `ner` model's token embeddings for frequent words, computed once
at load, so a text embeds only its other words (docs/ner.md, "Throughput, latency and memory").

The first part of the `ner` model's tok2vec (spaCy's MultiHashEmbed: hashed NORM, PREFIX, SUFFIX
and SHAPE features, the static vector of the word, then a maxout layer with layer normalization)
maps each token to a 96-wide row from that token alone: its word (ORTH) and its norm (NORM, which
the tokenizer may set per token). Only the layers after it (the convolutional encoder, the
transition model) look at neighbours. That part was about a quarter of the model's time per 1 KB
text, and most tokens of a text are frequent words, so their rows are kept per (ORTH, NORM) key.

Independent of traffic: the table is filled once at load (after the weights, before the first
request) from a fixed list, the most frequent English words of a pinned word-frequency list
(data/frequent_words.txt, ner/tools/frequent_words.py; each in lower case and capitalized) and
punctuation and whitespace, and never changes afterwards. A word of a request that is not in it
is embedded for that call and not kept. So a word one tenant sent is not faster for the next one
(no timing channel between callers, no state derived from requests that outlives an erasure): a
call's time depends on its own text only.

Same numbers, not just the same entities: the rows are computed by the same layers in a batch of
their own, and the BLAS kernels give a row the same bits whatever the other rows of the batch
are, as long as the batch is not tiny (on this machine's OpenBLAS, batches of 12 rows or fewer take
other kernels, with other rounding). So rows are embedded in batches of at least `MIN_ROWS` rows
(padded by repeating them), and a call with fewer tokens than that in all is embedded directly,
as before, since the original model computes those in a small batch too.
ner/tests/test_embed_cache.py checks the rows bit for bit against the uncached layer, and
ner/tools/model_equivalence.py the entities on the dev sets. That holds on the Intel machines it was
measured on; on AMD EPYC the kernels round a row differently by batch in the plain model itself
(up to 4e-6 between a text alone and in a batch), so there the rows match within that rounding
and the entities exactly, as the plain model's own batches do.
"""

from __future__ import annotations

import string
from importlib import resources
from typing import Any

import numpy as np

# Below this many rows a batch may take other BLAS kernels (differently rounded): see above.
MIN_ROWS = 32
# Rows per batch while the table is filled: the size of a 1 KB text's batch, where the rows were
# measured bit-identical.
FILL_BATCH = 256
# Words of data/frequent_words.txt taken (docs/ner.md: hit rate against load time and memory).
DEFAULT_WORDS = 20_000
# Tokens no word list has: punctuation and the whitespace tokens of prompts.
# (Typographic ones by escape: dashes, ellipsis, curly quotes, bullet, euro, pound.)
_SYMBOLS = (
    *string.punctuation,
    " ",
    "  ",
    "\n",
    "\n\n",
    "\n\n\n",
    "\t",
    "'s",
    "\u2019s",
    "n't",
    "\u2014",
    "\u2013",
    "\u2026",
    "\u201c",
    "\u201d",
    "\u2018",
    "\u2019",
    "\u2022",
    "\u20ac",
    "\u00a3",
)


# Session 13: tokens no word list has but every kind of prompt is full of (on the dev corpus's 1 KB
# texts two thirds of the table's misses were numbers): every number of one to four digits (with
# leading zeros: dates, times, codes), a plus and one to three digits (calling codes), runs of
# spaces and line breaks with indentation, two punctuation marks (`):`, `",`), and the tokenizer's
# own special cases (`Dr.`, `Jr.`, `don't`). A fixed list, generated, never from requests.
_INDENT = 16


def generated_tokens(nlp: Any) -> list[str]:
    """The fixed tokens above, in a fixed order (the tokenizer's special cases sorted)."""
    numbers = [f"{n:0{width}d}" for width in range(1, 5) for n in range(10**width)]
    calling = [f"+{n}" for n in range(1, 1000)]
    spaces = [
        *(" " * k for k in range(2, _INDENT + 1)),
        *(lead + " " * k for lead in ("\n", "\n\n", "\t") for k in range(1, _INDENT + 1)),
    ]
    pairs = [a + b for a in string.punctuation for b in string.punctuation]
    specials = sorted(str(rule) for rule in getattr(nlp.tokenizer, "rules", None) or {})
    return [*numbers, *calling, *spaces, *pairs, *specials]


def table_tokens(nlp: Any, words: list[str]) -> list[str]:
    """What the table is filled from, in order, without repeats: punctuation and whitespace, the
    generated tokens, then each word in lower case and capitalized."""
    variants = (v for w in words for v in (w, w.capitalize()))
    return list(dict.fromkeys([*_SYMBOLS, *generated_tokens(nlp), *variants]))


def frequent_words(count: int) -> list[str]:
    """The first `count` words of the shipped list (most frequent first)."""
    text = resources.files("veil_ner").joinpath("data/frequent_words.txt").read_text(encoding="utf-8")
    words = [line for line in text.splitlines() if line and not line.startswith("#")]
    return words[:count]


def _keys(doc: Any) -> list[bytes]:
    """One 16-byte key per token (its ORTH and NORM ids side by side): one small object each."""
    from spacy.attrs import NORM, ORTH  # noqa: PLC0415 - spaCy only where the backend runs

    return doc.to_array([ORTH, NORM]).view("V16").ravel().tolist()


class EmbedCache:
    """Rows of one embedding layer by (ORTH, NORM) key, filled once from `words` and read-only
    afterwards. Installed as that layer's forward function (`install`), so the model's graph,
    parameters and serialization stay as they were."""

    def __init__(self, embed: Any, nlp: Any, words: list[str]) -> None:
        self.embed = embed
        self.plain = embed._func  # the layer's own forward, called for what is not in the table
        self.width = int(embed.get_dim("nO"))
        tokens: dict[bytes, tuple[str, int]] = {}  # (text, norm): a Token would keep its Doc alive
        variants = table_tokens(nlp, words)
        for doc in nlp.tokenizer.pipe(variants):
            for token, key in zip(doc, _keys(doc), strict=True):
                tokens.setdefault(key, (token.text, token.norm))
        keys = list(tokens)
        self.rows = np.empty((len(keys), self.width), dtype="float32")
        for start in range(0, len(keys), FILL_BATCH):
            chunk = keys[start : start + FILL_BATCH]
            self.rows[start : start + len(chunk)] = self._embed(nlp.vocab, [tokens[k] for k in chunk])
        self.rows.flags.writeable = False
        self.index: dict[bytes, int] = {key: row for row, key in enumerate(keys)}

    def __len__(self) -> int:
        return len(self.index)

    def forward(self, model: Any, docs: list[Any], is_train: bool) -> tuple[list[Any], Any]:
        """thinc's forward signature: training goes through the plain layer (the table holds
        inference rows only)."""
        if is_train:
            return self.plain(model, docs, is_train)
        return self(docs), _no_backprop

    def _compute(self, docs: list[Any]) -> list[Any]:
        return self.plain(self.embed, docs, False)[0]

    def __call__(self, docs: list[Any]) -> list[Any]:
        keyed = [_keys(doc) for doc in docs]
        if sum(len(keys) for keys in keyed) < MIN_ROWS:
            return self._compute(docs)  # as the uncached model computes it (see the module doc)
        index = self.index
        missing: dict[bytes, tuple[str, int]] = {}  # keys not in the table: (text, norm) of a token
        for doc, keys in zip(docs, keyed, strict=True):
            for position, key in enumerate(keys):
                if key not in index and key not in missing:
                    token = doc[position]
                    missing[key] = (token.text, token.norm)
        if not missing:
            return [self.rows[[index[key] for key in keys]] for keys in keyed]
        # Embedded for this call only, never stored (see the module doc).
        fresh = self._embed(docs[0].vocab, list(missing.values()))
        local = {key: row for row, key in enumerate(missing)}
        out = []
        for keys in keyed:
            rows = np.empty((len(keys), self.width), dtype="float32")
            known = [(p, index[k]) for p, k in enumerate(keys) if k in index]
            new = [(p, local[k]) for p, k in enumerate(keys) if k not in index]
            if known:
                rows[[p for p, _ in known]] = self.rows[[r for _, r in known]]
            if new:
                rows[[p for p, _ in new]] = fresh[[r for _, r in new]]
            out.append(rows)
        return out

    def _embed(self, vocab: Any, tokens: list[tuple[str, int]]) -> Any:
        """The rows of `tokens` (one each, in order), computed in a batch of their own, padded to
        at least MIN_ROWS rows by repeating them (same rows, see the module doc)."""
        from spacy.attrs import NORM  # noqa: PLC0415
        from spacy.tokens import Doc  # noqa: PLC0415

        words = [text for text, _ in tokens]
        norms = [norm for _, norm in tokens]
        while len(words) < MIN_ROWS:
            words += words[: MIN_ROWS - len(words)]
            norms += norms[: MIN_ROWS - len(norms)]
        batch = Doc(vocab, words=words, spaces=[False] * len(words))
        batch.from_array([NORM], np.asarray(norms, dtype="uint64").reshape(-1, 1))
        return self._compute([batch])[0][: len(tokens)]


def install(nlp: Any, words: int = DEFAULT_WORDS) -> EmbedCache | None:
    """Put a table of the `words` most frequent words' rows in front of the `ner` component's
    embedding layer when the model has the layout described above (spaCy's Tok2Vec: embed, then
    encode, the embed a MultiHashEmbed); None (and nothing changed) for any other architecture.
    The layer keeps its place, parameters and serialization; only its forward function is
    replaced. Call after the weights are loaded: rows computed before a later `from_disk` would be
    stale. Installing twice returns the first table."""
    if "ner" not in nlp.pipe_names:
        return None
    model = nlp.get_pipe("ner").model
    if not model.has_ref("tok2vec"):
        return None
    tok2vec = model.get_ref("tok2vec")
    inner = tok2vec.layers[0] if tok2vec.layers else None
    if inner is None or not inner.has_ref("embed"):
        return None
    embed = inner.get_ref("embed")
    installed = getattr(embed._func, "__self__", None)
    if isinstance(installed, EmbedCache):
        return installed
    if not embed.name.startswith("extract_features"):  # MultiHashEmbed: per-token features only
        return None
    cache = EmbedCache(embed, nlp, frequent_words(words))
    embed._func = cache.forward  # thinc calls model._func(model, X, is_train)
    return cache


def _no_backprop(_: Any) -> None:
    raise RuntimeError("the embedding cache is for inference only")
