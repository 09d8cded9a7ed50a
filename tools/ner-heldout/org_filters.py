#!/usr/bin/env python3
"""Which filter drops the model's organizations and places, on true and on false ones (session 18).

For every model ORG (and GPE/LOC) span of every set, the first rule of the sidecar's pipeline that
drops it (`nonentity.refine`'s steps for one span, then `pipeline._filtered`'s own), or "kept"
(a final name span of any type covers it, IoU >= 0.5) or "later" (refined, then lost to another
span). A model span is TRUE when a gold span of its type matches it (IoU >= 0.5), FALSE otherwise;
in sets with no name gold (ordinary prompts and answers, hard negatives) every span is false.
A filter that drops more true spans than false ones costs more recall than it buys precision.

  PYTHONPATH=<tree>/ner/src VEIL_DEV_EVAL_CACHE=<cache> ner/.venv/bin/python \
      tools/ner-heldout/org_filters.py [--kind organization|location] [--show RULE] FILE...

Never give it the test split of a held-out set: records with split == "test" are skipped.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "ner/tools"))
from dev_eval import CachedBackend, jsonl, predict, use_weights  # noqa: E402
from veil_ner import gazetteer as g  # noqa: E402
from veil_ner import nonentity as ne  # noqa: E402
from veil_ner import pipeline as pl  # noqa: E402
from veil_ner.detector import Detector  # noqa: E402
from veil_ner.labels import veil_type  # noqa: E402
from veil_ner.postprocess import clean_span  # noqa: E402

NAME_TYPES = ("person", "organization", "location")


def _iou(a: tuple[int, int], b: tuple[int, int]) -> float:
    inter = max(0, min(a[1], b[1]) - max(a[0], b[0]))
    union = max(a[1], b[1]) - min(a[0], b[0])
    return inter / union if union else 0.0


def refine_reason(text: str, start: int, end: int, kind: str) -> str | None:
    """`nonentity.refine`'s first failing step for this span, in its order (None: it passes)."""
    tokens = ne._tokens(text[start:end])
    while tokens and (
        ne._edge_word(tokens[0][2]) or (tokens[0][2][:1].islower() and (len(tokens) == 1 or tokens[1][2][:1].islower()))
    ):
        tokens.pop(0)
    while tokens and (ne._edge_word(tokens[-1][2]) or tokens[-1][2][:1].islower()):
        tokens.pop()
    if not tokens:
        return "edges"
    s, e = start + tokens[0][0], start + tokens[-1][1]
    before = text[s - 1] if s > 0 else " "
    after = text[e] if e < len(text) else " "
    if before in ne._CODE_BEFORE or (after in ne._CODE_AFTER and not (after == "." and ne._sentence_end(text, e))):
        return "code-glued"
    if ne._field_label(text, e):
        return "field-label"
    words = [t for _, _, t in tokens]
    if any(ne._code_shaped(w, kind) for w in words) or ne._CODE_INSIDE.search(text, s, e):
        return "code-shaped"
    if all(ne._is_term(w) for w in words):
        return "all-terms"
    if kind == "organization" and not ne._organization_evidence(text, s, e, words):
        if all(w.isupper() for w in words):
            return "org:capitals"
        if any(ne._is_term(w) for w in words):
            return "org:term"
        return "org:one-word" if len(words) == 1 else "org:no-evidence"
    known = (g.places(), g.towns(), g.regions())
    if kind == "location" and len(words) == 1 and not any(g.fold(words[0]) in k for k in known):
        return "loc:unknown-word"
    if ne.refine(text, start, end, kind) is None:
        return "refine:other"
    return None


def reason(text: str, span) -> str:
    kind = veil_type(span.label)
    line = clean_span(text, span.start, span.end)
    if line is None:
        return "line"
    if span.label in ("GPE", "LOC") and pl._demonym(text[line[0] : line[1]]):
        return "loc:demonym"
    if pl._filtered(text, span) is not None:
        return "later"
    if span.label == "ORG" and (why := refine_reason(text, line[0], line[1], kind)):
        return why
    if span.label in ("GPE", "LOC") and (why := refine_reason(text, line[0], line[1], kind)):
        return why
    return "filtered:other"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--kind", default="organization", choices=("organization", "location"))
    parser.add_argument("--show", action="append", default=[], help="print the spans of this rule")
    args = parser.parse_args()
    labels = {"organization": ("ORG",), "location": ("GPE", "LOC")}[args.kind]
    backend = CachedBackend(use_weights(None, False))
    detector = Detector(backend, ["en"], "en")
    detector.load()
    grand: Counter = Counter()
    rows = []
    for path in args.files:
        records = [r for r in jsonl(path) if "text" in r and r.get("split") != "test"]
        preds = predict(detector, records)
        counts: Counter = Counter()
        for record, pred in zip(records, preds, strict=True):
            text = record["text"]
            gold = [(e["start"], e["end"]) for e in record.get("entities", []) if e["type"] == args.kind]
            final = [(p["start"], p["end"]) for p in pred if p["type"] in NAME_TYPES]
            for raw in backend.cache.get(backend._key(text), []):
                span = pl.RawEntity(*raw)
                if span.label not in labels:
                    continue
                truth = "true" if any(_iou((span.start, span.end), gs) >= 0.5 for gs in gold) else "false"
                kept = any(_iou((span.start, span.end), f) >= 0.5 for f in final)
                why = "kept" if kept else reason(text, span)
                counts[(why, truth)] += 1
                if why in args.show:
                    print(f"  {path.name} [{why}/{truth}] {text[span.start : span.end]!r} :: {text[:120]!r}")
        rows.append((path.name, counts))
        grand.update(counts)
    rules = sorted({why for _, c in rows for why, _ in c})
    print(f"{'set':34} " + " ".join(f"{r:>16}" for r in rules))
    for name, counts in [*rows, ("ALL", grand)]:
        cells = [f"{counts[(r, 'true')]:>7}t/{counts[(r, 'false')]:<7}f" for r in rules]
        print(f"{name[:34]:34} " + " ".join(f"{c:>16}" for c in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
