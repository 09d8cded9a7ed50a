"""Session 17 (wave16/ner): news wordings found on text no rule was written against
(data/heldout-voa.jsonl, data/heldout-spacy-examples.jsonl; dev halves only).

- A model place that opens with an office or courtesy title ("President Obama's arrival") is the
  person after the title; a known place as a whole ("Prince George"), a street ("President
  Street") or a region after the title stay.
- A model place that is a people's adjective ("North Korean human rights advocates": the value
  less its last "n" is a country or region) is no place; "Milan", "Iran" stay.
- Dotted country initials the model calls a place ("a U.S. air base", "U.K. startup") are places.
- A person span that is a role alone ("Mr. President, ...") or a compass word after "the" ("the
  North's abuses") is dropped; one that ran over a weekday ("Mr. Obama Wednesday to") is cut.
Pure Python: the model's spans are given by hand, the word vectors faked."""

from __future__ import annotations

import pytest

from rule_support import of_kind, recognized, vocabulary_fixture
from veil_ner import nonentity

COMMON = frozenset(
    [
        *("president", "street", "prince", "george", "north", "south", "korean", "human", "rights"),
        *("king", "wednesday", "monday", "milan", "iran", "base", "air", "startup", "capital"),
        *("senator", "prime", "minister", "spoke", "first", "waited", "noon", "board", "directors"),
        *("office", "research", "center", "council", "foreign", "relations", "policy", "korea"),
    ]
)


vocabulary = vocabulary_fixture(COMMON)


@pytest.mark.usefixtures("vocabulary")
@pytest.mark.parametrize(
    ("text", "value", "person"),
    [
        ("The run-up to President Obama's arrival here in Seoul was calm.", "President Obama", "Obama"),
        ("Prime Minister Rutte spoke first.", "Prime Minister Rutte", "Rutte"),
        ("We waited for Senator Whitcombe at noon.", "Senator Whitcombe", "Whitcombe"),
    ],
)
def test_title_before_a_name_is_a_person(text: str, value: str, person: str) -> None:
    found = recognized(text, [(value, "GPE")])
    assert person in of_kind(found, "person")
    assert value not in of_kind(found, "location")


@pytest.mark.usefixtures("vocabulary")
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("They moved to Prince George last year.", "Prince George"),
        ("The parade went down President Street.", "President Street"),
        ("The wine comes from General Santos.", "General Santos"),
    ],
)
def test_title_shaped_places_stay(text: str, value: str) -> None:
    found = recognized(text, [(value, "GPE")])
    assert not of_kind(found, "person") & {value.split(" ", 1)[1]}


@pytest.mark.usefixtures("vocabulary")
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("A group of North Korean human rights advocates called on him.", "North Korean"),
        ("He met the South Korean President in the South Korean capital.", "South Korean"),
        ("Kenyan runners won again.", "Kenyan"),
    ],
)
def test_demonym_is_no_place(text: str, value: str) -> None:
    assert value not in of_kind(recognized(text, [(value, "GPE")]), "location")


@pytest.mark.usefixtures("vocabulary")
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("She flew to Milan on Friday.", "Milan"),
        ("Talks with Iran resumed.", "Iran"),
        ("He lives in North Korea now.", "North Korea"),
    ],
)
def test_places_ending_in_n_stay(text: str, value: str) -> None:
    assert value in of_kind(recognized(text, [(value, "GPE")]), "location")


@pytest.mark.usefixtures("vocabulary")
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("The president landed at a U.S. air base.", "U.S."),
        ("Apple is looking at buying U.K. startup for $1 billion", "U.K."),
    ],
)
def test_dotted_country_initials_are_places(text: str, value: str) -> None:
    found = of_kind(recognized(text, [(value, "GPE")]), "location")
    assert value in found or value.rstrip(".") in found


@pytest.mark.usefixtures("vocabulary")
def test_undotted_initials_unchanged() -> None:
    assert not of_kind(recognized("Ship it to the US office.", [("US", "GPE")]), "location") - {"US"}
    assert "U.S.S" not in of_kind(recognized("The U.S.S Enterprise.", [("U.S.S", "GPE")]), "location")


@pytest.mark.usefixtures("vocabulary")
def test_role_alone_is_no_person() -> None:
    found = recognized('"Mr. President, your voice is needed!" Peters said.', [("Peters", "PERSON")])
    assert of_kind(found, "person") == {"Peters"}


@pytest.mark.usefixtures("vocabulary")
def test_compass_word_after_the_is_no_person() -> None:
    text = "Advocates spoke out against the North's abuses."
    assert "North" not in of_kind(recognized(text, [("North", "PERSON")]), "person")


@pytest.mark.usefixtures("vocabulary")
def test_weekday_after_a_name_is_cut() -> None:
    text = "Advocates called on Mr. Obama Wednesday to speak out."
    persons = of_kind(recognized(text, [("Obama", "PERSON"), ("Wednesday", "DATE")]), "person")
    assert "Obama Wednesday" not in persons
    assert "Obama" in persons


@pytest.mark.usefixtures("vocabulary")
def test_surname_like_titles_alone_stay() -> None:
    # "King" is a surname: a lone "King" the model calls a person is not dropped as a role
    assert "King" in of_kind(recognized("King said the plan was fine.", [("King", "PERSON")]), "person")


@pytest.mark.usefixtures("vocabulary")
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Scott Snyder is the director of the Center for U.S. Korea Policy.", "Center for U.S. Korea Policy"),
        ("She spoke at the Council on Foreign Relations yesterday.", "Council on Foreign Relations"),
    ],
)
def test_institution_named_by_its_head_first(text: str, value: str) -> None:
    assert value in of_kind(recognized(text, [(value, "ORG")]), "organization")


@pytest.mark.usefixtures("vocabulary")
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("The Office of Research answered.", "Office of Research"),
    ],
)
def test_parts_of_a_firm_are_no_institution(text: str, value: str) -> None:
    assert value not in of_kind(recognized(text, [(value, "ORG")]), "organization")


def test_dotted_initials_are_no_code() -> None:
    assert not nonentity._code_shaped("U.S")
    assert not nonentity._code_shaped("V.O.F.")
    assert nonentity._code_shaped("Node.js")
    assert nonentity._code_shaped("num.lcm")


@pytest.mark.usefixtures("vocabulary")
@pytest.mark.parametrize(
    ("text", "value", "gone"),
    [
        ("Le numéro de Tatiana Garcia est le 080807 37779.", "Le numéro de Tatiana Garcia", "numéro"),
        ("Explique-moi ETS : Enhanced Transmission Selection scheduler.", "Explique-moi ETS", "moi"),
        (
            "Trend zum Urlaub in Deutschland beschert Gastwirten mehr Umsatz",
            "Deutschland beschert Gastwirten",
            "Umsatz",
        ),
    ],
)
def test_place_running_into_the_clause_is_cut(text: str, value: str, gone: str) -> None:
    places = of_kind(recognized(text, [(value, "GPE")]), "location")
    assert value not in places
    assert not any(gone in place for place in places)


@pytest.mark.usefixtures("vocabulary")
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("They moved to Frankfurt am Main last year.", "Frankfurt am Main"),
        ("The office is in Alphen aan den Rijn.", "Alphen aan den Rijn"),
        ("We sailed to the Isle of Man.", "Isle of Man"),
        ("She was born in Rio de Janeiro.", "Rio de Janeiro"),
    ],
)
def test_lower_case_words_of_place_names_stay(text: str, value: str) -> None:
    assert value in of_kind(recognized(text, [(value, "GPE")]), "location")
