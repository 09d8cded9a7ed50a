"""Session 17 (wave16/fast): the text's recognizers run inline after the model by default.

`VEIL_NER_OVERLAP` (session 16) put `pipeline.text_parts` on a second thread beside the model. With
a free core it lost 0.5-1 ms p50 in every alternated round: the model releases and takes back the
GIL about 680 times per 1 KB text, nearly all for under 10 µs, and after each release it waits for
the other thread's switch interval (`ner/tools/profile_gil.py`, BENCHMARKS.md "Session 17
(wave16/fast)"). So it is off unless `VEIL_NER_OVERLAP=1`. Checked here: the default settings,
a detector built from them runs no second thread and keeps Python's switch interval, and its
answers are the answers with the overlap on (fast == slow, both ways). The sidecar-level check is
`ner/tools/sidecar_equivalence.py`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from veil_ner import gazetteer as g

_DEV_CORPUS = Path(__file__).resolve().parents[2] / "data" / "dev-corpus.jsonl"


@pytest.fixture(scope="module")
def texts() -> list[str]:
    lines = _DEV_CORPUS.read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["text"] for line in lines if line.strip()]


def test_overlap_is_off_by_default() -> None:
    from veil_ner.config import load_settings  # noqa: PLC0415

    assert load_settings({}).overlap is False
    assert load_settings({"VEIL_NER_OVERLAP": ""}).overlap is False  # empty counts as unset
    assert load_settings({"VEIL_NER_OVERLAP": "1"}).overlap is True
    assert load_settings({"VEIL_NER_OVERLAP": "0"}).overlap is False


def test_switch_interval_moves_only_with_the_overlap() -> None:
    from veil_ner.__main__ import OVERLAP_SWITCH_INTERVAL, apply_switch_interval  # noqa: PLC0415
    from veil_ner.config import load_settings  # noqa: PLC0415

    before = sys.getswitchinterval()
    try:
        apply_switch_interval(load_settings({}))
        assert sys.getswitchinterval() == before
        apply_switch_interval(load_settings({"VEIL_NER_OVERLAP": "1"}))
        assert sys.getswitchinterval() == pytest.approx(OVERLAP_SWITCH_INTERVAL)
    finally:
        sys.setswitchinterval(before)


def test_default_detector_answers_as_the_overlap(texts: list[str]) -> None:
    from conftest import FakeBackend  # noqa: PLC0415
    from veil_ner.config import load_settings  # noqa: PLC0415
    from veil_ner.detector import Detector, Item  # noqa: PLC0415

    g.load_all()
    items = [Item(text, None, None) for text in texts[::5]]
    answers = []
    for overlap in (load_settings({}).overlap, True):
        detector = Detector(FakeBackend(), ["en"], "en", overlap=overlap)
        assert (detector._text_worker is None) is (not overlap)
        detector.load()
        answers.append(
            [(r.entities, r.degraded, r.warnings) for r in detector.detect(items)]
            + [(r.entities, r.degraded, r.warnings) for item in items[:100] for r in detector.detect([item])]
        )
    assert answers[0] == answers[1]
    assert sum(len(entities) for entities, _, _ in answers[0]) > 500
