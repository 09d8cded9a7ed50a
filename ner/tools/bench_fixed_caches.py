#!/usr/bin/env python3
"""The tokenizer's and the model's time per 1 KB text with and without session 13's fixed caches
(veil_ner/backends/token_cache.py: the tokenizer's chunk cache filled from a fixed list and
frozen; embed_cache.py: numbers, indentation and punctuation pairs in the embedding table), in one
process, the two backends called alternately text by text (the order flips every round), so the
machine's drift hits both alike (docs/ner.md, "Throughput, latency and memory"). "base" is the
backend as it was before: spaCy's own tokenizer cache, the table without the generated tokens.

Prints load times, table sizes, p50 for texts seen for the first time (once), then tokenizer and
model p50 over three rounds of the 200 texts, and the number of texts whose raw spans or tokens
differ between the two (must be 0). Run it in a raised autogroup like bench_ner.py:
  (echo -19 > /proc/self/autogroup; cd ner/tools && nice -n -10 ../.venv/bin/python \
      bench_fixed_caches.py ../../data/dev-corpus.jsonl)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from bench_ner import PACKAGE, one_kb_texts
from veil_ner.backends import embed_cache
from veil_ner.backends.spacy_backend import SpacyBackend


def _load(**options: bool) -> tuple[SpacyBackend, float]:
    started = time.perf_counter()
    backend = SpacyBackend({"en": PACKAGE}, 100_000, **options)
    backend.preflight()
    if backend.load().errors:
        raise SystemExit("the model did not load")
    return backend, time.perf_counter() - started


def _rows(backend: SpacyBackend) -> int:
    cache = embed_cache.install(backend._nlp["en"])  # installed already: returns it
    return len(cache) if cache is not None else 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--texts", type=int, default=200)
    args = parser.parse_args()
    every = one_kb_texts(args.corpus, 3 * args.texts)
    texts = every[: args.texts]
    unseen = [t for t in dict.fromkeys(every[args.texts :]) if t not in set(texts)][: args.texts]
    generated = embed_cache.generated_tokens
    embed_cache.generated_tokens = lambda _nlp: []  # the table as it was
    try:
        base, base_load = _load(freeze_tokenizer=False)
    finally:
        embed_cache.generated_tokens = generated
    new, new_load = _load()
    print(
        f"load s: base {base_load:.2f}, new {new_load:.2f}; table rows: base {_rows(base)}, new {_rows(new)}"
    )

    def alternate(
        name: str, sample: list[str], rounds: int, call: Callable[[SpacyBackend, str], object]
    ) -> None:
        for index in range(rounds):
            times: dict[int, list[float]] = {id(base): [], id(new): []}
            order = (base, new) if index % 2 == 0 else (new, base)
            for text in sample:
                for backend in order:
                    started = time.perf_counter()
                    call(backend, text)
                    times[id(backend)].append(time.perf_counter() - started)
            print(
                f"{name}, round {index + 1}: p50 base {1000 * statistics.median(times[id(base)]):.2f} ms, "
                f"new {1000 * statistics.median(times[id(new)]):.2f} ms"
            )

    def model(backend: SpacyBackend, text: str) -> object:
        return backend.detect([text], "en")

    def tokenizer(backend: SpacyBackend, text: str) -> object:
        return backend._nlp["en"].make_doc(text)

    alternate("model, texts seen for the first time", unseen, 1, model)
    for text in texts:
        model(base, text)
        model(new, text)
    alternate("tokenizer", texts, 3, tokenizer)
    alternate("model", texts, 3, model)

    def tokens(backend: SpacyBackend, text: str) -> list[tuple[str, str, str]]:
        return [(t.text, t.norm_, t.whitespace_) for t in backend._nlp["en"].make_doc(text)]

    differing = sum(
        model(base, text) != model(new, text) or tokens(base, text) != tokens(new, text)
        for text in texts + unseen
    )
    print(f"texts whose spans or tokens differ: {differing} of {len(texts) + len(unseen)}")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
