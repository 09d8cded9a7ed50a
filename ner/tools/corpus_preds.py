#!/usr/bin/env python3
"""Names predictions over every corpus in data/ (session 13), for a per-record diff between two
builds: run once per build (PYTHONPATH selects the veil_ner source), then `--diff A B`.
The test split of heldout-presidio-synth.jsonl is skipped; heldout-ordinary-prompts.jsonl is
predicted but a diff only counts its changed records, never prints them.

  PYTHONPATH=<base>/ner/src ner/.venv/bin/python ner/tools/corpus_preds.py --out /tmp/base.json
  PYTHONPATH=<branch>/ner/src ner/.venv/bin/python ner/tools/corpus_preds.py --out /tmp/new.json
  ner/.venv/bin/python ner/tools/corpus_preds.py --diff /tmp/base.json /tmp/new.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dev_eval import CachedBackend, jsonl, predict, use_weights
from veil_ner.detector import Detector

ROOT = Path(__file__).resolve().parents[2]
QUIET = {"heldout-ordinary-prompts.jsonl"}


def predict_all(out: Path) -> None:
    backend = CachedBackend(use_weights(None, False))
    detector = Detector(backend, ["en"], "en")
    detector.load()
    result: dict[str, list] = {}
    for path in sorted((ROOT / "data").glob("*.jsonl")):
        records = jsonl(path)
        if path.name == "heldout-presidio-synth.jsonl":
            records = [r for r in records if r.get("split") == "dev"]
        records = [r for r in records if "text" in r]
        preds = predict(detector, records)
        result[path.name] = [
            {"text": r["text"], "pred": sorted((p["start"], p["end"], p["type"]) for p in pred)}
            for r, pred in zip(records, preds, strict=True)
        ]
    backend.save()
    out.write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")


def diff(a: Path, b: Path) -> None:
    left = json.loads(a.read_text(encoding="utf-8"))
    right = json.loads(b.read_text(encoding="utf-8"))
    total = 0
    for name in sorted(left):
        changed = [(x, y) for x, y in zip(left[name], right[name], strict=True) if x["pred"] != y["pred"]]
        total += len(changed)
        print(f"{name}: {len(changed)} of {len(left[name])} records change")
        if name in QUIET:
            continue
        for x, y in changed:
            text = x["text"]
            gone = [(text[s:e], t) for s, e, t in map(tuple, x["pred"]) if [s, e, t] not in y["pred"]]
            new = [(text[s:e], t) for s, e, t in map(tuple, y["pred"]) if [s, e, t] not in x["pred"]]
            print(f"   - {gone} + {new} {text[:140]!r}")
    print(f"total: {total} records change")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path)
    parser.add_argument("--diff", type=Path, nargs=2)
    args = parser.parse_args()
    if args.diff:
        diff(*args.diff)
    else:
        predict_all(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
