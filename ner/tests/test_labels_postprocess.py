"""Label mapping, the confidence table from model metadata, and span hygiene rules."""

from __future__ import annotations

import pytest

from veil_ner.labels import DROPPED_LABELS, FALLBACK_CONFIDENCE, confidence_for, confidence_table, veil_type
from veil_ner.postprocess import clean_span


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("PERSON", "person"),
        ("PER", "person"),
        ("ORG", "organization"),
        ("GPE", "location"),
        ("LOC", "location"),
        ("FAC", "location"),
        ("location", "location"),
    ],
)
def test_mapped_labels(label: str, expected: str) -> None:
    assert veil_type(label) == expected


def test_dropped_labels() -> None:
    assert all(veil_type(label) is None for label in DROPPED_LABELS)


def test_confidence_from_published_precision() -> None:
    meta = {"performance": {"ents_p": 0.84, "ents_per_type": {"PERSON": {"p": 0.857}, "PER": {"p": 0.0}}}}
    table = confidence_table(meta)
    assert confidence_for(table, "PERSON") == 0.857
    assert confidence_for(table, "PER") == 0.84  # zero published: overall precision instead
    assert confidence_for(table, "ORG") == 0.84  # not published: overall precision
    assert confidence_for({}, "ORG") == FALLBACK_CONFIDENCE


@pytest.mark.parametrize(
    ("text", "span", "expected"),
    [
        ("Acme Inc\nMobile: 555", (0, 15), "Acme Inc"),
        ("Name: Mary Nodler,", (6, 18), "Mary Nodler"),
        ("  \n Bob Smith", (0, 13), "Bob Smith"),
        ("mail kali57@yahoo.com now", (5, 21), None),
        ("see https://example.org", (4, 23), None),
        ("see www.example.org", (4, 19), None),
        ("ip e028:ccd4:4a91:6785 x", (3, 22), None),
        ("12345", (0, 5), None),
        ("...", (0, 3), None),
        ("Area 51 base", (0, 7), "Area 51"),
    ],
)
def test_clean_span(text: str, span: tuple[int, int], expected: str | None) -> None:
    cleaned = clean_span(text, *span)
    assert (text[cleaned[0] : cleaned[1]] if cleaned else None) == expected
