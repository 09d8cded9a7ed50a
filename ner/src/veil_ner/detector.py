"""The detection service above any backend: language choice and degraded fallback, the recognition
pipeline (pipeline.py: addresses, non-entity filter, gazetteer names and places), label mapping,
span hygiene, per-request label filtering, and the load state that probes report.

Degraded (interface.md 4.27): a request whose language has no loaded model is answered with the
fallback (default-language) model, `degraded: true` and a warning. The service as a whole is
degraded when a configured model failed to load; `/readyz` then answers 503.
"""

from __future__ import annotations

import enum
import logging
import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from . import gazetteer
from .backends import Backend, LoadReport
from .labels import veil_type
from .pipeline import ADDRESS_LABEL, TextParts, recognize, text_parts
from .postprocess import clean_span

log = logging.getLogger("veil_ner.detector")


# A short text that reaches every recognizer: names, an organization, a place, an address.
WARM_UP_TEXT = "Dear Ms. Jane Roe, Acme Corp. will visit 221B Baker Street, London NW1 6XE, on Monday.\n"


class State(enum.Enum):
    LOADING = "loading"
    READY = "ready"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class Item:
    text: str
    language: str | None  # normalised primary subtag, or None for the default
    labels: frozenset[str] | None  # Veil types to keep; None keeps all


@dataclass(slots=True)
class Result:
    entities: list[dict[str, object]]
    degraded: bool
    warnings: list[str]


class Detector:
    def __init__(
        self,
        backend: Backend,
        configured_languages: Sequence[str],
        default_language: str,
        overlap: bool = False,
    ) -> None:
        self.backend = backend
        # Session 16 (`VEIL_NER_OVERLAP`): the recognizers that read only the text
        # (`pipeline.text_parts`) run on this thread while the model computes; the model's products
        # release the GIL. The same values as inline (pure functions of the text); off, inline.
        # Off by default since session 17: the model releases and takes back the GIL about 680
        # times per 1 KB text (numpy's loops, spaCy's transition loop), nearly all for under 10 µs,
        # and after each it waits for this thread's switch interval, so the parts cost the model
        # their whole time and the hand-offs on top (BENCHMARKS.md, "Session 17 (wave16/fast)").
        self._text_worker = (
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="veil-ner-text") if overlap else None
        )
        self.configured_languages = tuple(configured_languages)
        self.default_language = default_language
        self._state = State.LOADING
        self._report = LoadReport(loaded={}, errors={})
        self._lock = threading.Lock()

    # --- load state -------------------------------------------------------------------------
    def load(self) -> State:
        """Load the backend's models (blocking). FAILED when the default language has no model."""
        try:
            gazetteer.load_all()
            report = self.backend.load()
        except Exception as error:
            log.error("backend failed to load", extra={"error": type(error).__name__})  # noqa: TRY400
            report = LoadReport(loaded={}, errors={"*": type(error).__name__})
        served = self.backend.languages()
        usable = self.default_language in served or "*" in served
        if usable:
            self._warm_up(served)
        with self._lock:
            self._report = report
            self._state = State.READY if usable else State.FAILED
        return self._state

    def _warm_up(self, served: frozenset[str]) -> None:
        """One detection per served language through the whole path (model and recognizers) before
        the service says ready: the first call builds lazy state (about 160 ms for the English
        recognizers), which would otherwise land on the first request."""
        for language in sorted(served):
            try:
                self._detect_with([Item(WARM_UP_TEXT, None if language == "*" else language, None)])
            except Exception as error:  # a warm-up failure is not a load failure; requests will tell
                log.warning("warm-up failed", extra={"language": language, "error": type(error).__name__})

    @property
    def state(self) -> State:
        return self._state

    @property
    def loaded(self) -> bool:
        return self._state is State.READY

    @property
    def degraded(self) -> bool:
        """A configured model is missing: some language silently falls back to the default one."""
        return self._state is State.READY and bool(self._report.errors)

    def loaded_models(self) -> list[str]:
        return [f"{language}:{model}" for language, model in sorted(self._report.loaded.items())]

    def load_errors(self) -> dict[str, str]:
        return dict(self._report.errors)

    # --- detection --------------------------------------------------------------------------
    def resolve_language(self, requested: str | None) -> tuple[str, str | None]:
        """(language to run, warning or None). A warning means the request is degraded."""
        served = self.backend.languages()
        if requested is None:
            return self.default_language, None
        if requested in served:
            return requested, None
        if "*" in served:
            return "*", None
        return (
            self.default_language,
            f"no NER model for language '{requested}'; used the '{self.default_language}' model",
        )

    def detect(self, items: Sequence[Item]) -> list[Result]:
        """Detect entities for every item; items sharing a language go through the model together."""
        return self._detect_with(items)

    def _detect_with(self, items: Sequence[Item]) -> list[Result]:
        results: list[Result | None] = [None] * len(items)
        groups: dict[str, list[int]] = {}
        warnings: dict[int, str] = {}
        for index, item in enumerate(items):
            language, warning = self.resolve_language(item.language)
            groups.setdefault(language, []).append(index)
            if warning is not None:
                warnings[index] = warning
        for language, indexes in groups.items():
            texts = [items[i].text for i in indexes]
            ahead: list[Future[TextParts]] = []
            if self._text_worker is not None:
                ahead = [self._text_worker.submit(text_parts, text) for text in texts]
            try:
                raw = self.backend.detect(texts, language)
            except BaseException:
                for future in ahead:
                    future.cancel()
                raise
            for position, (index, spans) in enumerate(zip(indexes, raw, strict=True)):
                item = items[index]
                entities: list[dict[str, object]] = []
                parts = ahead[position].result() if ahead else None
                for span in recognize(item.text, spans, parts):
                    kind = veil_type(span.label)
                    if kind is None or (item.labels is not None and kind not in item.labels):
                        continue
                    address = span.label == ADDRESS_LABEL
                    cleaned = clean_span(item.text, span.start, span.end, multiline=address, address=address)
                    if cleaned is None:
                        continue
                    entities.append(
                        {
                            "type": kind,
                            "start": cleaned[0],
                            "end": cleaned[1],
                            "confidence": round(span.confidence, 4),
                            "label": span.label,
                        }
                    )
                entities.sort(key=lambda entity: (entity["start"], entity["end"]))  # type: ignore[arg-type,return-value]
                warning = warnings.get(index)
                results[index] = Result(entities, warning is not None, [warning] if warning else [])
        return [result for result in results if result is not None]
