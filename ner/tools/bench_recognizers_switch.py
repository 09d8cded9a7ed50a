#!/usr/bin/env python3
"""Session 18 (wave17/fast): the recognizers with and without this session's two faster paths, in
one process, each text run off and on in turn (the order flipping), thread CPU time per 1 KB text
(the texts of bench_ner.py, the model's spans computed once). "off" runs `gazetteer.name_score`
without its row table and `names._case_folded` as it was (the search from every word,
ner/tests/test_session18_speed.py's `_case_folded_searched`); "on" as committed. Same process and
same texts, so the machine's drift and the neighbours' load hit both alike; the answers of both
are compared too (exit status 1 when they differ).

Usage (ner/.venv; raise it as the other tools say):
  ner/.venv/bin/python ner/tools/bench_recognizers_switch.py data/dev-corpus.jsonl --texts 200 --rounds 6
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
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from bench_ner import texts_with_spans
from test_session18_speed import _case_folded_searched
from veil_ner import gazetteer, names
from veil_ner.pipeline import recognize


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--texts", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    texts, spans = texts_with_spans(args.corpus, args.texts)
    table = list(gazetteer._row_scores)
    fast_folded = names._case_folded

    def switch(on: bool) -> None:
        gazetteer._row_scores[:] = table if on else []
        names._case_folded = fast_folded if on else _case_folded_searched  # type: ignore[assignment]

    clock = time.thread_time
    answers: dict[bool, list[object]] = {False: [], True: []}
    per: dict[bool, list[list[float]]] = {False: [], True: []}
    for index in range(args.rounds + 1):
        rows: dict[bool, list[float]] = {False: [], True: []}
        for number, (text, model) in enumerate(zip(texts, spans, strict=True)):
            for on in (False, True) if (index + number) % 2 == 0 else (True, False):
                switch(on)
                started = clock()
                found = recognize(text, model)
                rows[on].append(clock() - started)
                if index == 0:  # the first round warms both and keeps the answers
                    answers[on].append(found)
        if index > 0:
            for on in (False, True):
                per[on].append(rows[on])
    switch(True)
    same = answers[False] == answers[True]
    print(f"load {os.getloadavg()[0]:.1f}; answers the same: {same}; each text off and on in turn")
    for on in (False, True):
        print(
            f"{'on ' if on else 'off'} per round, ms: p50 "
            + " ".join(f"{1000 * statistics.median(r):.3f}" for r in per[on])
            + "; mean "
            + " ".join(f"{1000 * statistics.fmean(r):.3f}" for r in per[on])
        )
    diffs = [
        1000 * statistics.median([b - a for a, b in zip(off, on, strict=True)])
        for off, on in zip(per[False], per[True], strict=True)
    ]
    print("median over the texts of (on - off), per round, ms:", " ".join(f"{d:+.3f}" for d in diffs))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
