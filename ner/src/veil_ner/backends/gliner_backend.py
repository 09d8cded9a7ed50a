"""GLiNER backend: a zero-shot span model from a LOCAL directory (VEIL_NER_MODEL_DIR).

GLiNER is asked for exactly the three Veil types (`person`, `organization`, `location`), so its
labels need no mapping. The `gliner` package is not in requirements.lock: install it into
ner/.venv yourself. Hub access is switched off and `local_files_only=True` is passed, so a missing
file is an error, never a download. Scores are the model's per-span probabilities.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..labels import VEIL_TYPES
from .base import BackendError, LoadReport, RawEntity, merge_windowed, windows
from .transformers_backend import forbid_hub_downloads

_WINDOW_CHARS = 1200
_WINDOW_OVERLAP = 100
_THRESHOLD = 0.3


class GlinerBackend:
    name = "gliner"

    def __init__(self, model_dir: Path, languages: Sequence[str]) -> None:
        self._dir = model_dir
        self._languages = tuple(languages)
        self._model: Any = None
        self._version = "unknown"

    def preflight(self) -> None:
        if importlib.util.find_spec("gliner") is None:
            raise BackendError(
                "the gliner backend needs the 'gliner' package, which is not in requirements.lock; "
                "install it into ner/.venv (pip install gliner) or use VEIL_NER_BACKEND=spacy"
            )
        if not self._dir.is_dir():
            raise BackendError(f"VEIL_NER_MODEL_DIR {str(self._dir)!r} is not a directory")
        if not (self._dir / "gliner_config.json").is_file():
            raise BackendError(
                f"VEIL_NER_MODEL_DIR {str(self._dir)!r} has no gliner_config.json (expected a directory "
                "written by GLiNER.save_pretrained)"
            )

    def load(self) -> LoadReport:
        forbid_hub_downloads()
        import gliner  # noqa: PLC0415 - optional dependency

        self._version = str(getattr(gliner, "__version__", "unknown"))
        self._model = gliner.GLiNER.from_pretrained(str(self._dir), local_files_only=True)
        model_id = f"{self._dir.name} (local)"
        return LoadReport(loaded=dict.fromkeys(self._languages, model_id), errors={})

    def engine(self) -> str:
        return f"gliner {self._version}"

    def languages(self) -> frozenset[str]:
        return frozenset(self._languages) if self._model is not None else frozenset()

    def detect(self, texts: Sequence[str], language: str) -> list[list[RawEntity]]:
        del language
        results: list[list[RawEntity]] = []
        for text in texts:
            spans: list[RawEntity] = []
            for offset, window in windows(text, _WINDOW_CHARS, _WINDOW_OVERLAP):
                for item in self._model.predict_entities(window, list(VEIL_TYPES), threshold=_THRESHOLD):
                    start, end = item.get("start"), item.get("end")
                    if not isinstance(start, int) or not isinstance(end, int):
                        continue
                    label = str(item.get("label", ""))
                    spans.append(
                        RawEntity(offset + start, offset + end, label, float(item.get("score", 0.0)))
                    )
            results.append(merge_windowed(spans))
        return results
