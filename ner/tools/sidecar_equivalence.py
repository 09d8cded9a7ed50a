#!/usr/bin/env python3
"""Proof that a change to how the sidecar runs keeps its answers byte for byte (docs/ner.md,
"Throughput, latency and memory", session 13): two real sidecars, one running the base code and
one this checkout's (each through PYTHONPATH, which comes before the venv's editable install),
get every text of the development sets, one per `/v1/detect` request and in batches of 32 on
`/v1/detect/batch`, each record with its language; the response bodies must be the same bytes.
Only counts are printed (no text). The two sidecars run side by side, one client thread each.

Usage (ner/.venv; BASE is a `ner/src` of the code to compare with, e.g. a detached worktree of
the starting commit; SETS default to the three above, the held-out set's dev split only):
  ner/.venv/bin/python ner/tools/sidecar_equivalence.py --base /tmp/wt-base/ner/src [--limit N] [SETS]
Exit status 1 when any answer differs.
"""

from __future__ import annotations

import argparse
import http.client
import json
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from veil_ner.launch import start_sidecar

ROOT = Path(__file__).resolve().parents[2]
API_KEY = "equivalence-key-0123456789abcdef"
SETS = (
    "data/dev-corpus.jsonl",
    "data/heldout-presidio-synth.jsonl",  # its dev split only (below); never the test split
    "data/dev-ordinary-prompts.jsonl",
)
BATCH = 32


def items_of(path: Path) -> list[dict[str, str]]:
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if path.name == "heldout-presidio-synth.jsonl":
        records = [r for r in records if r.get("split") == "dev"]
    return [
        {"text": r["text"], **({"language": r["lang"]} if isinstance(r.get("lang"), str) else {})}
        for r in records
        if isinstance(r.get("text"), str)  # headers and other lines without a text are skipped
    ]


def answers(port: int, items: list[dict[str, str]], out: list[bytes]) -> None:
    """Every item on /v1/detect, then in batches on /v1/detect/batch; raw response bodies."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    headers = {"Content-Type": "application/json", "X-Detector-API-Key": API_KEY}

    def post(path: str, body: object) -> bytes:
        connection.request("POST", path, json.dumps(body), headers)
        response = connection.getresponse()
        payload = response.read()
        if response.status != 200:
            raise RuntimeError(f"status {response.status}")
        return payload

    try:
        out.extend(post("/v1/detect", item) for item in items)
        out.extend(
            post("/v1/detect/batch", {"items": items[i : i + BATCH]}) for i in range(0, len(items), BATCH)
        )
    finally:
        connection.close()


def origin(pythonpath: str) -> str:
    """Where `import veil_ner` resolves with this PYTHONPATH (printed, so a wrong path shows)."""
    probe = "import veil_ner, pathlib; print(pathlib.Path(veil_ner.__file__).parent)"
    return subprocess.run(  # noqa: S603 - this interpreter, a fixed probe
        [sys.executable, "-c", probe],
        env={"PYTHONPATH": pythonpath, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--base", required=True, help="the base code's ner/src")
    parser.add_argument(
        "--new", default=str(ROOT / "ner/src"), help="the new code's ner/src (default: this checkout)"
    )
    parser.add_argument("--limit", type=int, help="records per set (default: all)")
    parser.add_argument("sets", nargs="*", default=list(SETS), help="JSONL files from the repository root")
    args = parser.parse_args()
    paths = {"base": args.base, "new": args.new}
    for name, path in paths.items():
        print(f"{name}: veil_ner from {origin(path)}")
    logs = Path(tempfile.mkdtemp())
    sidecars = {
        name: start_sidecar({"VEIL_NER_API_KEY": API_KEY, "PYTHONPATH": path}, log_path=logs / f"{name}.log")
        for name, path in paths.items()
    }
    differing_total = 0
    try:
        for name in args.sets:
            items = items_of(ROOT / name)[: args.limit]
            got: dict[str, list[bytes]] = {key: [] for key in sidecars}
            threads = [
                threading.Thread(target=answers, args=(sidecar.port, items, got[key]))
                for key, sidecar in sidecars.items()
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            base, new = got["base"], got["new"]
            if len(base) != len(new) or not base:
                raise SystemExit(f"{name}: a sidecar did not answer every request")
            singles = len(items)
            differ_single = sum(a != b for a, b in zip(base[:singles], new[:singles], strict=True))
            differ_batch = sum(a != b for a, b in zip(base[singles:], new[singles:], strict=True))
            entities = sum(len(json.loads(body)["entities"]) for body in base[:singles])
            differing_total += differ_single + differ_batch
            print(
                f"{name}: {singles} records, {entities} entities; /v1/detect {differ_single} answers differ, "
                f"/v1/detect/batch {differ_batch} of {len(base) - singles} batches differ"
            )
    finally:
        for sidecar in sidecars.values():
            sidecar.stop()
    print(f"answers differing in all: {differing_total}")
    return 1 if differing_total else 0


if __name__ == "__main__":
    sys.exit(main())
