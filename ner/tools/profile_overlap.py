#!/usr/bin/env python3
"""Why the text's recognizers on a second thread (`VEIL_NER_OVERLAP`, session 16) win or lose, in
process (Session 17). For each 1 KB text of ner/tools/bench_ner.py: the detector's path inline
(model, then `text_parts`, then `recognize`) and with `text_parts` on a worker thread at several
switch intervals, alternated text by text. Per mode: the whole path's p50, the model call's own
wall time, the wait for the parts after the model, and how many parts were ready when the model
ended. Same entities checked in every mode.

Usage (ner/.venv, raised like bench_ner.py):
  ner/.venv/bin/python ner/tools/profile_overlap.py data/dev-corpus.jsonl --texts 200
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_ner import loaded_backend, one_kb_texts
from veil_ner.pipeline import recognize, text_parts


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--texts", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--intervals", default="5,0.5,0.1,0.05", help="switch intervals in ms for the threaded modes"
    )
    args = parser.parse_args()
    texts = one_kb_texts(args.corpus, args.texts)
    backend = loaded_backend()
    worker = ThreadPoolExecutor(max_workers=1)
    expected = [recognize(t, backend.detect([t], "en")[0]) for t in texts]
    modes = ["inline"] + [f"thread@{v}ms" for v in args.intervals.split(",")]
    default_interval = sys.getswitchinterval()

    def run(mode: str, text: str) -> tuple[float, float, float, bool, object]:
        if mode == "inline":
            sys.setswitchinterval(default_interval)
            t0 = time.perf_counter()
            spans = backend.detect([text], "en")[0]
            t1 = time.perf_counter()
            out = recognize(text, spans)
            t2 = time.perf_counter()
            return t2 - t0, t1 - t0, 0.0, True, out
        sys.setswitchinterval(float(mode.split("@")[1][:-2]) / 1000)
        t0 = time.perf_counter()
        future = worker.submit(text_parts, text)
        spans = backend.detect([text], "en")[0]
        t1 = time.perf_counter()
        ready = future.done()
        parts = future.result()
        t2 = time.perf_counter()
        out = recognize(text, spans, parts)
        t3 = time.perf_counter()
        return t3 - t0, t1 - t0, t2 - t1, ready, out

    for round_ in range(args.rounds):
        stats: dict[str, dict[str, list[float]]] = {
            m: {"all": [], "model": [], "wait": [], "ready": []} for m in modes
        }
        for index, text in enumerate(texts):
            order = modes if (index + round_) % 2 == 0 else list(reversed(modes))
            for mode in order:
                total, model, wait, ready, out = run(mode, text)
                if out != expected[index]:
                    print(f"DIFFERENT entities: {mode} text {index}")
                s = stats[mode]
                s["all"].append(total)
                s["model"].append(model)
                s["wait"].append(wait)
                s["ready"].append(1.0 if ready else 0.0)
        for mode in modes:
            s = stats[mode]
            print(
                f"round {round_ + 1} {mode:>14}: p50 {1000 * statistics.median(s['all']):6.2f} ms"
                f"  model p50 {1000 * statistics.median(s['model']):6.2f} ms"
                f"  wait mean {1000 * statistics.fmean(s['wait']):5.2f} ms"
                f"  parts ready {sum(s['ready']):.0f}/{len(texts)}"
            )
    sys.setswitchinterval(default_interval)
    return 0


if __name__ == "__main__":
    sys.exit(main())
