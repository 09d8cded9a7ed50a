#!/usr/bin/env python3
"""Where recall goes: every missed gold name span of a set, by cause (session 19).

A gold span (person, organization, location) is missed when no final name span of its type
matches it (tools/compare-presidio/scoring.py's greedy one-to-one matching, IoU >= 0.5,
threshold 0.5 as the server's). Its cause, first that applies:

- `boundary`: a final span of the gold type overlaps it with IoU < 0.5 (cut or run on);
- `type:<found>`: a final span of another name type matches it (IoU >= 0.5);
- `dropped:<rule>`: the model proposed a span of the gold type (IoU >= 0.5) and the pipeline
  dropped it; the rule is `org_filters.reason`'s (the non-entity filter's first failing step,
  `later` when it survived refinement and lost to another span);
- `model-boundary`: the model's only spans of the gold type overlap it with IoU < 0.5;
- `model-type:<label>`: the model proposed it (IoU >= 0.5) under another label, and nothing of
  the gold type survived;
- `model-none`: the model proposed nothing that overlaps it.

  PYTHONPATH=<tree>/ner/src VEIL_DEV_EVAL_CACHE=<cache> ner/.venv/bin/python \
      tools/ner-heldout/miss_causes.py [--show CAUSE] [--table] FILE...

Records with split == "test" are skipped: never give it a held-out test split to read.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "ner/tools"))
sys.path.insert(0, str(ROOT / "tools/ner-heldout"))
from dev_eval import CachedBackend, jsonl, predict, use_weights  # noqa: E402
from org_filters import _iou, reason, refine_reason  # noqa: E402
from veil_ner import pipeline as pl  # noqa: E402
from veil_ner.detector import Detector  # noqa: E402
from veil_ner.labels import veil_type  # noqa: E402
from veil_ner.postprocess import clean_span  # noqa: E402

NAME_TYPES = ("person", "organization", "location")


def _matched(gold: list[dict], pred: list[dict]) -> set[int]:
    """Indices of the gold spans scoring.score counts as found."""
    used: set[int] = set()
    found: set[int] = set()
    for gi, g in enumerate(gold):
        best, best_i = 0.0, None
        for i, p in enumerate(pred):
            if i in used or p["type"] != g["type"]:
                continue
            v = _iou((g["start"], g["end"]), (p["start"], p["end"]))
            if v > best:
                best, best_i = v, i
        if best >= 0.5:
            used.add(best_i)
            found.add(gi)
    return found


def _drop_reason(text: str, span: pl.RawEntity) -> str:
    if span.label == "PERSON":
        line = clean_span(text, span.start, span.end)
        if line is None:
            return "line"
        if pl._filtered(text, span) is not None:
            return "later"
        return refine_reason(text, line[0], line[1], "person") or "filtered:other"
    return reason(text, span)


def cause(text: str, gold: dict, final: list[dict], raw: list[pl.RawEntity]) -> str:
    g = (gold["start"], gold["end"])
    kind = gold["type"]
    overlaps = [(p, _iou(g, (p["start"], p["end"]))) for p in final]
    if any(p["type"] == kind and 0 < v < 0.5 for p, v in overlaps):
        return "boundary"
    other = [p["type"] for p, v in overlaps if p["type"] != kind and v >= 0.5]
    if other:
        return f"type:{other[0]}"
    same = [(s, _iou(g, (s.start, s.end))) for s in raw if veil_type(s.label) == kind]
    hit = [s for s, v in same if v >= 0.5]
    if hit:
        return f"dropped:{_drop_reason(text, hit[0])}"
    if any(v > 0 for _, v in same):
        return "model-boundary"
    wrong = [s.label for s in raw if _iou(g, (s.start, s.end)) >= 0.5]
    if wrong:
        return f"model-type:{wrong[0]}"
    return "model-none"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--show", action="append", default=[], help="print the misses of this cause")
    args = parser.parse_args()
    backend = CachedBackend(use_weights(None, False))
    detector = Detector(backend, ["en"], "en")
    detector.load()
    rows = []
    for path in args.files:
        records = [r for r in jsonl(path) if "text" in r and r.get("split") != "test"]
        preds = predict(detector, records)
        counts: Counter = Counter()
        gold_total: Counter = Counter()
        for record, pred in zip(records, preds, strict=True):
            text = record["text"]
            gold = [e for e in record.get("entities", []) if e["type"] in NAME_TYPES]
            final = [p for p in pred if p["type"] in NAME_TYPES]
            found = _matched(gold, final)
            raw = [pl.RawEntity(*s) for s in backend.cache.get(backend._key(text), [])]
            for gi, g in enumerate(gold):
                gold_total[g["type"]] += 1
                if gi in found:
                    continue
                why = cause(text, g, final, raw)
                counts[(g["type"], why)] += 1
                if why in args.show or "all" in args.show:
                    got = [(text[p["start"] : p["end"]], p["type"]) for p in final]
                    value = text[g["start"] : g["end"]]
                    print(f"  {path.name} [{g['type']} {why}] {value!r} got={got} :: {text[:140]!r}")
        rows.append((path.name, counts, gold_total))
    backend.save()
    for name, counts, gold_total in rows:
        print(f"== {name}: gold {dict(gold_total)}, missed {sum(counts.values())}")
        for kind in NAME_TYPES:
            cells = sorted(((why, n) for (k, why), n in counts.items() if k == kind), key=lambda c: -c[1])
            if cells:
                print(f"   {kind:13} " + ", ".join(f"{why} {n}" for why, n in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
