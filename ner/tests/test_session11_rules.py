"""Session 11's recognizer rules (docs/ner.md, "Recognition pipeline", "Session 11 added"): a
region the model calls a person or a firm, a model country after a place preposition against a
lone first-name rule, two address forms of the synthetic generator's provider (a second street
name on a street line's line, a first name joined to a street line by "and"), and known places
after more prepositions. Pure Python (no model): the model's spans are given by hand."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from veil_ner import addresses, gazetteer, pipeline
from veil_ner.backends import RawEntity


class FakeVocab:
    """Word vectors for a few common words only: every other word is rare."""

    COMMON = frozenset(
        [
            "chapter",
            "windows",
            "peter",
            "mary",
            "times",
            "users",
            "room",
            "our",
            "offices",
            "located",
            "gate",
            "the",
            "invoice",
            "my",
        ]
    )

    def has_vector(self, word: str) -> bool:
        return word.lower() in self.COMMON


@pytest.fixture
def vocabulary() -> Iterator[None]:
    gazetteer.use_vocabulary(FakeVocab())
    try:
        yield
    finally:
        gazetteer._vocabulary.clear()


def recognized(text: str, model: list[tuple[str, str]] | None = None) -> list[tuple[str, str]]:
    spans = []
    for value, label in model or []:
        start = text.index(value)
        spans.append(RawEntity(start, start + len(value), label, 0.85))
    return [(text[s.start : s.end], s.label) for s in pipeline.recognize(text, spans)]


def locations(text: str, model: list[tuple[str, str]] | None = None) -> list[str]:
    return [v for v, label in recognized(text, model) if label in ("GPE_GAZ", "GPE", "LOC", "ADDRESS")]


def people(text: str, model: list[tuple[str, str]] | None = None) -> list[str]:
    return [v for v, label in recognized(text, model) if label in ("PERSON", "PERSON_GAZ")]


# --- a region the model calls a person or a firm ------------------------------------------------
@pytest.mark.parametrize(
    ("text", "value", "label"),
    [
        ("Uusimaa was the first stop on the tour.", "Uusimaa", "PERSON"),
        ("Kuwait's new mayor starts next month.", "Kuwait", "PERSON"),
        ("Hovedstaden is lovely in June.", "Hovedstaden", "PERSON"),
        ("Rio Grande do Sul has the best barbecue.", "Rio Grande do Sul", "ORG"),
    ],
)
def test_a_region_the_model_calls_a_person_or_firm_is_a_place(text: str, value: str, label: str) -> None:
    assert recognized(text, [(value, label)]) == [(value, "GPE_GAZ")]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Virginia's report is late.", "Virginia"),  # a first name too: the model's person stays
        ("Ireland signed the contract.", "Ireland"),  # a surname too: the model's person stays
    ],
)
def test_a_region_that_is_a_name_stays_the_models_person(text: str, value: str) -> None:
    assert people(text, [(value, "PERSON")]) == [value]


# --- a model country after a place preposition --------------------------------------------------
@pytest.mark.parametrize(
    ("text", "country"),
    [
        ("The shipment to France left this morning.", "France"),
        ("Flights to Kenya left early.", "Kenya"),
        ("Our cousins from Georgia said hello.", "Georgia"),
    ],
)
def test_a_model_country_after_a_place_preposition_is_no_first_name(text: str, country: str) -> None:
    assert locations(text, [(country, "GPE")]) == [country]
    assert people(text, [(country, "GPE")]) == []


def test_a_country_name_opening_a_sentence_before_a_speech_verb_is_a_person() -> None:
    assert people("Georgia said she would come.", [("Georgia", "GPE")]) == ["Georgia"]


def test_the_word_before_is_never_read_from_a_cut_window() -> None:
    # 24 characters before "France" fall inside "xxxxxxxxxxxxxxxxxxxxxxxxxxto": no preposition
    text = "x" * 30 + "to France left this morning."
    assert people(text, [("France", "GPE")]) == ["France"]


# --- address forms -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "address"),
    [
        (
            "Our new office is at Knappweg 96 Campbell Isle\n Apt. 959\n Poysdorf\n Austria 17499",
            "Knappweg 96 Campbell Isle\n Apt. 959\n Poysdorf\n Austria 17499",
        ),
        (
            "ul. Nad Jarem 22 Petheö Canyon\n Suite 732\n Gdańsk\n Poland 65423\nMobile: 456 9424",
            "ul. Nad Jarem 22 Petheö Canyon\n Suite 732\n Gdańsk\n Poland 65423",
        ),
        ("Deliver to Kyrkgatan 5 Mccullough Garden, Alingsås", "Kyrkgatan 5 Mccullough Garden, Alingsås"),
    ],
)
def test_a_second_street_name_on_the_street_line(text: str, address: str) -> None:
    assert [text[s:e] for s, e in addresses.find(text)] == [address]


@pytest.mark.parametrize(
    "text",
    [
        "Install Python 3 Data Science Handbook first.",  # no line end, clause end or unit after the type
        "Upgrade to Windows 11 Home Edition today.",
    ],
)
def test_no_second_street_name_without_a_street_line(text: str) -> None:
    assert [text[s:e] for s, e in addresses.find(text)] == []


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("Our offices are located at Monika and Turjaška 48", "Monika and Turjaška 48"),
        ("Deliver to:\nLieven and Michaellei 79\n\nCall on arrival.", "Lieven and Michaellei 79"),
        ("Please send the documents to Miloš and Na Fišerce 8 by Friday.", "Miloš and Na Fišerce 8"),
        ("We met at Karen and 230 Davis Lane for coffee.", "Karen and 230 Davis Lane"),
    ],
)
def test_a_first_name_and_a_street_line_are_one_address(text: str, address: str, vocabulary: None) -> None:
    first = address.split(maxsplit=1)[0]
    assert locations(text, [(first, "PERSON")]) == [address]


@pytest.mark.parametrize(
    "text",
    [
        "Send it to Maria and Windows 11 users.",
        "Talk to Anna and Peter 2 times a week.",
        "Give it to John and Mary 2.",
        "Thanks to Anna and Chapter 3, it finally clicked.",
        "Send it to Anna and Room 5.",
    ],
)
def test_no_first_name_and_street_line_without_a_street(text: str, vocabulary: None) -> None:
    assert [v for v, label in recognized(text) if label == "ADDRESS"] == []


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("I'm staying at Eidehaugen 48 until the end of the month.", "Eidehaugen 48"),
        ("The invoice went to Dózsa györgy utca 13. by mistake.", "Dózsa györgy utca 13"),
        ("My address is Strojírenská 1006.", "Strojírenská 1006"),
    ],
)
def test_a_street_line_without_a_type_word_where_a_street_stands_alone(
    text: str, address: str, vocabulary: None
) -> None:
    assert locations(text) == [address]


@pytest.mark.parametrize(
    "text",
    ["Meet at Gate 5.", "Upgrade to Windows 11 today.", "Go to Kubernetes 1.29 docs", "Jump to Chapter 3."],
)
def test_no_typeless_street_for_common_words_and_versions(text: str, vocabulary: None) -> None:
    assert [v for v, label in recognized(text) if label == "ADDRESS"] == []


def test_no_typeless_street_without_the_models_vectors() -> None:
    # every word counts as common without a vocabulary: the rule that needs a rare word is off
    assert [v for v, label in recognized("Deliver to:\nLieven and Michaellei 79") if label == "ADDRESS"] == []


# --- known places after more prepositions -------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("Driving through Groningen took longer than expected.", "Groningen"),
        ("They spent the summer around Esbjerg with the kids.", "Esbjerg"),
        ("The farm lies just outside Salzburg.", "Salzburg"),
        ("I visited Portugal twice last year.", "Portugal"),
        ("We cycled across Thüringen in a week.", "Thüringen"),
    ],
)
def test_a_known_place_after_more_prepositions(text: str, place: str) -> None:
    assert locations(text) == [place]


@pytest.mark.parametrize(
    "text",
    [
        "Walk through Kubernetes networking step by step.",
        "Everything around March was busy.",
        "Look outside Docker for the cause.",
    ],
)
def test_no_place_after_the_new_prepositions_for_terms_and_months(text: str) -> None:
    assert locations(text) == []


# --- one known name where a sentence puts a person (rule 11) ------------------------------------
@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("The account belongs to Sipos.", "Sipos"),
        ("According to Martinez, the shipment left on time.", "Martinez"),
        ("Can you add Nagy to the mailing list?", "Nagy"),
        ("The form was signed by Beverly in blue ink.", "Beverly"),
        ("Please forward this to Gunilla when you get a chance.", "Gunilla"),
        ("Regards,\nBlackburn", "Blackburn"),
        ("Thanks,\nHjálmþórsson", "Hjálmþórsson"),  # a rare word after a closing
    ],
)
def test_a_known_name_where_a_sentence_puts_a_person(text: str, name: str, vocabulary: None) -> None:
    assert people(text) == [name]


@pytest.mark.parametrize(
    "text",
    [
        "According to Paris, nothing changed.",  # a region's name too
        "Add Redis to the stack.",  # a technical term
        "The ticket belongs to Support.",
        "Thanks,\nThe team",
        "According to Reuters, markets fell.",  # no list knows it
        "The release is signed by Morgan executives.",  # a noun follows the name
        "Please add May to the calendar.",  # a month
    ],
)
def test_no_name_after_a_person_cue_for_words_places_and_terms(text: str, vocabulary: None) -> None:
    assert people(text) == []


# --- a place a firm or a person is based in ------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("Our Rio Grande do Sul-based supplier raised prices again.", "Rio Grande do Sul"),
        ("We hired an Esbjerg-based agency.", "Esbjerg"),
    ],
)
def test_a_place_before_based(text: str, place: str) -> None:
    assert locations(text) == [place]


@pytest.mark.parametrize(
    "text", ["A Python-based tool and a Java-based server.", "Our Kubernetes-based platform is ready."]
)
def test_no_place_before_based_for_technical_terms(text: str) -> None:
    assert locations(text) == []
