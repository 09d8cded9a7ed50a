"""Session 15 (wave14/ner): model PERSON spans the non-entity filter dropped, name rules where a
sentence puts a place, and streets named after people after "from" / "to" / "near".

- A middle initial between two capitalized words is no unit or term ("Nusa M Weress": "M" is
  closed-class), and a listed first name before an initial is no stop word at the span's edge
  ("Saber A. Mailly"): `nonentity.refine` keeps such PERSON spans.
- Hyphens and apostrophes join the parts of names and places ("Smith-Jones", "O'Brien",
  "L'Heureux", "Aix-en-Provence"); surnames with a glued prefix ("McKenzie", "LeBatelier") and the
  Dutch "IJ" ("IJzermans") are names in a PERSON span, not identifiers with an inner capital.
- `names.find` yields no person after "city"/"town"/"village", nor after "in"/"near" when the run
  is a known place or opens with a place word ("in Monte Gil", "home city Carlos Reyles"); a
  possessive keeps it a person ("in Ana Lopez's team").
- A zero-width no-break space pasted before a surname joins it ("Václav \\ufeffHorák").
- `addresses.street_names`: a street named after a person after "from", "to", "near", "via"
  ("comes from Cardoso Bypass"), not when a capitalized word continues a firm's name.
Pure Python (no model)."""

from __future__ import annotations

import pytest

from veil_ner import addresses, names, nonentity


def refined(text: str, value: str, kind: str = "person") -> str | None:
    start = text.index(value)
    span = nonentity.refine(text, start, start + len(value), kind)
    return None if span is None else text[span[0] : span[1]]


def people(text: str) -> set[str]:
    return {text[start:end] for start, end in names.find(text)}


def streets(text: str) -> set[str]:
    return {text[start:end] for start, end in addresses.street_names(text)}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Nusa M Weress from Healthsouth Corp is the keynote speaker", "Nusa M Weress"),
        ("Nanase M Oyokawa, the Production manager, said", "Nanase M Oyokawa"),
        ("Please block my card. My name is Saber A. Mailly.", "Saber A. Mailly"),
        ('"Don\'t feed me", says Celina IJzermans in a song', "Celina IJzermans"),
        ("Follow up with Searlait D LeBlanc next week", "Searlait D LeBlanc"),
        ("I met Anna Smith-Jones today", "Anna Smith-Jones"),
        ("Claim filed by Adrain Orn-Schuster yesterday", "Adrain Orn-Schuster"),
        ("I met Jean-Pierre Dupont today", "Jean-Pierre Dupont"),
        ("I met Siobhan O'Brien today", "Siobhan O'Brien"),
        ("According to Babette L'Heureux, the shipment is late.", "Babette L'Heureux"),
        ("I met Ana D\u2019Angelo today", "Ana D\u2019Angelo"),
    ],
)
def test_names_the_filter_keeps(text: str, value: str) -> None:
    assert refined(text, value) == value


def test_joined_place_names_are_no_identifiers() -> None:
    text = "We drove to Aix-en-Provence and Saint-Étienne."
    assert refined(text, "Aix-en-Provence", "location") == "Aix-en-Provence"
    assert refined(text, "Saint-Étienne", "location") == "Saint-Étienne"


@pytest.mark.parametrize(
    ("text", "value", "kind"),
    [
        ("Set the Content-Type header", "Content-Type", "person"),  # one word, no listed name
        ("Try T-Mobile today", "T-Mobile", "location"),  # a letter and a hyphen: a product's form
        ("Install Javascript Redis now", "Javascript Redis", "person"),  # a term and no name
        ("call config.yaml please", "config.yaml", "person"),
        ("The IEEE Standard for Floating-Point Arithmetic", "Floating-Point Arithmetic", "organization"),
        ("upgrade to JavaScript today", "JavaScript", "person"),  # an inner capital, no name prefix
    ],
)
def test_identifiers_stay_dropped(text: str, value: str, kind: str) -> None:
    assert refined(text, value, kind) is None


def test_a_middle_initial_only_between_capitalized_words() -> None:
    # "M" is still a term when it is no middle initial: a term and no listed name
    assert refined("the Weress M model", "Weress M") is None


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I am in Monte Gil for a business trip", "Monte Gil"),
        ("I am in El Alouj for a business trip", "El Alouj"),
        ("the White Stripes' home city Carlos Reyles: a car town", "Carlos Reyles"),
        ("home city Santa Lucia Del Mela: SATUDORA HOLDINGS", "Santa Lucia Del Mela"),
        (
            "The title refers to R Cachoeira 112 street in Santa Marta de Penaguião.",
            "Santa Marta de Penaguião",
        ),
        ("She grew up in the town Monte Gil near the sea", "Monte Gil"),
    ],
)
def test_no_person_where_a_place_goes(text: str, value: str) -> None:
    assert value not in people(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I'm in Ana Lopez's team now", "Ana Lopez"),  # a possessive: a person
        ("I am interested in John Smith for the role", "John Smith"),  # no place evidence after "in"
        ("I had lunch with Monte Gil yesterday", "Monte Gil"),  # no place frame
        ("Hi Carlos Garcia, welcome", "Carlos Garcia"),
    ],
)
def test_people_elsewhere_stay(text: str, value: str) -> None:
    assert value in people(text)


def test_a_zero_width_space_inside_a_name() -> None:
    text = "I spoke to Václav \ufeffHorák on the phone this morning."
    assert "Václav \ufeffHorák" in people(text)
    assert "Václav \ufeff" not in people(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("My family comes from Cardoso Bypass.", "Cardoso Bypass"),
        ("The package was sent from Sato Mill on Monday.", "Sato Mill"),
        ("We drove to Wade Stravenue last night", "Wade Stravenue"),
        ("a small house near Larsen Mountain, they said", "Larsen Mountain"),
        ("They moved from Elm Street to Oak Road", "Elm Street"),
    ],
)
def test_streets_after_more_prepositions(text: str, value: str) -> None:
    assert value in streets(text)


@pytest.mark.parametrize(
    "text",
    [
        "the invoice from Orchard Lane Foods Group arrived",  # a firm goes on after the type
        "your application to Orchard Lane Foods Corp. has been received",
        "please talk to Sarah Park about it",  # a first name and a surname-type: a person as likely
        "an email from Henry Ford today",
    ],
)
def test_no_street_after_the_new_prepositions(text: str) -> None:
    assert streets(text) == set()
