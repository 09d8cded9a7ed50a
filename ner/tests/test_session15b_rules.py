"""Session 15 (wave14/ner2): places and people the pipeline typed wrong or dropped after a
preposition (`pipeline.py`).

- A model GPE/LOC span of one word that no list holds, after a place preposition ("comes from
  Kangerlussuaq", "moving to SLUSSFORS"), is kept as a town: before, the non-entity filter dropped
  every one-word location no list knew. Not after "at", not after "to"/"from" that address a person
  ("spoke to", "forward the invoice to", "according to"), not a listed name ("from Kwabena"), not an
  acronym, not a word glued into an identifier elsewhere in the text ("ExporterZipkin ... to
  Zipkin"), not a part of an address, path or handle.
- A model GPE/LOC span of one word after "with" that is a listed first name or surname, and no
  country or region, is a person ("lunch with Courtney"; "trade with
  Holland" stays a place).
- "in <place>, <capitalized words>" closing a sentence is a town-region pair: the second part is a
  place whatever the name rules or the model made of it ("in Kruså, Møller Prairie"); not a listed
  first name + surname ("in Berlin, Anna Schmidt."), not a short code or a term.
Pure Python: the model's spans are given by hand, the word vectors faked."""

from __future__ import annotations

import pytest

from rule_support import recognized, vocabulary_fixture

COMMON = frozenset(["traces", "file", "trade", "lunch", "package"])


vocabulary = vocabulary_fixture(COMMON)


run = recognized


def test_no_rare_town_without_a_vocabulary() -> None:
    # without the model's vectors every word counts as common: the rule stays off
    assert ("Tujetsch", "location") not in run("sent from Tujetsch today", [("Tujetsch", "GPE")])


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("My family comes from Kangerlussuaq.", "Kangerlussuaq"),
        ("The package was sent from Tujetsch on Monday.", "Tujetsch"),
        ("We are moving to SLUSSFORS next spring.", "SLUSSFORS"),
        ("They stayed near Widnau for a week.", "Widnau"),
    ],
)
@pytest.mark.usefixtures("vocabulary")
def test_rare_towns_the_model_finds_after_a_preposition(text: str, value: str) -> None:
    assert (value, "location") in run(text, [(value, "GPE")])


@pytest.mark.parametrize(
    ("text", "value", "label"),
    [
        ("We met them at Kangerlussuaq.", "Kangerlussuaq", "GPE"),  # "at": firms follow it too
        ("Traces go to Zipkin. Configure ExporterZipkin first.", "Zipkin", "GPE"),  # a product's name
        ("Convert it to JSON now.", "JSON", "GPE"),  # capitals under five letters: an acronym
        ("My family comes from Kangerlussuaq.", "Kangerlussuaq", "ORG"),  # the model's type says firm
        ("Copy it from Tujetsch/config now.", "Tujetsch", "GPE"),  # a path
        ("Please forward the invoice to Kinuho before Friday.", "Kinuho", "GPE"),  # a person addressed
        ("I spoke to Czcibor on the phone.", "Czcibor", "GPE"),
        ("According to Tamao, the shipment is late.", "Tamao", "GPE"),
    ],
)
@pytest.mark.usefixtures("vocabulary")
def test_no_rare_town_without_the_frame(text: str, value: str, label: str) -> None:
    assert (value, "location") not in run(text, [(value, label)])


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I had lunch with Courtney yesterday.", "Courtney"),
        ("I had lunch with Mayer yesterday.", "Mayer"),  # a surname and a small town
        ("A call with Dalton at noon.", "Dalton"),  # a first name and a place
        ("I had lunch with Torres yesterday.", "Torres"),  # a surname and a town
    ],
)
def test_a_name_after_with_is_a_person(text: str, value: str) -> None:
    assert (value, "person") in run(text, [(value, "GPE")])


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Trade with Holland grew this year.", "Holland"),  # a region
        ("We compared it with Kangerlussuaq.", "Kangerlussuaq"),  # no name list holds it
    ],
)
def test_no_person_after_with_that_is_no_name(text: str, value: str) -> None:
    assert (value, "person") not in run(text, [(value, "GPE")])


@pytest.mark.parametrize(
    ("text", "model", "tail"),
    [
        ("They spent two weeks in Kruså, Møller Prairie.", [("Kruså", "GPE")], "Møller Prairie"),
        ("They spent two weeks in Monte Gil, STEINKREUZ.", [("Monte Gil", "GPE")], "STEINKREUZ"),
        (
            "They spent two weeks in Cite Guedouala, Horní Slavkov.",
            [("Cite Guedouala", "GPE"), ("Horní Slavkov", "PERSON")],
            "Horní Slavkov",
        ),
        ("We moved to Apeldoorn, Gelderland\nlast year", [("Apeldoorn", "GPE")], "Gelderland"),
    ],
)
def test_the_second_part_of_a_town_region_pair_is_a_place(
    text: str, model: list[tuple[str, str]], tail: str
) -> None:
    assert (tail, "location") in run(text, model)


@pytest.mark.parametrize(
    ("text", "model", "tail"),
    [
        ("We met in Berlin, Anna Schmidt.", [("Berlin", "GPE")], "Anna Schmidt"),  # a listed name
        ("The office in Lyon, FR.", [("Lyon", "GPE")], "FR"),  # a short code
        ("Berlin, Zorblat.", [("Berlin", "GPE")], "Zorblat"),  # no place preposition
        ("In Berlin, Anna said hello.", [("Berlin", "GPE")], "Anna"),  # the clause goes on
    ],
)
def test_no_pair_without_its_shape(text: str, model: list[tuple[str, str]], tail: str) -> None:
    assert (tail, "location") not in run(text, model)
