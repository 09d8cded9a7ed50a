#!/usr/bin/env python3
"""Time and profile the recognizers above the model (pipeline.recognize) in process, on the
same 1 KB texts as ner/tools/bench_ner.py, with the model's spans computed once up front: the
recognizer stage alone, without the sidecar's HTTP or the model, so a change to a rule's cost
shows in seconds (docs/ner.md, "Recognition pipeline", Cost).

Prints the p50 per text of each of `--passes` passes (the best pass is the figure to quote:
the machine is shared) and, with `--profile`, the cProfile of one pass sorted by cumulative and
by own time.

`--cpu` (session 16) times each text by the thread's CPU time (`time.thread_time`) instead of
the wall clock: on a machine shared at load 15-20 the wall clock mostly measures the neighbours.

Usage:
  ner/.venv/bin/python ner/tools/profile_recognizers.py data/dev-corpus.jsonl --texts 200 [--cpu] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_ner import texts_with_spans
from veil_ner.pipeline import recognize


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--texts", type=int, default=200)
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--cpu", action="store_true", help="thread CPU time, not the wall clock")
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args()
    texts, spans = texts_with_spans(args.corpus, args.texts)
    for text, model in zip(texts[:10], spans[:10], strict=True):
        recognize(text, model)  # warm-up: lazily built sets and patterns
    clock = time.thread_time if args.cpu else time.perf_counter
    medians = []
    for _ in range(args.passes):
        latencies = []
        for text, model in zip(texts, spans, strict=True):
            started = clock()
            recognize(text, model)
            latencies.append(clock() - started)
        medians.append(1000 * statistics.median(latencies))
    kind = "CPU" if args.cpu else "wall"
    print(f"recognizers p50 per 1 KB text ({kind}), ms, per pass:", " ".join(f"{m:.2f}" for m in medians))
    load = os.getloadavg()[0]
    print(f"best {min(medians):.2f} ms, median {statistics.median(medians):.2f} ms, load {load:.1f}")
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        for text, model in zip(texts, spans, strict=True):
            recognize(text, model)
        profiler.disable()
        stats = pstats.Stats(profiler)
        stats.sort_stats("cumulative").print_stats(args.top)
        stats.sort_stats("tottime").print_stats(args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
