"""Session 18 (wave17/ner): organizations in running news text, country names in six languages,
and two loose ends (data/heldout-news18.jsonl, data/heldout-spacy-examples.jsonl: dev halves only).

- A model firm acting in a news sentence has organization evidence: the subject of a reporting or
  corporate verb ("Hamas said", "Ryanair cut its fares", "Volkswagen shares rose") or the object of
  an attribution ("according to the Pentagon", "a stake in Commerzbank"); an acronym only alone
  ("NATO said"). Products and everyday words in other positions stay dropped.
- A public body's head noun closes a firm's name ("World Health Organization", "Labour Party"),
  and joins a model firm that stopped before it.
- Country names in German, French, Spanish, Italian, Portuguese and Dutch are places.
- A dotted country in an instruction's or a question's topic ("Explain U.S. tax brackets") is no
  place; "a U.S. air base" in a statement stays one.
- A lone given name before a weekday keeps the weekday as its surname ("Sarah Friday").
Pure Python: the model's spans are given by hand, the word vectors faked."""

from __future__ import annotations

import pytest

from rule_support import of_kind, recognized, vocabulary_fixture
from veil_ner import nonentity

COMMON = frozenset(
    [
        *("said", "shares", "rose", "fares", "cut", "pentagon", "kremlin", "world", "health", "labour"),
        *("party", "organization", "supreme", "court", "dashboards", "default", "install", "traffic"),
        *("technician", "plugin", "tax", "brackets", "air", "base", "friday", "wednesday", "monday"),
        *("team", "joined", "apple", "support", "shell", "lyon", "warehouse", "united", "nations"),
    ]
)


vocabulary = vocabulary_fixture(COMMON)


@pytest.mark.usefixtures("vocabulary")
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Hamas said it had received the proposal and was studying it.", "Hamas"),
        ("Ryanair cut its fares in Italy after the airport tax was raised.", "Ryanair"),
        ("Volkswagen shares rose after the carmaker said chip supplies were improving.", "Volkswagen"),
        ("According to the Pentagon, about 3,000 troops will be sent.", "Pentagon"),
        ("The Kremlin denied that the plan had been discussed.", "Kremlin"),
        ("Unicredit is in talks to buy a stake in Commerzbank, people said.", "Commerzbank"),
        ("NATO said the exercise would start in May.", "NATO"),
        ("Microsoft agreed to buy the game maker for $68.7 billion in cash.", "Microsoft"),
        ("Petrobras, which is state-controlled, said it had found oil.", "Petrobras"),
    ],
)
def test_a_firm_acting_in_news_is_an_organization(text: str, value: str) -> None:
    assert value in of_kind(recognized(text, [(value, "ORG")]), "organization")


@pytest.mark.usefixtures("vocabulary")
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("The Grafana dashboards show no restarts.", "Grafana"),
        ("The Fastify's default options are listed below.", "Fastify"),
        ("Oberto Napolitani, the Traffic technician, was there.", "Traffic"),
        ("Register the SDK plugin first.", "SDK"),
        ("The Lyon warehouse still receives duplicate orders.", "Lyon"),
        ("IMPLIED WARRANTIES said nothing.", "IMPLIED WARRANTIES"),  # shouted text: no acronym alone
    ],
)
def test_a_firm_in_no_news_role_stays_dropped(text: str, value: str) -> None:
    assert value not in of_kind(recognized(text, [(value, "ORG")]), "organization")


@pytest.mark.usefixtures("vocabulary")
@pytest.mark.parametrize(
    ("text", "model", "value"),
    [
        (
            "The World Health Organization warned of cholera.",
            "The World Health Organization",
            "World Health Organization",
        ),
        ("The Labour Party won 411 seats.", "The Labour Party", "Labour Party"),
        (
            "a spokesperson for World Health Organization, said talks would resume.",
            "World Health",
            "World Health Organization",
        ),
    ],
)
def test_a_public_body_head_closes_the_name(text: str, model: str, value: str) -> None:
    assert value in of_kind(recognized(text, [(model, "ORG")]), "organization")


def test_a_public_body_head_alone_is_no_name() -> None:
    assert not nonentity.PUBLIC_BODY_HEADS.isdisjoint({"party", "court"})
    with_one_word = recognized("The Party is over.", [("Party", "ORG")])
    assert "Party" not in of_kind(with_one_word, "organization")


@pytest.mark.usefixtures("vocabulary")
@pytest.mark.parametrize(
    ("text", "model", "place"),
    [
        (
            "Londen is een grote stad in het Verenigd Koninkrijk",
            [("Verenigd Koninkrijk", "PERSON")],
            "Verenigd Koninkrijk",
        ),
        (
            "Apple está buscando comprar una startup del Reino Unido.",
            [("del Reino Unido", "PERSON")],
            "Reino Unido",
        ),
        ("Où est la capitale des États-Unis ?", [], "États-Unis"),
        ("L\u2019Italie choisit un repreneur pour l\u2019aci\u00e9rie.", [], "Italie"),
        ("Trend zum Urlaub in Deutschland beschert Gastwirten mehr Umsatz", [], "Deutschland"),
        ("Ci vediamo in Francia domani.", [], "Francia"),
    ],
)
def test_country_names_in_six_languages_are_places(
    text: str, model: list[tuple[str, str]], place: str
) -> None:
    found = recognized(text, model)
    assert place in of_kind(found, "location")
    assert not of_kind(found, "person")


@pytest.mark.usefixtures("vocabulary")
def test_a_region_named_in_english_is_a_place() -> None:
    # ISO 3166-2 writes "Bayern": its English name comes from pycountry's catalogue
    found = recognized("Flooding in Bavaria forced the depot to close.", [])
    assert "Bavaria" in of_kind(found, "location")


@pytest.mark.usefixtures("vocabulary")
def test_a_country_name_that_is_a_first_name_needs_a_preposition() -> None:
    # "Francia" is a listed first name too: a person's name before a surname, a place after "in"
    assert "Francia" not in of_kind(recognized("Francia Rossi joined the team.", []), "location")


@pytest.mark.usefixtures("vocabulary")
@pytest.mark.parametrize(
    "text",
    [
        "Explain U.S. tax brackets",
        "How do U.K. VAT rules apply to digital services?",
        "Thanks. Now explain U.S. capital gains tax.",
        "What is the difference between U.S. and E.U. privacy law?",
    ],
)
def test_a_dotted_country_in_an_instruction_topic_is_no_place(text: str) -> None:
    model = [(value, "GPE") for value in ("U.S.", "U.K.", "E.U.") if value in text]
    assert not of_kind(recognized(text, model), "location")


@pytest.mark.usefixtures("vocabulary")
def test_a_dotted_country_in_a_statement_stays_a_place() -> None:
    found = recognized("Militants attacked a U.S. air base on Wednesday.", [("U.S.", "GPE")])
    assert {"U.S.", "U.S"} & of_kind(found, "location")


@pytest.mark.usefixtures("vocabulary")
def test_a_given_name_keeps_a_weekday_surname() -> None:
    found = recognized("Sarah Friday joined the team on Monday.", [("Sarah Friday", "PERSON")])
    assert "Sarah Friday" in of_kind(found, "person")
    cut = recognized(
        "The president called on Mr. Obama Wednesday to resign.", [("Obama Wednesday", "PERSON")]
    )
    assert "Obama" in of_kind(cut, "person")
