"""thinc's current ops, made once at load and set in each call's context (Session 19, wave18/fast).

Every call of the `ner` model builds a per-call step model (spaCy's `ParserStepModel`, a thinc
`Model`), and a thinc `Model` takes `get_current_ops()` when none is given. thinc keeps the
current ops in a context variable (`thinc.backends.context_ops`); where it is unset,
`get_current_ops` calls `require_cpu`, which builds them anew through `get_ops("cpu")`: a walk
over every installed package's entry points (`catalogue`'s `registry.ops.get_all()`, through
`importlib.metadata`) and two failing imports (`thinc_apple_ops`, `thinc_bigendian_ops`) that
search the whole import path. It then sets them only in that context.

In a script the main thread's context keeps them after the first call. In the sidecar it never
does: the model loads on its own thread, each request runs in an asyncio task whose context is a
copy of the event loop's (where they were never set), and the value set there goes with the task.
So every `/v1/detect` paid the whole lookup (measured in BENCHMARKS.md, "Session 19
(wave18/fast)": the gap between the sidecar's CPU per request and the same calls in a script).

`CurrentOps.ensure()` sets, when the caller's context has none, the ops `get_ops("cpu")` made once
at load: the same class with the same arguments `require_cpu` would build (thinc's `NumpyOps`
here, no Apple or big-endian package installed). The step model does not compute with them in
inference (spaCy's greedy loop reads the `ner` model's own ops and `precompute_hiddens` the layer's
ops; the step model's ops serve only its backward pass), so the answers are the same by
construction, and checked (ner/tests/test_session19_speed.py, ner/tools/sidecar_equivalence.py).
Nothing of a request is kept: the value is fixed at load.
"""

from __future__ import annotations

from typing import Any


class CurrentOps:
    def __init__(self) -> None:
        from thinc.api import get_ops, set_current_ops  # noqa: PLC0415 - heavy import, at load only
        from thinc.backends import context_ops  # noqa: PLC0415

        self.ops: Any = get_ops("cpu")  # what `require_cpu` builds in a context without ops
        self._context_ops = context_ops
        self._set_current_ops = set_current_ops

    def ensure(self) -> None:
        """Set the ops made at load in the caller's context, unless it holds ops already (a caller's
        own choice, e.g. thinc's `use_ops`, is kept)."""
        if self._context_ops.get() is None:
            self._set_current_ops(self.ops)
