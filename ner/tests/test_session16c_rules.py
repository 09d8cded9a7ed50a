"""Session 16 (wave15/ner3): places listed after a label, listed firms of everyday words.

- A list of capitalized members that fills a label's line ("Offices: London, Lutry and Madrid",
  "Locations: Oslo, Bergen") is a list of places when the label names places or a member is a
  place found as a location: a person or model-firm span made of whole members (the model's
  "London, Lutry" with the comma inside) is split at the commas and its members become places,
  each a known place or a word the vocabulary lacks. Without such evidence ("Attendees: Smith,
  John") nothing changes; a member alone saying place leaves a first name a person.
- A model ORG span of everyday words that names a listed company (`data/firms.txt`: "American
  Express") has organization evidence of its own (`nonentity.py`).
Pure Python: the model's spans are given by hand, the word vectors faked."""

from __future__ import annotations

import pytest

from rule_support import recognized, vocabulary_fixture
from veil_ner import gazetteer, nonentity

COMMON = frozenset(
    [
        *("london", "madrid", "oslo", "bergen", "lyon", "zurich", "geneva", "basel", "paris", "jordan"),
        *("madison", "delivery", "remote", "online", "human", "resources", "american", "express"),
        *("general", "mills", "smith", "john", "anna", "ben", "team", "premium", "plan", "visa"),
    ]
)


vocabulary = vocabulary_fixture(COMMON)


def _places(found: set[tuple[str, str | None]]) -> set[str]:
    return {value for value, kind in found if kind == "location"}


@pytest.mark.parametrize(
    ("text", "model", "places"),
    [
        (
            "Offices: London, Lutry and Madrid",
            [("London, Lutry", "PERSON"), ("Madrid", "GPE")],
            {"London", "Lutry", "Madrid"},
        ),
        ("Locations: Oslo, Bergen", [("Oslo", "GPE"), ("Bergen", "GPE")], {"Oslo", "Bergen"}),
        ("Branches: Lyon, Annecy", [("Lyon", "PERSON"), ("Annecy", "GPE")], {"Lyon", "Annecy"}),
        (
            "Our offices: Zurich, Lutry, Geneva and Basel.",
            [("Zurich", "PERSON"), ("Lutry", "GPE"), ("Geneva", "GPE"), ("Basel", "PERSON")],
            {"Zurich", "Lutry", "Geneva", "Basel"},
        ),
        (
            "Cities: Paris, Jordan and Madison",
            [("Paris, Jordan", "PERSON"), ("Madison", "PERSON")],
            {"Paris", "Jordan", "Madison"},  # the label says place: first names too
        ),
        (
            "Tour stops\nItinerary: London, Lutry and Madrid",
            [("London", "PERSON"), ("Lutry", "GPE"), ("Madrid", "GPE")],
            {"London", "Lutry", "Madrid"},  # no place label: a member found as a place says it
        ),
        (
            "Sites: New York, San Francisco and Lutry",
            [("New York, San Francisco", "ORG"), ("Lutry", "GPE")],
            {"New York", "San Francisco", "Lutry"},  # members of several words
        ),
    ],
)
def test_listed_places_after_a_label(vocabulary: None, text: str, model: list, places: set[str]) -> None:
    found = recognized(text, model)
    assert places <= _places(found)
    assert not any("," in value for value, _ in found)


@pytest.mark.parametrize(
    ("text", "model", "kept"),
    [
        ("Attendees: Smith, John", [("Smith, John", "PERSON")], ("Smith, John", "person")),
        (
            "Speakers: Paris, Madison and Lutry",
            [("Paris", "GPE"), ("Madison", "PERSON")],
            ("Madison", "person"),
        ),
        ("Team: Anna, Ben and Lutry", [("Anna, Ben", "PERSON"), ("Lutry", "PERSON")], ("Lutry", "person")),
        (
            "Offices: London, Human Resources and Madrid.",
            [("London, Human Resources", "ORG"), ("Madrid", "GPE")],
            ("London, Human Resources", "organization"),  # not every member a place: left alone
        ),
        (
            "Offices: London, Lutry and Madrid are open today",
            [("London, Lutry", "PERSON"), ("Madrid", "GPE")],
            ("London, Lutry", "person"),  # the list does not fill the line
        ),
    ],
)
def test_list_without_place_evidence_unchanged(
    vocabulary: None, text: str, model: list, kept: tuple[str, str]
) -> None:
    assert kept in recognized(text, model)


def test_common_word_member_is_no_place(vocabulary: None) -> None:
    found = recognized("Locations: Remote, Online", [("Remote, Online", "ORG")])
    assert not _places(found)


@pytest.mark.parametrize(
    "text",
    [
        "I paid with American Express yesterday.",
        "Pay with American Express.",
        "We order from General Mills every month.",
    ],
)
def test_listed_firm_of_everyday_words(vocabulary: None, text: str) -> None:
    value = "American Express" if "American" in text else "General Mills"
    assert (value, "organization") in recognized(text, [(value, "ORG")])


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I paid with Premium Plan yesterday.", "Premium Plan"),  # no listed firm
        ("We booked Express Delivery today.", "Express Delivery"),
        ("Pay with Visa.", "Visa"),  # one word: the list holds names of two words or more
    ],
)
def test_unlisted_everyday_words_stay_dropped(vocabulary: None, text: str, value: str) -> None:
    assert not any(v == value for v, _ in recognized(text, [(value, "ORG")]))


def test_firm_list_holds_names_of_several_words() -> None:
    firms = gazetteer.words("firms")
    assert "american express" in firms
    assert all(len(name.split()) >= 2 for name in firms)
    assert nonentity.refine("with American Express.", 5, 21, "organization") == (5, 21)
