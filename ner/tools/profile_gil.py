#!/usr/bin/env python3
"""How often, and for how long, the sidecar's model call lets go of the GIL per 1 KB text
(Session 17, wave16/fast: why `VEIL_NER_OVERLAP`'s second thread did not win with a free core).

Places two uprobes on the interpreter's library (`PyEval_SaveThread`, `PyEval_RestoreThread`:
every release and take-back of the GIL by C code: numpy's loops, BLAS products, spaCy's `nogil`
sections and their `with gil` blocks), runs the model (`nlp.make_doc`, then each component, in a
memory zone, as `SpacyBackend.detect` does) on the texts of ner/tools/bench_ner.py under
`perf record` with a monotonic clock, and counts the releases inside each text's tokenizer and
model windows, by duration. Needs Linux `perf` and the right to add uprobes (root). The probes
stay defined after the run (`perf probe -d 'probe_libpython3:*'` removes them). Only counts and
times are printed.

Usage:
  ner/.venv/bin/python ner/tools/profile_gil.py data/dev-corpus.jsonl --texts 50
"""

from __future__ import annotations

import argparse
import bisect
import collections
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

PROBES = ("PyEval_SaveThread", "PyEval_RestoreThread")
BUCKETS = (
    (1e-5, "< 10 µs"),
    (5e-5, "10-50 µs"),
    (2e-4, "50-200 µs"),
    (5e-4, "200-500 µs"),
    (float("inf"), ">= 500 µs"),
)


def child(corpus: Path, count: int, marks_path: Path) -> None:
    """The measured process: load, warm, then time each text's tokenizer and model windows."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_ner import PACKAGE, one_kb_texts  # noqa: PLC0415
    from veil_ner import gazetteer  # noqa: PLC0415
    from veil_ner.backends.spacy_backend import SpacyBackend  # noqa: PLC0415

    texts = one_kb_texts(corpus, count)
    backend = SpacyBackend({"en": PACKAGE}, 100_000)
    backend.preflight()
    backend.load()
    gazetteer.load_all()
    nlp = backend._nlp["en"]
    for text in texts:
        backend.detect([text], "en")
    marks = []
    clock = time.CLOCK_MONOTONIC
    for text in texts:
        with nlp.memory_zone():
            start = time.clock_gettime(clock)
            doc = nlp.make_doc(text)
            tokens = time.clock_gettime(clock)
            for _, component in nlp.pipeline:
                doc = component(doc)
            marks.append((start, tokens, time.clock_gettime(clock)))
    marks_path.write_text(json.dumps(marks))


def analyse(script: str, marks: list[list[float]]) -> None:
    events = []
    for line in script.splitlines():
        found = re.match(r"\s*\d+\s+([\d.]+):\s+probe_libpython3:(\w+)", line)
        if found:
            events.append((float(found.group(1)), found.group(2)))
    events.sort()
    times = [t for t, _ in events]
    per_text: dict[str, list[float]] = collections.defaultdict(list)
    durations: list[float] = []
    for start, tokens, end in marks:
        for window, (low, high) in (("tokenizer", (start, tokens)), ("model", (tokens, end))):
            segment = events[bisect.bisect_left(times, low) : bisect.bisect_left(times, high)]
            releases = [t for t, kind in segment if kind == PROBES[0]]
            per_text[f"{window} releases"].append(len(releases))
            if window == "model":
                free, opened = 0.0, None
                for t, kind in segment:
                    if kind == PROBES[0]:
                        opened = t
                    elif opened is not None:
                        free += t - opened
                        durations.append(t - opened)
                        opened = None
                per_text["model wall ms"].append(1000 * (high - low))
                per_text["model GIL-free ms"].append(1000 * free)
    texts = len(marks)
    for name, values in per_text.items():
        print(f"{name}: p50 {statistics.median(values):.2f}")
    counts: collections.Counter[str] = collections.Counter()
    totals: collections.Counter[str] = collections.Counter()
    for duration in durations:
        label = next(label for bound, label in BUCKETS if duration < bound)
        counts[label] += 1
        totals[label] += duration
    for _, label in BUCKETS:
        print(
            f"releases {label:>10}: {counts[label] / texts:7.1f} per text,"
            f" {1000 * totals[label] / texts:6.2f} ms per text"
        )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--texts", type=int, default=50)
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        child(args.corpus, args.texts, args.child)
        return 0
    library = Path(sysconfig.get_config_var("LIBDIR")) / str(sysconfig.get_config_var("INSTSONAME"))
    perf = shutil.which("perf")
    if perf is None:
        print("profile_gil: needs Linux perf", file=sys.stderr)
        return 2
    existing = subprocess.run(  # noqa: S603 - the system perf, fixed arguments
        [perf, "probe", "-l"], capture_output=True, text=True, check=False
    ).stdout
    for probe in PROBES:
        if f"probe_libpython3:{probe} " not in existing:
            subprocess.run([perf, "probe", "-q", "-x", str(library), probe], check=True)  # noqa: S603
    work = Path(tempfile.mkdtemp())
    marks_path, data = work / "marks.json", work / "perf.data"
    events = [arg for probe in PROBES for arg in ("-e", f"probe_libpython3:{probe}")]
    subprocess.run(  # noqa: S603 - the system perf and this interpreter
        [
            perf,
            "record",
            "-q",
            "-k",
            "CLOCK_MONOTONIC",
            *events,
            "-o",
            str(data),
            "--",
            sys.executable,
            __file__,
            str(args.corpus),
            "--texts",
            str(args.texts),
            "--child",
            str(marks_path),
        ],
        check=True,
        stderr=subprocess.DEVNULL,
    )
    script = subprocess.run(  # noqa: S603
        [perf, "script", "-i", str(data), "-F", "tid,time,event"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    analyse(script, json.loads(marks_path.read_text()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
