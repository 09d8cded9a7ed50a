#!/usr/bin/env python3
"""Score a running Veil server's detection against a labeled JSONL corpus.

Usage: eval_detect.py CORPUS.jsonl [--url http://127.0.0.1:3000] [--detectors builtin_regex,python_ner]
                      [--types email,phone,...] [--api-key KEY] [--json]

Corpus lines: {"id", "lang", "text", "negative", "entities": [{"type", "start", "end"}]}, spans in
Unicode code points, end exclusive. A prediction matches a gold entity of the same type when their
overlap is at least half of their union. Prints precision, recall, F1 and F2 per type, and the
number of entities flagged in negative (look-alike) records. Standard library only.

Origin: a copy of the team's shared scorer (shared/tools/eval_detect.py, outside this
repository), brought in so `make eval` runs from a checkout; only reformatted for ruff. Its
corpus is data/dev-corpus.jsonl (see data/README.md). BENCHMARKS.md's detection figures are
scored by exactly these rules.
"""

import argparse
import json
import sys
import time
import urllib.request


def post(url, body, api_key=None):
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), method="POST", headers={"Content-Type": "application/json"}
    )
    if api_key:
        req.add_header("X-API-Key", api_key)
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())


def iou(a, b):
    inter = max(0, min(a[1], b[1]) - max(a[0], b[0]))
    union = max(a[1], b[1]) - min(a[0], b[0])
    return inter / union if union else 0.0


def score(gold, pred):
    """Greedy one-to-one matching by type and IoU >= 0.5; returns (tp, fp, fn) per type."""
    out = {}
    used = set()
    for g in gold:
        t = g["type"]
        out.setdefault(t, [0, 0, 0])
        best, best_i = 0.0, None
        for i, p in enumerate(pred):
            if i in used or p["type"] != t:
                continue
            v = iou((g["start"], g["end"]), (p["start"], p["end"]))
            if v > best:
                best, best_i = v, i
        if best >= 0.5:
            used.add(best_i)
            out[t][0] += 1
        else:
            out[t][2] += 1
    for i, p in enumerate(pred):
        if i not in used:
            out.setdefault(p["type"], [0, 0, 0])[1] += 1
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("--url", default="http://127.0.0.1:3000")
    ap.add_argument("--detectors", default=None)
    ap.add_argument("--types", default=None, help="only score these types")
    ap.add_argument("--api-key", default=None)
    ap.add_argument("--threshold", type=float, default=None)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    only = set(args.types.split(",")) if args.types else None

    totals, neg_flags, n, elapsed = {}, 0, 0, 0.0
    for line in open(args.corpus, encoding="utf-8"):
        rec = json.loads(line)
        body = {"input": rec["text"], "include_values": False}
        if rec.get("lang"):
            body["language"] = rec["lang"]
        if args.detectors:
            body["detectors"] = args.detectors.split(",")
        if args.threshold is not None:
            body["threshold"] = args.threshold
        t0 = time.perf_counter()
        res = post(args.url.rstrip("/") + "/v1/detect", body, args.api_key)
        elapsed += time.perf_counter() - t0
        n += 1
        pred = [
            {"type": e["type"], "start": e["span"]["start"], "end": e["span"]["end"]} for e in res.get("entities", [])
        ]
        gold = rec["entities"]
        if only:
            pred = [p for p in pred if p["type"] in only]
            gold = [g for g in gold if g["type"] in only]
        if rec.get("negative"):
            neg_flags += len(pred)
        for t, (tp, fp, fn) in score(gold, pred).items():
            agg = totals.setdefault(t, [0, 0, 0])
            agg[0] += tp
            agg[1] += fp
            agg[2] += fn

    rows = {}
    for t, (tp, fp, fn) in sorted(totals.items()):
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        f2 = 5 * p * r / (4 * p + r) if p + r else 0.0
        rows[t] = {
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
    summary = {
        "records": n,
        "types": rows,
        "micro": {"precision": round(micro_p, 4), "recall": round(micro_r, 4), "f1": round(micro_f1, 4)},
        "negative_record_flags": neg_flags,
        "mean_request_ms": round(1000 * elapsed / max(n, 1), 3),
    }
    if args.json:
        print(json.dumps(summary, indent=2))
        return
    print(f"{'type':<16}{'tp':>6}{'fp':>6}{'fn':>6}{'P':>8}{'R':>8}{'F1':>8}{'F2':>8}")
    for t, v in rows.items():
        print(
            f"{t:<16}{v['tp']:>6}{v['fp']:>6}{v['fn']:>6}{v['precision']:>8.3f}{v['recall']:>8.3f}{v['f1']:>8.3f}{v['f2']:>8.3f}"
        )
    print(
        f"micro P={micro_p:.3f} R={micro_r:.3f} F1={micro_f1:.3f}; flags on negative records: {neg_flags}; "
        f"records: {n}; mean request {summary['mean_request_ms']} ms"
    )


if __name__ == "__main__":
    sys.exit(main())
