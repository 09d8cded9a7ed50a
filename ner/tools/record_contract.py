"""Fill in (or check) the contract fixtures in ner/contract/cases from a real sidecar.

Cases whose `response.body` is null are recorded; the others are only checked. Review the diff
by hand before committing: a fixture is a promise, not a snapshot.

Usage: ner/.venv/bin/python ner/tools/record_contract.py [--check]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from veil_ner.launch import send_case, start_sidecar, subset_matches

CONTRACT = Path(__file__).resolve().parent.parent / "contract"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true", help="only compare, write nothing")
    args = parser.parse_args()
    env = json.loads((CONTRACT / "env.json").read_text(encoding="utf-8"))
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        sidecar = start_sidecar(env, log_path=Path(tmp) / "sidecar.log")
        try:
            for path in sorted((CONTRACT / "cases").glob("*.json")):
                case = json.loads(path.read_text(encoding="utf-8"))
                status, body = send_case(sidecar.url, case, env["VEIL_NER_API_KEY"])
                expected = case["response"]
                if expected.get("body") is None and not args.check:
                    expected["status"], expected["body"] = status, body
                    path.write_text(json.dumps(case, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
                    print(f"recorded {path.name}: {status}")
                    continue
                same = status == expected["status"] and (
                    subset_matches(expected["body"], body)
                    if expected.get("match") == "subset"
                    else expected["body"] == body
                )
                print(f"{'ok' if same else 'MISMATCH'} {path.name}: {status}")
                failures += 0 if same else 1
        finally:
            sidecar.stop()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
