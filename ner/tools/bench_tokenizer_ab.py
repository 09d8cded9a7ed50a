#!/usr/bin/env python3
"""A/B in one process of the session-15 tokenizer changes (docs/ner.md, "Throughput, latency and
memory", session 15): two `SpacyBackend`s, one with spaCy's own lexeme getters and suffix search
(`fast_tokenizer=False`) and one with `veil_ner/backends/lex_attrs.py` and
`veil_ner/backends/suffix_search.py`, the same 1 KB texts as ner/tools/bench_ner.py, text by text
(each text to both, the order flipping every round) so a shared machine's drift hits both alike. Per round:
p50 of the tokenizer alone (in a memory zone, as a request runs) and of `SpacyBackend.detect`; and
whether the entities are the same.

Usage (raised autogroup on a shared machine):
  ner/.venv/bin/python ner/tools/bench_tokenizer_ab.py data/dev-corpus.jsonl [--texts 200] [--rounds 4]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_ner import PACKAGE, one_kb_texts
from veil_ner.backends.spacy_backend import SpacyBackend


def _p50_ms(values: list[float]) -> float:
    return 1000 * statistics.median(values)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--texts", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    texts = one_kb_texts(args.corpus, args.texts)
    backends = {}
    for name, fast in (("spacy's", False), ("session 15", True)):
        backend = SpacyBackend({"en": PACKAGE}, 100_000, fast_tokenizer=fast)
        backend.preflight()
        backend.load()
        backends[name] = backend
    answers = {name: [b.detect([t], "en")[0] for t in texts] for name, b in backends.items()}
    same = sum(a == b for a, b in zip(*answers.values(), strict=True))
    print(f"same entities: {same} of {len(texts)} texts")
    for round_ in range(args.rounds):
        order = list(backends) if round_ % 2 == 0 else list(reversed(backends))
        tokenizer: dict[str, list[float]] = {name: [] for name in order}
        detect: dict[str, list[float]] = {name: [] for name in order}
        for text in texts:  # text by text, both backends: the machine's drift hits both alike
            for name in order:
                nlp = backends[name]._nlp["en"]
                with nlp.memory_zone():
                    t0 = time.perf_counter()
                    nlp.tokenizer(text)
                    tokenizer[name].append(time.perf_counter() - t0)
            for name in order:
                t0 = time.perf_counter()
                backends[name].detect([text], "en")
                detect[name].append(time.perf_counter() - t0)
        line = "; ".join(
            f"{n}: tokenizer {_p50_ms(tokenizer[n]):.2f} ms, detect {_p50_ms(detect[n]):.2f} ms"
            for n in backends
        )
        print(f"round {round_ + 1}: {line}; load {os.getloadavg()[0]:.1f}")
    return 0 if same == len(texts) else 1


if __name__ == "__main__":
    sys.exit(main())
