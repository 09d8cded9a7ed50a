#!/usr/bin/env python3
"""The model's time per 1 KB text with and without the embedding table of frequent words
(veil_ner/backends/embed_cache.py), in one process, calls alternating between the two backends
text by text so that the machine's drift hits both alike (docs/ner.md, "Throughput, latency and
memory"). Both backends first see the same 200 texts of bench_ner.py; then:

- first sight: texts neither has seen (further disjoint 1 KB texts of the corpus), once each;
- seen: the 200 texts again, three rounds.

Since session 9's second change the table is filled at load and never from requests, so the two
rows differ only by what the CPU's caches and the allocator keep, not by the table.

Prints the p50 of the model call (`SpacyBackend.detect`, one text) for each. Run it in a raised
autogroup like bench_ner.py:
  (echo -19 > /proc/self/autogroup; nice -n -10 ner/.venv/bin/python ner/tools/bench_embed_cache.py \
      data/dev-corpus.jsonl)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from bench_ner import PACKAGE, one_kb_texts
from veil_ner.backends.spacy_backend import SpacyBackend


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--texts", type=int, default=200)
    args = parser.parse_args()
    plain = SpacyBackend({"en": PACKAGE}, 100_000, embed_cache_words=0)
    cached = SpacyBackend({"en": PACKAGE}, 100_000)
    for backend in (plain, cached):
        backend.preflight()
        backend.load()
    every = list(dict.fromkeys(one_kb_texts(args.corpus, 3 * args.texts)))
    seen, unseen = every[: args.texts], every[args.texts :]
    for text in seen:
        plain.detect([text], "en")
        cached.detect([text], "en")

    def alternate(texts: list[str], rounds: int) -> tuple[float, float]:
        times: dict[int, list[float]] = {id(plain): [], id(cached): []}
        for round_ in range(rounds):
            for index, text in enumerate(texts):
                for backend in (plain, cached) if (index + round_) % 2 else (cached, plain):
                    began = time.perf_counter()
                    backend.detect([text], "en")
                    times[id(backend)].append(time.perf_counter() - began)
        return tuple(round(1000 * statistics.median(times[id(b)]), 2) for b in (plain, cached))  # type: ignore[return-value]

    print(f"first sight ({len(unseen)} texts): p50 ms without / with the cache: {alternate(unseen, 1)}")
    print(f"seen ({len(seen)} texts, 3 rounds): p50 ms without / with the cache: {alternate(seen, 3)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
