#!/usr/bin/env python3
"""A/B of two sidecars' `/v1/detect` latency on the same 1 KB texts, request by request (docs/ner.md,
"Throughput, latency and memory", session 13): one sidecar runs the base code and one this
checkout's (each through PYTHONPATH), both warmed on the texts, then each text goes to one and
then the other (the order flips every round), so the machine's drift and the neighbours' load hit
both alike, which two bench_ner.py runs minutes apart on a shared machine do not. Prints p50/p99
per round, each sidecar's process CPU time per request in the round (Session 19: user + system
from /proc, all its threads; on a crowded host the wall clock mostly measures the neighbours) and
the resident memory of each sidecar after the run.

Usage (ner/.venv, in a raised autogroup like bench_ner.py):
  ner/.venv/bin/python ner/tools/bench_sidecar_ab.py data/dev-corpus.jsonl --base /tmp/wt-base/ner/src
A switch of one code base against itself (session 16): `--base <this checkout's ner/src>
--base-env VEIL_NER_OVERLAP=0` (`--base-env`/`--new-env NAME=VALUE`, repeatable, go to that
sidecar's environment).
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

from bench_ner import API_KEY, one_kb_texts, percentile, resident_mib
from veil_ner.launch import start_sidecar

ROOT = Path(__file__).resolve().parents[2]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--base", required=True, help="the base code's ner/src")
    parser.add_argument(
        "--new", default=str(ROOT / "ner/src"), help="the new code's ner/src (default: this checkout)"
    )
    parser.add_argument("--texts", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--base-env", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--new-env", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args()
    extra = {
        name: dict(pair.split("=", 1) for pair in pairs)
        for name, pairs in (("base", args.base_env), ("new", args.new_env))
    }
    texts = one_kb_texts(args.corpus, args.texts)
    logs = Path(tempfile.mkdtemp())
    names = ("base", "new")
    sidecars = {}
    started = {}
    for name, path in zip(names, (args.base, args.new), strict=True):
        t0 = time.perf_counter()
        sidecars[name] = start_sidecar(
            {"VEIL_NER_API_KEY": API_KEY, "PYTHONPATH": path, **extra[name]}, log_path=logs / f"{name}.log"
        )
        started[name] = time.perf_counter() - t0
    headers = {"Content-Type": "application/json", "X-Detector-API-Key": API_KEY}
    connections = {
        name: http.client.HTTPConnection("127.0.0.1", s.port, timeout=60) for name, s in sidecars.items()
    }

    ticks = os.sysconf("SC_CLK_TCK")

    def cpu_seconds(name: str) -> float:
        fields = Path(f"/proc/{sidecars[name].process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / ticks

    def post(name: str, text: str) -> float:
        connection = connections[name]
        t0 = time.perf_counter()
        connection.request("POST", "/v1/detect", json.dumps({"text": text, "language": "en"}), headers)
        response = connection.getresponse()
        response.read()
        elapsed = time.perf_counter() - t0
        if response.status != 200:
            raise RuntimeError(f"status {response.status}")
        return elapsed

    try:
        print(f"startup to /readyz s: base {started['base']:.2f}, new {started['new']:.2f}; env {extra}")
        for text in texts:  # warm-up: both have seen every text once
            for name in names:
                post(name, text)
        for index in range(args.rounds):
            times: dict[str, list[float]] = {name: [] for name in names}
            order = names if index % 2 == 0 else names[::-1]
            cpu_before = {name: cpu_seconds(name) for name in names}
            for text in texts:
                for name in order:
                    times[name].append(post(name, text))
            print(
                f"round {index + 1}: "
                + ", ".join(
                    f"{name} p50 {1000 * statistics.median(v):.2f} ms p99 {1000 * percentile(v, 0.99):.2f} ms"
                    for name, v in times.items()
                )
                + "; CPU per request "
                + ", ".join(
                    f"{name} {1000 * (cpu_seconds(name) - cpu_before[name]) / len(texts):.2f} ms"
                    for name in names
                )
            )
        print(
            "resident memory after the run MiB: "
            + ", ".join(f"{name} {resident_mib(s.process.pid)}" for name, s in sidecars.items())
        )
    finally:
        for connection in connections.values():
            connection.close()
        for sidecar in sidecars.values():
            sidecar.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
