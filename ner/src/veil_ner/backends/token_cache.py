"""The tokenizer's chunk cache filled once at load from a fixed list, then frozen (docs/ner.md,
"Throughput, latency and memory", session 13).

spaCy's tokenizer splits a text at whitespace into chunks and keeps the tokens of a chunk it has
split (prefix, suffix and infix regular expressions, special cases) in a cache keyed by the chunk,
up to `max_cache_size` chunks (10,000 by default); a chunk found there skips the regular
expressions. spaCy fills that cache from whatever it tokenizes: in the sidecar that was the first
10,000 chunks of the embedding table's word list (embed_cache.py tokenizes it at load), so the
cache was already full before the first request, and every chunk of a request that was not among
those (a word with a comma or a full stop after it, a number, most capitalized words) went
through the regular expressions: about 0.9 ms of a 1 KB text's 2.4 ms of tokenizing on session
13's machine.

Here the cache holds a fixed list instead, chosen for what prompts are made of: the embedding
table's tokens (its frequent words in lower case and capitalized, numbers, punctuation,
whitespace), and the most frequent words with the punctuation that commonly sticks to them. Then
`max_cache_size` is set to 0, so nothing is ever added: a chunk of a request is never kept (no
timing channel between callers, no request state that outlives an erasure; before, that held only
because the cache happened to be full, and not at all with the embedding table switched off).
The cache is spaCy's own mechanism and stores exactly what the tokenizer produced for the chunk
(spaCy does not cache chunks that hit a special case), so the tokens are the same with or without
it; ner/tests/test_backends.py and ner/tools/sidecar_equivalence.py check that.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

# Words of the frequent list that also get their punctuated forms (load time and memory against
# hit rate: docs/ner.md).
DEFAULT_PUNCTUATED = 1_000
# What commonly sticks to a word in prose and prompts.
_AFTER = (",", ".", ":", ";", "?", "!", ")", '"', "'s", '."')
_BEFORE = ("(", '"')
# Room for the fill: far more than the list holds, so every chunk of it is kept.
_FILL_LIMIT = 10_000_000


def chunks(tokens: Iterable[str], words: list[str], punctuated: int) -> list[str]:
    """The fixed list, in order, without repeats: `tokens` as they are, then the first
    `punctuated` words (lower case and capitalized) with each of the marks before or after."""
    out = dict.fromkeys(tokens)
    for word in words[:punctuated]:
        for variant in dict.fromkeys((word, word.capitalize())):
            out.update(dict.fromkeys(variant + mark for mark in _AFTER))
            out.update(dict.fromkeys(mark + variant for mark in _BEFORE))
    return list(out)


def freeze(nlp: Any, fixed: Iterable[str]) -> None:
    """Fill the tokenizer's cache with the chunks of `fixed` and then stop it from growing.
    Call before any request; tokenizing afterwards only reads the cache."""
    tokenizer = nlp.tokenizer
    tokenizer.max_cache_size = _FILL_LIMIT
    for _ in tokenizer.pipe(fixed):
        pass
    tokenizer.max_cache_size = 0  # frozen: nothing a request holds is ever stored
