"""Shared pytest fixtures: a fake backend for fast unit/HTTP tests, and real sidecar processes.

Real processes are started on free loopback ports through veil_ner.launch and stopped through
their own handles. The session-wide `contract_sidecar` uses ner/contract/env.json.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from veil_ner.backends import LoadReport, RawEntity
from veil_ner.launch import Sidecar, start_sidecar

CONTRACT_DIR = Path(__file__).resolve().parent.parent / "contract"
API_KEY = "test-key-0123456789abcdef"


class FakeBackend:
    """Finds every capitalised word pair as PERSON and the word `Paris` as GPE; no model needed."""

    name = "fake"

    def __init__(
        self, languages: Sequence[str] = ("en",), fail: Sequence[str] = (), raise_on_load: bool = False
    ):
        self._configured = tuple(languages)
        self._fail = set(fail)
        self._loaded: set[str] = set()
        self.raise_on_load = raise_on_load
        self.calls: list[tuple[int, str]] = []

    def preflight(self) -> None:
        return None

    def load(self) -> LoadReport:
        if self.raise_on_load:
            raise RuntimeError("boom")
        errors = {
            language: "RuntimeError: cannot load" for language in self._configured if language in self._fail
        }
        self._loaded = {language for language in self._configured if language not in self._fail}
        return LoadReport(
            loaded={language: f"fake-{language}" for language in sorted(self._loaded)}, errors=errors
        )

    def engine(self) -> str:
        return "fake 1.0"

    def languages(self) -> frozenset[str]:
        return frozenset(self._loaded)

    def detect(self, texts: Sequence[str], language: str) -> list[list[RawEntity]]:
        import re  # noqa: PLC0415

        self.calls.append((len(texts), language))
        out = []
        for text in texts:
            spans = [
                RawEntity(match.start(), match.end(), "PERSON", 0.9)
                for match in re.finditer(r"\b[A-Z][a-z]+ [A-Z][a-z]+\b", text)
            ]
            spans += [
                RawEntity(match.start(), match.end(), "GPE", 0.8) for match in re.finditer(r"\bParis\b", text)
            ]
            spans += [
                RawEntity(match.start(), match.end(), "DATE", 0.8)
                for match in re.finditer(r"\b20\d\d\b", text)
            ]
            out.append(sorted(spans, key=lambda span: span.start))
        return out


@pytest.fixture
def fake_backend() -> FakeBackend:
    return FakeBackend()


@pytest.fixture(scope="session")
def contract_env() -> dict[str, str]:
    return json.loads((CONTRACT_DIR / "env.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def contract_sidecar(
    contract_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Sidecar]:
    sidecar = start_sidecar(contract_env, log_path=tmp_path_factory.mktemp("contract") / "sidecar.log")
    yield sidecar
    sidecar.stop()


@pytest.fixture(scope="session")
def sidecar(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sidecar]:
    """The default configuration with a secret and small limits."""
    env = {"VEIL_NER_API_KEY": API_KEY, "VEIL_NER_MAX_TEXT_CHARS": "5000", "VEIL_NER_MAX_BODY_BYTES": "65536"}
    sidecar = start_sidecar(env, log_path=tmp_path_factory.mktemp("sidecar") / "sidecar.log")
    yield sidecar
    sidecar.stop()
