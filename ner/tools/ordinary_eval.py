#!/usr/bin/env python3
"""Count the ordinary texts (no personal data) that a name detection would alter, per set and per
`domain`, and print each detection with its type: the false positives of the name pipeline by
class (product and project names, capitalized terms, titles of works, imperatives, identifiers,
headings). In process, with ner/tools/dev_eval.py's cached model spans and threshold 0.5.

Sets: data/dev-ordinary-prompts.jsonl, data/guard-ordinary.jsonl, data/own-ordinary-prompts.jsonl
(written by ner/tools/own_ordinary.py) and any `--extra` JSONL; records without `text` (a header)
are skipped. Never the held-out prompts.

Usage:
  ner/.venv/bin/python ner/tools/ordinary_eval.py [--quiet] [--extra FILE ...]
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from dev_eval import CACHE, ROOT, CachedBackend, jsonl, predict
from veil_ner.detector import Detector

SETS = ("dev-ordinary-prompts", "guard-ordinary", "own-ordinary-prompts")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--extra", type=Path, action="append", default=[])
    parser.add_argument("--quiet", action="store_true", help="totals only")
    args = parser.parse_args()
    backend = CachedBackend(CACHE)
    detector = Detector(backend, ["en"], "en")
    detector.load()
    paths = [ROOT / f"data/{name}.jsonl" for name in SETS] + args.extra
    for path in paths:
        records = [r for r in jsonl(path) if "text" in r]
        preds = predict(detector, records)
        altered = collections.Counter()
        totals = collections.Counter(r.get("domain", "-") for r in records)
        by_type = collections.Counter()
        lines = []
        for record, pred in zip(records, preds, strict=True):
            if not pred:
                continue
            altered[record.get("domain", "-")] += 1
            text = record["text"]
            by_type.update(p["type"] for p in pred)
            found = [(text[p["start"] : p["end"]], p["type"]) for p in pred]
            lines.append(f"  [{record.get('domain', '-')}] {found}")
        count = sum(altered.values())
        domains = ", ".join(f"{d} {altered[d]}/{totals[d]}" for d in sorted(totals))
        print(f"{path.name}: {count} of {len(records)} altered ({domains}); detections {dict(by_type)}")
        if not args.quiet:
            print("\n".join(lines))
    backend.save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
