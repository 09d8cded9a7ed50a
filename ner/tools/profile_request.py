#!/usr/bin/env python3
"""Where one 1 KB `/v1/detect` request goes, stage by stage, in CPU time (Session 17, wave16/fast).

On a shared machine the wall clock mostly measures the neighbours; a thread's CPU time
(`time.thread_time`) much less. Two parts, on the texts of ner/tools/bench_ner.py:

1. in process, the detector's path as the sidecar runs it with `VEIL_NER_OVERLAP=0` (the
   default): the body's JSON decode and `parse_item`, the tokenizer (`nlp.make_doc`), the
   sentencizer, the `ner` component (and its tok2vec alone, run again on the same Doc), the
   recognizers (`text_parts`, then `recognize` with them), the span cleaning and the answer's JSON
   encode; per stage the mean and p50 over the texts, from the pass with the lowest mean;
2. a real sidecar (this checkout's code): its process CPU time (`/proc/<pid>/stat`, user +
   system) over `--requests` requests, per request. The difference from the sum of the in-process means is
   the HTTP server's share (uvicorn, h11, Starlette, the event loop), plus what part 1 does not
   see. Session 19: part 1 runs in the script's main context, where thinc keeps its current ops
   after the first call; a sidecar request runs in a fresh asyncio task context, where thinc
   rebuilt them on every call (about 2 ms, most of what session 18 read as HTTP) until
   `veil_ner/backends/current_ops.py`. HTTP alone was about 1.0-1.3 ms (BENCHMARKS.md, "Session 19
   (wave18/fast)").

Usage (ner/.venv; raise it as the other tools say):
  ner/.venv/bin/python ner/tools/profile_request.py data/dev-corpus.jsonl --texts 200
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_ner import API_KEY, PACKAGE, one_kb_texts
from veil_ner import gazetteer
from veil_ner.app import json_response, parse_item
from veil_ner.backends.spacy_backend import SpacyBackend
from veil_ner.detector import Detector
from veil_ner.labels import veil_type
from veil_ner.launch import start_sidecar
from veil_ner.pipeline import ADDRESS_LABEL, recognize, text_parts
from veil_ner.postprocess import clean_span

ROOT = Path(__file__).resolve().parents[2]


def in_process(texts: list[str], passes: int) -> dict[str, tuple[float, float]]:
    backend = SpacyBackend({"en": PACKAGE}, 100_000)
    backend.preflight()
    backend.load()
    gazetteer.load_all()
    nlp = backend._nlp["en"]
    ner = nlp.get_pipe("ner")
    tok2vec = ner.model.get_ref("tok2vec")
    clock = time.thread_time
    detector = Detector(backend, ["en"], "en")  # loaded above; the sidecar's default (no overlap)
    bodies = [json.dumps({"text": text, "language": "en"}).encode() for text in texts]
    best: dict[str, tuple[float, float]] = {}  # (mean, p50) of the pass with the lowest mean
    for _ in range(passes):
        stages: dict[str, list[float]] = {}

        def add(name: str, seconds: float, stages: dict[str, list[float]] = stages) -> None:
            stages.setdefault(name, []).append(seconds)

        for body in bodies:
            t0 = clock()
            item = parse_item(json.loads(body.decode("utf-8")), "", 100_000)
            t1 = clock()
            add("JSON decode + parse_item", t1 - t0)
            with nlp.memory_zone():
                t0 = clock()
                doc = nlp.make_doc(item.text)
                t1 = clock()
                add("tokenizer (make_doc)", t1 - t0)
                for name, component in nlp.pipeline:
                    t0 = clock()
                    doc = component(doc)
                    add(name, clock() - t0)
                spans = [(e.start_char, e.end_char, e.label_) for e in doc.ents]
                t0 = clock()
                tok2vec.predict([doc])
                add("  ner: its tok2vec alone (again)", clock() - t0)
            raw = backend.detect([item.text], "en")[0]
            assert [(r.start, r.end, r.label) for r in raw] == spans  # noqa: S101 - same path
            t0 = clock()
            parts = text_parts(item.text)
            t1 = clock()
            found = recognize(item.text, raw, parts)
            t2 = clock()
            add("recognizers: text_parts", t1 - t0)
            add("recognizers: recognize with the parts", t2 - t1)
            entities = []
            for span in found:
                kind = veil_type(span.label)
                if kind is None:
                    continue
                address = span.label == ADDRESS_LABEL
                cleaned = clean_span(item.text, span.start, span.end, multiline=address, address=address)
                if cleaned is not None:
                    entities.append({"type": kind, "start": cleaned[0], "end": cleaned[1]})
            t3 = clock()
            json_response({"entities": entities, "degraded": False})
            add("span cleaning + JSON encode", clock() - t3 + (t3 - t2))
            t0 = clock()
            [result] = detector.detect([item])
            json_response({"entities": result.entities, "degraded": result.degraded})
            add("  the same as one Detector.detect + encode", clock() - t0)
        for name, values in stages.items():
            value = (statistics.fmean(values), statistics.median(values))
            best[name] = min(best.get(name, value), value)
    return best


def sidecar_cpu(texts: list[str], requests: int) -> float:
    sidecar = start_sidecar(
        {"VEIL_NER_API_KEY": API_KEY, "PYTHONPATH": str(ROOT / "ner/src")},
        log_path=Path(tempfile.mkdtemp()) / "sidecar.log",
    )
    headers = {"Content-Type": "application/json", "X-Detector-API-Key": API_KEY}
    connection = http.client.HTTPConnection("127.0.0.1", sidecar.port, timeout=60)
    ticks = os.sysconf("SC_CLK_TCK")

    def cpu() -> float:
        fields = Path(f"/proc/{sidecar.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / ticks

    try:
        bodies = [json.dumps({"text": text, "language": "en"}) for text in texts]
        for body in bodies:
            connection.request("POST", "/v1/detect", body, headers)
            connection.getresponse().read()
        before = cpu()
        for index in range(requests):
            connection.request("POST", "/v1/detect", bodies[index % len(bodies)], headers)
            response = connection.getresponse()
            response.read()
            if response.status != 200:
                raise RuntimeError(f"status {response.status}")
        return (cpu() - before) / requests
    finally:
        connection.close()
        sidecar.stop()


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--texts", type=int, default=200)
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--requests", type=int, default=1000)
    args = parser.parse_args()
    texts = one_kb_texts(args.corpus, args.texts)
    stages = in_process(texts, args.passes)
    total = 0.0
    print(f"{'thread CPU per text, best pass':<40} {'mean':>8} {'p50':>8}")
    for name, (mean, median) in stages.items():
        print(f"{name:<40} {1e6 * mean:8.0f} {1e6 * median:8.0f} µs")
        if not name.startswith("  "):
            total += mean
    print(f"{'sum of the stages (means)':<40} {1e6 * total:8.0f} µs")
    per_request = sidecar_cpu(texts, args.requests)
    print(f"{'sidecar process CPU per request':<40} {1e6 * per_request:8.0f} µs")
    print(f"{'  of which outside the stages (HTTP ...)':<40} {1e6 * (per_request - total):8.0f} µs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
