"""Session 15 (wave14/ner3): places of two or three words the pipeline dropped or typed as people
after a place preposition (`pipeline.py`, `typed_place_after_preposition`).

- A model GPE/LOC span of two or three title-case words after a place preposition whose last word
  is a place noun (a street type, "Land", "Via") ("in Tot Trace", "sent from Liviana Land") is kept as the
  place: before, the non-entity filter dropped it for its common last word, or a first-name +
  surname rule took it as a person. Not when a word before the last is a common word that no name
  list holds ("in Data Lake"), nor when a capitalized word follows (a firm's name goes on), nor
  after "to"/"from" that address a person ("wrote to Anna Wells"), nor without a place preposition.
Pure Python: the model's spans are given by hand, the word vectors faked."""

from __future__ import annotations

import pytest

from rule_support import recognized, vocabulary_fixture
from veil_ner import pipeline

COMMON = frozenset(
    [
        "land",
        "trace",
        "lake",
        "lodge",
        "shoals",
        "mountain",
        "data",
        "wells",
        "point",
        "package",
        "tot",
        "rossi",
    ]
)


vocabulary = vocabulary_fixture(COMMON)


run = recognized


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("The package was sent from Liviana Land on Monday.", "Liviana Land"),
        ("Our new office is located in Layla Lake.", "Layla Lake"),
        ("I live in Aune Lodge.", "Aune Lodge"),
        ("The conference takes place in Nicholas Mountain this year.", "Nicholas Mountain"),
        ("We are moving to Zorvek Trace next spring.", "Zorvek Trace"),
        ("He flew from Hoffmann Point to London.", "Hoffmann Point"),
    ],
)
def test_named_place_with_a_place_noun_after_a_preposition(vocabulary: None, text: str, value: str) -> None:
    assert (value, "location") in run(text, [(value, "GPE")])


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("We store the logs in Data Lake.", "Data Lake"),  # a common word that is no name
        ("Follow-up from Mateo Rossi: the warehouse", "Mateo Rossi"),  # a common last word, no place noun
        ("I wrote to Anna Wells yesterday.", "Anna Wells"),  # "to" addressing a person
        ("Liviana Land signed the lease.", "Liviana Land"),  # no preposition
        ("The invoice came from Liviana Land Holdings.", "Liviana Land"),  # a firm's name goes on
        ("It sits in Liviana near the park.", "Liviana"),  # one word: not this rule
    ],
)
def test_not_a_named_place(vocabulary: None, text: str, value: str) -> None:
    start = text.index(value)
    assert not pipeline.typed_place_after_preposition(text, start, start + len(value))


def test_off_without_a_vocabulary() -> None:
    # without the model's vectors every word counts as common: only listed names pass before the
    # place noun, so a rare first word does not
    text = "sent from Zorvek Trace today"
    assert not pipeline.typed_place_after_preposition(text, 10, 22)


def test_data_lake_not_made_a_place(vocabulary: None) -> None:
    text = "We store the logs in Data Lake."
    assert pipeline.typed_place_after_preposition(text, 21, 30) is False


# A word in capitals that no list or vector knows, after "from" and a word saying where someone or
# something comes from, is the town the model took for a firm.
@pytest.mark.parametrize(
    "text",
    [
        "My family comes from NØTTERØY.",
        "The package was sent from TANYGRISIAU on Monday.",
        "I am originally from KRAMFORSK.",
    ],
)
def test_capitals_town_after_an_origin_verb(vocabulary: None, text: str) -> None:
    value = next(w.strip(".") for w in text.split() if w.strip(".").isupper() and len(w) > 2)
    assert (value, "location") in run(text, [(value, "ORG")])


@pytest.mark.parametrize(
    "text",
    [
        "I got an email from ZENDESKO today.",  # no origin verb before "from"
        "My family comes from Nøtterøy.",  # not in capitals: not this rule
        "The package was sent to ZENDESKO on Monday.",  # not "from"
        "The data comes from NASA.",  # an acronym under five letters
    ],
)
def test_capitals_firm_stays(vocabulary: None, text: str) -> None:
    value = next(
        w.strip(".") for w in text.split() if w.strip(".")[:1].isupper() and w not in ("I", "My", "The")
    )
    start = text.index(value)
    assert not pipeline.capital_town_from(text, start, start + len(value))


def test_capitals_rule_off_without_a_vocabulary() -> None:
    text = "My family comes from NØTTERØY."
    assert not pipeline.capital_town_from(text, 21, 29)
