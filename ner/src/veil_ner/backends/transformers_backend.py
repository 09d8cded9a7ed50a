"""transformers backend: a token-classification model from a LOCAL directory (VEIL_NER_MODEL_DIR).

For users who have weights (for example a CoNLL-style PER/ORG/LOC model saved with
`save_pretrained`). `transformers` and `torch` are not in requirements.lock: install them into
ner/.venv yourself. Hub access is switched off before the import and `local_files_only=True` is
passed, so a missing file is an error, never a download. Scores are the model's own per-entity
probabilities (aggregation `simple`). Long texts are cut into overlapping windows.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .base import BackendError, LoadReport, RawEntity, merge_windowed, windows

_WINDOW_CHARS = 1500
_WINDOW_OVERLAP = 100


def forbid_hub_downloads() -> None:
    """Make every Hugging Face library refuse network access in this process."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ["HF_DATASETS_OFFLINE"] = "1"


def strip_bio(label: str) -> str:
    return label[2:] if label[:2] in ("B-", "I-", "E-", "S-", "L-", "U-") else label


class TransformersBackend:
    name = "transformers"

    def __init__(self, model_dir: Path, languages: Sequence[str]) -> None:
        self._dir = model_dir
        self._languages = tuple(languages)
        self._pipeline: Any = None
        self._version = "unknown"

    def preflight(self) -> None:
        missing = [name for name in ("transformers", "torch") if importlib.util.find_spec(name) is None]
        if missing:
            raise BackendError(
                f"the transformers backend needs the package(s) {', '.join(missing)}, which are not in "
                "requirements.lock; install them into ner/.venv (pip install transformers torch) or use "
                "VEIL_NER_BACKEND=spacy"
            )
        if not self._dir.is_dir():
            raise BackendError(f"VEIL_NER_MODEL_DIR {str(self._dir)!r} is not a directory")
        if not (self._dir / "config.json").is_file():
            raise BackendError(
                f"VEIL_NER_MODEL_DIR {str(self._dir)!r} has no config.json (expected a directory written "
                "by save_pretrained with a token-classification model)"
            )

    def load(self) -> LoadReport:
        forbid_hub_downloads()
        import transformers  # noqa: PLC0415 - optional dependency

        self._version = str(getattr(transformers, "__version__", "unknown"))
        tokenizer = transformers.AutoTokenizer.from_pretrained(str(self._dir), local_files_only=True)
        model = transformers.AutoModelForTokenClassification.from_pretrained(
            str(self._dir), local_files_only=True
        )
        self._pipeline = transformers.pipeline(
            "token-classification", model=model, tokenizer=tokenizer, aggregation_strategy="simple", device=-1
        )
        model_id = f"{self._dir.name} (local)"
        return LoadReport(loaded=dict.fromkeys(self._languages, model_id), errors={})

    def engine(self) -> str:
        return f"transformers {self._version}"

    def languages(self) -> frozenset[str]:
        return frozenset(self._languages) if self._pipeline is not None else frozenset()

    def detect(self, texts: Sequence[str], language: str) -> list[list[RawEntity]]:
        del language  # one model serves every configured language
        results: list[list[RawEntity]] = []
        for text in texts:
            spans: list[RawEntity] = []
            for offset, window in windows(text, _WINDOW_CHARS, _WINDOW_OVERLAP):
                for item in self._pipeline(window):
                    label = strip_bio(str(item.get("entity_group") or item.get("entity") or ""))
                    start, end = item.get("start"), item.get("end")
                    if not isinstance(start, int) or not isinstance(end, int):
                        continue
                    spans.append(
                        RawEntity(offset + start, offset + end, label, float(item.get("score", 0.0)))
                    )
            results.append(merge_windowed(spans))
        return results
