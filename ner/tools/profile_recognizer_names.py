#!/usr/bin/env python3
"""The recognizers' cost by name, in thread CPU time per 1 KB text (Session 18, wave17/fast).

Wraps each named recognizer function (module attributes the pipeline calls by global name) with a
timer that adds the thread CPU time of the call (its generators consumed inside the timer), runs
`recognize` over the texts of ner/tools/bench_ner.py with the model's spans computed once, and
prints per function the mean inclusive time per text (nested wrapped calls count in both), the
calls per text, and the whole `recognize`. The wrappers add their own cost (about 1 µs a call);
compare functions with each other, not with an unwrapped run.

Usage (ner/.venv; raise it as the other tools say):
  ner/.venv/bin/python ner/tools/profile_recognizer_names.py data/dev-corpus.jsonl --texts 200
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_ner import texts_with_spans
from veil_ner import addresses, gazetteer, names, nonentity, orgs, pipeline

_TOTALS: dict[str, list[float]] = {}


def _wrap(module: ModuleType, name: str) -> None:
    original = getattr(module, name)
    key = f"{module.__name__.rsplit('.', 1)[-1]}.{name}"
    slot = _TOTALS.setdefault(key, [0.0, 0])
    clock = time.thread_time
    generator = inspect.isgeneratorfunction(original)

    def timed(*args: object, **kwargs: object) -> object:
        started = clock()
        result = original(*args, **kwargs)
        if generator:
            result = iter(list(result))  # type: ignore[call-overload]
        slot[0] += clock() - started
        slot[1] += 1
        return result

    setattr(module, name, timed)


def _targets() -> list[tuple[ModuleType, str]]:
    out = []
    for module in (pipeline, names, addresses, orgs, nonentity, gazetteer):
        for name, value in vars(module).items():
            if (
                inspect.isfunction(value)
                and value.__module__ == module.__name__
                and name not in {"recognize"}
                and not name.startswith("__")
            ):
                out.append((module, name))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--texts", type=int, default=200)
    parser.add_argument("--top", type=int, default=45)
    args = parser.parse_args()
    texts, spans = texts_with_spans(args.corpus, args.texts)
    recognize: Callable[..., object] = pipeline.recognize
    for text, model in zip(texts, spans, strict=True):
        recognize(text, model)  # warm-up
    clock = time.thread_time
    plain = clock()
    for text, model in zip(texts, spans, strict=True):
        recognize(text, model)
    plain = clock() - plain
    for module, name in _targets():
        _wrap(module, name)
    wrapped = clock()
    for text, model in zip(texts, spans, strict=True):
        recognize(text, model)
    wrapped = clock() - wrapped
    n = len(texts)
    load = os.getloadavg()[0]
    unwrapped_us, wrapped_us = 1e6 * plain / n, 1e6 * wrapped / n
    print(
        f"recognize per text: {unwrapped_us:.0f} µs unwrapped, {wrapped_us:.0f} µs wrapped; load {load:.1f}"
    )
    rows = sorted(_TOTALS.items(), key=lambda item: -item[1][0])
    for key, (total, calls) in rows[: args.top]:
        print(f"{1e6 * total / n:9.0f} µs {calls / n:8.1f} calls  {key}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
