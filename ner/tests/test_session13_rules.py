"""Session 13's person rules (docs/ner.md, "Session 13 added"): surnames built from parts
(hyphenated, an Arabic article, a glued Mc/Mac/Fitz/O'/D' prefix), hyphenated first names, a
possessive ending a full name, a preposition that is a first name too ("Per"), initials before a
surname, and two people joined by "and". Pure Python (no model: no word vectors are loaded, so
`name_score` is None and every unlisted word counts as rare)."""

from __future__ import annotations

import pytest

from veil_ner import gazetteer, names, pipeline
from veil_ner.backends import RawEntity


def people(text: str) -> set[str]:
    return {text[start:end] for start, end in names.find(text)}


def recognized(text: str, spans: list[tuple[str, str]]) -> set[tuple[str, str]]:
    model = []
    for value, label in spans:
        start = text.index(value)
        model.append(RawEntity(start, start + len(value), label, 0.86))
    return {(text[e.start : e.end], e.label) for e in pipeline.recognize(text, model)}


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Khalid Al-Masri approved the budget.", "Khalid Al-Masri"),
        ("Is Angela Payne-Willis still the contact?", "Angela Payne-Willis"),
        ("cc: Jaime Guerra-Laureano", "Jaime Guerra-Laureano"),
        ("The ticket went to Neil FitzMorris on Monday.", "Neil FitzMorris"),
        ("Reporter: Ross McPowell", "Ross McPowell"),
        ("Is Milka D'Abrego around?", "Milka D'Abrego"),
        ("Best regards,\nHettie O'Reilly", "Hettie O'Reilly"),
        ("Per Hamza Al-Masri's email, the deadline moved.", "Hamza Al-Masri"),
        ("I read Anna Kowalczyk-Nowak's report.", "Anna Kowalczyk-Nowak"),
        ("Hans-Peter Schmidt will call.", "Hans-Peter Schmidt"),
    ],
)
def test_compound_surnames_and_first_names(text: str, name: str) -> None:
    assert name in people(text)


@pytest.mark.parametrize(
    ("text", "absent"),
    [
        ("Per Hamza Al-Masri's email, the deadline moved.", "Per Hamza"),
        ("Per Hamza Al-Masri's email, the deadline moved.", "Hamza Al-Masri's"),
        ("We bought a MacBook Pro.", "MacBook"),
        ("Maria Read-Only mode", "Maria Read-Only"),
    ],
)
def test_compound_boundaries_and_negatives(text: str, absent: str) -> None:
    assert absent not in people(text)


def test_compound_surname_parts() -> None:
    gazetteer.load_all()
    assert names._compound_surname("Al-Masri")
    assert names._compound_surname("McPowell")
    assert names._compound_surname("Payne-Willis")
    assert not names._compound_surname("Read-Only")  # "only" is a stop word
    assert not names._compound_surname("Mc")
    assert not names._compound_surname("A-B")
    assert not names._compound_surname("Foo-Bar-Baz-Qux")  # four parts: no surname


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("B.R. Cox signed the purchase order.", "B.R. Cox"),
        ("Approved by: F. Al-Masri", "F. Al-Masri"),
        ("Approved by: S.J. Saleh", "S.J. Saleh"),
        ("Minutes taken by J. P. Kowalczyk.", "J. P. Kowalczyk"),
        ("A. Lovelace's notes", "A. Lovelace"),
    ],
)
def test_initials_before_a_surname(text: str, name: str) -> None:
    assert name in people(text)


@pytest.mark.parametrize(
    ("text", "absent"),
    [
        ("Milica Pölitz B.Eng., finance", "B.Eng"),
        ("The U.S. Army and the U.K. Border Force", "U.S. Army"),
        ("The U.S. Army and the U.K. Border Force", "U.K. Border"),
        ("Figure 3 shows U.S.A. Today", "A. Today"),
    ],
)
def test_initials_negatives(text: str, absent: str) -> None:
    assert not any(absent in found for found in people(text))


def test_pair_span_split() -> None:
    text = "I'm meeting Anna and Philip for lunch."
    got = recognized(text, [("Anna and Philip", "PERSON")])
    assert ("Anna", "PERSON") in got and ("Philip", "PERSON") in got


def test_pair_after_and_before_a_person() -> None:
    text = "Efe Şensoy and Marta are on the hiring panel."
    assert ("Marta", pipeline.PERSON_LABEL) in recognized(text, [("Efe Şensoy", "PERSON")])
    text = "Marta and Efe Şensoy are on the hiring panel."
    assert ("Marta", pipeline.PERSON_LABEL) in recognized(text, [("Efe Şensoy", "PERSON")])


@pytest.mark.parametrize(
    ("text", "spans", "absent"),
    [
        # a firm of surnames in a comma list: the single-word member found gives nothing to its neighbour
        ("Senior Analyst, Nikolaus, Witting and Douglas", [("Witting", "PERSON")], "Douglas"),
        # a country is no first name, even next to a person
        ("Efe Şensoy and Georgia", [("Efe Şensoy", "PERSON")], "Georgia"),
        # a month
        ("Efe Şensoy and May", [("Efe Şensoy", "PERSON")], "May"),
        # a full name follows: the rule adds one word, never cuts a name
        ("Efe Şensoy and Marta Kowalczyk", [("Efe Şensoy", "PERSON")], "Marta"),
        # a pair of common words is no pair of people
        ("Sales and Marketing", [("Sales and Marketing", "PERSON")], "Sales"),
    ],
)
def test_pair_negatives(text: str, spans: list[tuple[str, str]], absent: str) -> None:
    assert not any(value == absent for value, _ in recognized(text, spans))


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Send the slides to Marc by noon.", "Marc"),
        ("Please give the keys back to Salma tomorrow.", "Salma"),
        ("I handed the report to Jonathan.", "Jonathan"),
        ("can you pass this to Arkadiusz when you are done", "Arkadiusz"),
    ],
)
def test_receiver_of_something_handed_on(text: str, name: str) -> None:
    assert name in people(text)


@pytest.mark.parametrize(
    ("text", "absent"),
    [
        ("Send the package to Georgia by Friday.", "Georgia"),  # a region
        ("Send the slides to Support by noon.", "Support"),  # no name
        ("Return the form to May 3.", "May"),
        ("Send the slides to the team by noon.", "the"),
    ],
)
def test_receiver_negatives(text: str, absent: str) -> None:
    assert absent not in people(text)
