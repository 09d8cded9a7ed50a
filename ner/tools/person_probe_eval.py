#!/usr/bin/env python3
"""Person P/R on a person_probe.py file, per frame and per name origin (session 13), in process
like dev_eval.py (same cached model spans, threshold 0.5, same scorer).

  PYTHONPATH=<worktree>/ner/src VEIL_DEV_EVAL_CACHE=/tmp/cache.pkl ner/.venv/bin/python \\
      ner/tools/person_probe_eval.py /tmp/probe13.jsonl [--show FRAME|all] [--worst 15]
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools/compare-presidio"))
from scoring import prf, score

from dev_eval import CachedBackend, jsonl, predict, use_weights
from veil_ner.detector import Detector


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("probe", type=Path)
    parser.add_argument("--show", help="print the errors of one frame index, or 'all'")
    parser.add_argument("--worst", type=int, default=15)
    args = parser.parse_args()
    backend = CachedBackend(use_weights(None, False))
    detector = Detector(backend, ["en"], "en")
    detector.load()
    records = jsonl(args.probe)
    preds = predict(detector, records)
    total = [0, 0, 0]
    by_frame: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0])
    by_form: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for record, pred in zip(records, preds, strict=True):
        gold = [e for e in record["entities"] if e["type"] == "person"]
        kept = [p for p in pred if p["type"] == "person"]
        local: dict[str, list[int]] = {}
        score(gold, kept, local)
        counts = local.get("person", [0, 0, 0])
        for k in range(3):
            total[k] += counts[k]
            by_frame[record["frame"]][k] += counts[k]
            for form in record["form"].split(","):
                by_form[form][k] += counts[k]
        show = args.show == "all" or (args.show is not None and args.show == str(record["frame"]))
        if show and (counts[1] or counts[2]):
            text = record["text"]
            g = [text[e["start"] : e["end"]] for e in gold]
            p = [text[e["start"] : e["end"]] for e in pred]
            print(f"[{record['frame']}] gold={g} pred={p} {text[:160]!r}")
    p, r, f = prf(total)
    print(f"person P {p:.3f} R {r:.3f} F1 {f:.3f} (tp {total[0]} fp {total[1]} fn {total[2]})")
    print("worst frames (fn+fp):")
    for frame, c in sorted(by_frame.items(), key=lambda kv: -(kv[1][1] + kv[1][2]))[: args.worst]:
        print(f"  frame {frame:3d}: tp {c[0]} fp {c[1]} fn {c[2]}")
    print("by name origin:")
    for form, c in sorted(by_form.items(), key=lambda kv: -(kv[1][1] + kv[1][2])):
        fp, fr, _ = prf(c)
        print(f"  {form:12s} P {fp:.3f} R {fr:.3f} (tp {c[0]} fp {c[1]} fn {c[2]})")
    backend.save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
