#!/usr/bin/env python3
"""Where one 1 KB text goes inside the sidecar's spaCy call, component by component, in process.

Loads the pipeline the sidecar loads (`SpacyBackend`, same trimming, caches and kernels), lists
the package's components and which ones the sidecar keeps (and, for a shared `tok2vec`, which
components listen to it), then times each stage of `nlp(text)` by hand on the same 1 KB texts as
ner/tools/bench_ner.py: the tokenizer, every kept component, and inside `ner` its tok2vec, its
precomputed hidden layer and the transition loop with the entities. Also the recognizers above the
model (`pipeline.recognize`) and the whole `SpacyBackend.detect` for comparison. Medians per
text, best of `--passes` passes (the machine is shared).

Usage:
  ner/.venv/bin/python ner/tools/profile_components.py data/dev-corpus.jsonl --texts 200
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
from veil_ner import gazetteer
from veil_ner.backends.spacy_backend import SpacyBackend
from veil_ner.pipeline import recognize


def _median_ms(values: list[float]) -> float:
    return 1000 * statistics.median(values)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--texts", type=int, default=200)
    parser.add_argument("--passes", type=int, default=3)
    args = parser.parse_args()
    texts = one_kb_texts(args.corpus, args.texts)
    meta = SpacyBackend._meta(PACKAGE)
    print("package components:", ", ".join(meta.get("components", [])))
    backend = SpacyBackend({"en": PACKAGE}, 100_000)
    backend.preflight()
    backend.load()
    gazetteer.load_all()
    nlp = backend._nlp["en"]
    print("sidecar pipes:", ", ".join(nlp.pipe_names))
    for name, component in nlp.pipeline:
        listeners = getattr(component, "listening_components", None)
        if listeners is not None:
            print(f"  {name} listeners: {listeners}")
    ner = nlp.get_pipe("ner")
    layers = [layer.name for layer in ner.model.walk()][:6]
    print("ner model (first layers):", ", ".join(layers))
    spans = [backend.detect([t], "en")[0] for t in texts]
    stages: dict[str, list[float]] = {}
    best: dict[str, float] = {}
    for _ in range(args.passes):
        stages = {}
        for text, model in zip(texts, spans, strict=True):
            with nlp.memory_zone():
                t0 = time.perf_counter()
                doc = nlp.make_doc(text)
                stages.setdefault("tokenizer", []).append(time.perf_counter() - t0)
                for name, component in nlp.pipeline:
                    t0 = time.perf_counter()
                    doc = component(doc)
                    stages.setdefault(name, []).append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                tok2vec = ner.model.get_ref("tok2vec")
                tok2vec.predict([doc])
                stages.setdefault("  ner: tok2vec alone", []).append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            recognize(text, model)
            stages.setdefault("recognizers", []).append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            backend.detect([text], "en")
            stages.setdefault("SpacyBackend.detect", []).append(time.perf_counter() - t0)
        for name, values in stages.items():
            best[name] = min(best.get(name, float("inf")), _median_ms(values))
    for name, value in best.items():
        print(f"{name:28s} p50 {value:7.2f} ms (best of {args.passes} passes)")
    print(f"load {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
