#!/usr/bin/env python3
"""Error listing for own wordings (session 16): every gold value missed and every predicted span
that matches no gold of its type, with the record's frame, so that error CLASSES can be counted
(by frame, by predicted type). Predictions as ner/tools/dev_eval.py makes them (its model cache).

  PYTHONPATH=<tree>/ner/src ner/.venv/bin/python ner/tools/ner16_errors.py FILE [FILE ...]
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dev_eval import CachedBackend, jsonl, predict, use_weights
from veil_ner.detector import Detector


def overlaps(a: dict, b: dict) -> float:
    inter = min(a["end"], b["end"]) - max(a["start"], b["start"])
    if inter <= 0:
        return 0.0
    return inter / (max(a["end"], b["end"]) - min(a["start"], b["start"]))


def main() -> int:
    backend = CachedBackend(use_weights(None, False))
    detector = Detector(backend, ["en"], "en")
    detector.load()
    for path in map(Path, sys.argv[1:]):
        records = jsonl(path)
        preds = predict(detector, records)
        missed: Counter[str] = Counter()
        false: Counter[str] = Counter()
        for record, pred in zip(records, preds, strict=True):
            text, gold = record["text"], record.get("entities", [])
            for g in gold:
                if not any(p["type"] == g["type"] and overlaps(p, g) >= 0.5 for p in pred):
                    got = [(text[p["start"] : p["end"]], p["type"]) for p in pred if overlaps(p, g) > 0]
                    missed[record.get("frame", "")] += 1
                    print(f"MISS {g['type']:12} {text[g['start'] : g['end']]!r} got={got} | {text!r}")
            for p in pred:
                if not any(p["type"] == g["type"] and overlaps(p, g) >= 0.5 for g in gold):
                    false[p["type"]] += 1
                    print(f"FALSE {p['type']:12} {text[p['start'] : p['end']]!r} | {text!r}")
        print(f"== {path}: missed by frame {missed.most_common(8)}; false by type {dict(false)}")
    backend.save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
