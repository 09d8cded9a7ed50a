"""A per-word cache of the English `ner` model's token embeddings, so a text only embeds the words
the sidecar has not seen yet (docs/ner.md, "Throughput, latency and memory").

The first part of the `ner` model's tok2vec (spaCy's MultiHashEmbed: hashed NORM, PREFIX, SUFFIX
and SHAPE features, the static vector of the word, then a maxout layer with layer normalization)
maps each token to a 96-wide row from that token alone: its word (ORTH) and its norm (NORM, which
the tokenizer may set per token). Only the layers after it (the convolutional encoder, the
transition model) look at neighbours. That part was about a quarter of the model's time per 1 KB
text, and most words of a text were seen before, so its rows are kept per (ORTH, NORM) key and
only new keys are embedded.

Same numbers, not just the same entities: the rows are computed by the same layers in a batch of
their own, and the BLAS kernels give a row the same bits whatever the other rows of the batch
are, as long as the batch is not tiny (on this machine's OpenBLAS, batches of 12 rows or fewer take
other kernels, with other rounding). So new keys are embedded in a batch of at least
`MIN_ROWS` rows (padded by repeating them), and a call with fewer tokens than that in all is
embedded directly, as before, since the original model computes those in a small batch too.
ner/tests/test_embed_cache.py checks the rows bit for bit against the uncached layer, and
ner/tools/model_equivalence.py the entities on the dev sets.

The cache holds at most `capacity` rows (96 float32 each, 384 bytes: 19 MiB for the default
50,000) and is emptied when full; memory is touched only as rows are written.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

# Below this many rows a batch may take other BLAS kernels (differently rounded): see above.
MIN_ROWS = 32
DEFAULT_CAPACITY = 50_000


class EmbedCache:
    """Rows of one embedding layer by (ORTH, NORM) key. Installed as that layer's forward function
    (`install`), so the model's graph, parameters and serialization stay as they were."""

    def __init__(self, embed: Any, capacity: int = DEFAULT_CAPACITY) -> None:
        self.embed = embed
        self.plain = embed._func  # the layer's own forward, called for what is not cached
        self.capacity = capacity
        self.width = int(embed.get_dim("nO"))
        self.rows = np.empty((capacity, self.width), dtype="float32")
        self.index: dict[bytes, int] = {}
        self.lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.index)

    def forward(self, model: Any, docs: list[Any], is_train: bool) -> tuple[list[Any], Any]:
        """thinc's forward signature: training goes through the plain layer (the cache holds
        inference rows only)."""
        if is_train:
            return self.plain(model, docs, is_train)
        return self(docs), _no_backprop

    def _compute(self, docs: list[Any]) -> list[Any]:
        return self.plain(self.embed, docs, False)[0]

    def __call__(self, docs: list[Any]) -> list[Any]:
        from spacy.attrs import NORM, ORTH  # noqa: PLC0415 - spaCy only where the backend runs

        # One 16-byte key per token (its ORTH and NORM ids side by side): one small object each.
        keyed = [doc.to_array([ORTH, NORM]).view("V16").ravel().tolist() for doc in docs]
        total = sum(len(keys) for keys in keyed)
        if total < MIN_ROWS or total > self.capacity:
            return self._compute(docs)  # as the uncached model computes it (see the module doc)
        with self.lock:
            missing = self._missing(docs, keyed)
            if missing:
                if len(self.index) + len(missing) > self.capacity:
                    self.index.clear()
                    missing = self._missing(docs, keyed)
                self._add(docs[0].vocab, missing)
            index = self.index
            return [self.rows[[index[key] for key in keys]] for keys in keyed]

    def _missing(self, docs: list[Any], keyed: list[list[bytes]]) -> dict[bytes, Any]:
        """The keys not cached, each with one token that has it."""
        missing: dict[bytes, Any] = {}
        index = self.index
        for doc, keys in zip(docs, keyed, strict=True):
            for position, key in enumerate(keys):
                if key not in index and key not in missing:
                    missing[key] = doc[position]
        return missing

    def _add(self, vocab: Any, missing: dict[bytes, Any]) -> None:
        from spacy.attrs import NORM  # noqa: PLC0415
        from spacy.tokens import Doc  # noqa: PLC0415

        keys = list(missing)
        words = [missing[key].text for key in keys]
        norms = [missing[key].norm for key in keys]
        while len(words) < MIN_ROWS:  # pad a small batch by repeating it (same rows, see above)
            words += words[: MIN_ROWS - len(words)]
            norms += norms[: MIN_ROWS - len(norms)]
        batch = Doc(vocab, words=words, spaces=[False] * len(words))
        batch.from_array([NORM], np.asarray(norms, dtype="uint64").reshape(-1, 1))
        rows = self._compute([batch])[0]
        start = len(self.index)
        self.rows[start : start + len(keys)] = rows[: len(keys)]
        for offset, key in enumerate(keys):
            self.index[key] = start + offset


def install(nlp: Any, capacity: int = DEFAULT_CAPACITY) -> EmbedCache | None:
    """Put a cache in front of the `ner` component's embedding layer when the model has the
    layout described above (spaCy's Tok2Vec: embed, then encode, the embed a MultiHashEmbed); None
    (and nothing changed) for any other architecture. The layer keeps its place, parameters and
    serialization; only its forward function is replaced. Call after the weights are loaded: rows
    cached before a later `from_disk` would be stale. Installing twice returns the first cache."""
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
    cache = EmbedCache(embed, capacity)
    embed._func = cache.forward  # thinc calls model._func(model, X, is_train)
    return cache


def _no_backprop(_: Any) -> None:
    raise RuntimeError("the embedding cache is for inference only")
