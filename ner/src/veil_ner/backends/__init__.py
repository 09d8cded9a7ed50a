"""Backend selection: VEIL_NER_BACKEND picks one implementation of the Backend interface."""

from __future__ import annotations

from ..config import Settings
from .base import Backend, BackendError, LoadReport, RawEntity

__all__ = ["Backend", "BackendError", "LoadReport", "RawEntity", "create_backend"]


def create_backend(settings: Settings) -> Backend:
    if settings.backend == "spacy":
        from .spacy_backend import SpacyBackend  # noqa: PLC0415

        return SpacyBackend(settings.models, settings.max_text_chars)
    if settings.model_dir is None:  # config validation already requires it
        raise BackendError(f"VEIL_NER_MODEL_DIR is required by the {settings.backend} backend")
    if settings.backend == "transformers":
        from .transformers_backend import TransformersBackend  # noqa: PLC0415

        return TransformersBackend(settings.model_dir, settings.model_languages)
    if settings.backend == "gliner":
        from .gliner_backend import GlinerBackend  # noqa: PLC0415

        return GlinerBackend(settings.model_dir, settings.model_languages)
    raise BackendError(f"unknown backend {settings.backend!r}")
