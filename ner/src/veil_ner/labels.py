"""Mapping of model labels to Veil entity types, and the confidence reported for each.

Only three Veil types come from NER: `person`, `organization`, `location` (server catalog,
`source: python_ner`). Everything else a model emits is dropped, on purpose (docs/ner.md has the
table and the reasons): dates, numbers and money are the regex detector's job, and NORP
(nationalities, religious and political groups), events, laws, products and works of art are not
identifiers of a person on their own and have no Veil type.

Confidence: spaCy's greedy NER has no per-entity probability. The sidecar reports, for each model
label, the precision the model's authors published for that label on their own held-out set
(`meta.json` `performance.ents_per_type[LABEL].p`), falling back to the overall `ents_p` when the
per-label figure is missing or zero, and to 0.75 when the model publishes nothing. It is a
calibrated prior per label, not a per-mention score; docs/ner.md says so.
"""

from __future__ import annotations

from collections.abc import Mapping

VEIL_TYPES = ("person", "organization", "location")

# OntoNotes 5 (English spaCy pipelines), WikiNER (most other spaCy pipelines: PER/ORG/LOC/MISC),
# CoNLL-style transformer heads (B-/I- stripped before lookup) and GLiNER prompts (lower case).
LABEL_TO_TYPE: Mapping[str, str] = {
    "PERSON": "person",
    "PER": "person",
    "ORG": "organization",
    "GPE": "location",
    "LOC": "location",
    "FAC": "location",
    "person": "person",
    "organization": "organization",
    "location": "location",
    # The sidecar's own recognizers (pipeline.py): street addresses, gazetteer names and places.
    "ADDRESS": "location",
    "ORG_FORM": "organization",
    "PERSON_GAZ": "person",
    "GPE_GAZ": "location",
}

DROPPED_LABELS = (
    "NORP",
    "DATE",
    "TIME",
    "MONEY",
    "PERCENT",
    "QUANTITY",
    "ORDINAL",
    "CARDINAL",
    "EVENT",
    "WORK_OF_ART",
    "LAW",
    "LANGUAGE",
    "PRODUCT",
    "MISC",
)

FALLBACK_CONFIDENCE = 0.75
_MIN_CONFIDENCE = 0.05
_MAX_CONFIDENCE = 0.99


def veil_type(label: str) -> str | None:
    """The Veil type for a model label, or None when the label is dropped."""
    return LABEL_TO_TYPE.get(label)


def _clamp(value: float) -> float:
    return round(min(_MAX_CONFIDENCE, max(_MIN_CONFIDENCE, value)), 4)


def confidence_table(meta: Mapping[str, object]) -> dict[str, float]:
    """Per-label confidence from a spaCy package's meta.json (see module docstring)."""
    performance = meta.get("performance")
    if not isinstance(performance, Mapping):
        return {}
    overall = performance.get("ents_p")
    overall_p = float(overall) if isinstance(overall, int | float) and overall > 0 else FALLBACK_CONFIDENCE
    table: dict[str, float] = {}
    per_type = performance.get("ents_per_type")
    if isinstance(per_type, Mapping):
        for label, scores in per_type.items():
            precision = scores.get("p") if isinstance(scores, Mapping) else None
            usable = isinstance(precision, int | float) and precision > 0
            table[str(label)] = _clamp(float(precision) if usable else overall_p)  # type: ignore[arg-type]
    table["*"] = _clamp(overall_p)
    return table


def confidence_for(table: Mapping[str, float], label: str) -> float:
    return table.get(label, table.get("*", FALLBACK_CONFIDENCE))
