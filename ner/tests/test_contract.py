"""Contract fixtures (ner/contract/cases) against a real sidecar process; the server's TypeScript
client tests replay the same files from a stub server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import CONTRACT_DIR
from veil_ner.launch import Sidecar, send_case, subset_matches

CASES = sorted((CONTRACT_DIR / "cases").glob("*.json"))


def test_there_are_cases() -> None:
    assert len(CASES) >= 15


@pytest.mark.parametrize("path", CASES, ids=[path.stem for path in CASES])
def test_case(path: Path, contract_sidecar: Sidecar, contract_env: dict[str, str]) -> None:
    case = json.loads(path.read_text(encoding="utf-8"))
    status, body = send_case(contract_sidecar.url, case, contract_env["VEIL_NER_API_KEY"])
    expected = case["response"]
    assert status == expected["status"]
    if expected.get("match") == "subset":
        assert subset_matches(expected["body"], body), body
    else:
        assert body == expected["body"]
