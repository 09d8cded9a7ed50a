"""Session 10's recognizer rules (docs/ner.md, "Recognition pipeline", "Session 10 added"): postal
addresses as address generators and people write them (a house number before a numbered street
line, number ranges, unit words, street words that stay on their line, Slovene and Portuguese
street words), a town and its region as two places, a state code alone after a place preposition,
and the ISO 3166 region list. Pure Python (no model); a fake vocabulary where a rule needs one."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from veil_ner import addresses, gazetteer, orgs, pipeline
from veil_ner.backends import RawEntity


def found(text: str) -> list[str]:
    return [text[start:end] for start, end in addresses.find(text)]


def recognized(text: str, model: list[tuple[str, str]] | None = None) -> list[tuple[str, str]]:
    spans = []
    for value, label in model or []:
        start = text.index(value)
        spans.append(RawEntity(start, start + len(value), label, 0.85))
    return [(text[s.start : s.end], s.label) for s in pipeline.recognize(text, spans)]


def places(text: str, model: list[tuple[str, str]] | None = None) -> list[str]:
    return [
        value for value, label in recognized(text, model) if label in ("GPE_GAZ", "GPE", "LOC", "ADDRESS")
    ]


class FakeVocab:
    """Word vectors for a few common words only: every other word is rare."""

    COMMON = frozenset(["fine", "sure", "thanks", "weather", "office", "great"])

    def has_vector(self, word: str) -> bool:
        return word.lower() in self.COMMON


@pytest.fixture
def vocabulary() -> Iterator[None]:
    gazetteer.use_vocabulary(FakeVocab())
    try:
        yield
    finally:
        gazetteer._vocabulary.clear()


# --- addresses ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "address"),
    [
        # a house number before a street line that holds its own number
        ("Ship to 3579 1619 Langley St, Groot-Brakrivier", "3579 1619 Langley St, Groot-Brakrivier"),
        ("0915 Rozmanova ulica 771 Apt. 487, Jesenice, Slovenia", None),
        ("9500 814, rue Catherine Chauvet Suite 405, Fischer-la-Forêt, France 44384", None),
        # number ranges and lots
        ("The meeting is at Junckengasse 13/35, Hoyerswerda", "Junckengasse 13/35, Hoyerswerda"),
        ("569 Miesallee 1-5\n Suite 149\n Jüterbog\n Germany 58658", None),
        ("aleja Strażacka 79/36\nOpole", "aleja Strażacka 79/36\nOpole"),
        # a unit word is never a word of the street's name: the unit is a tail
        ("4585 711, rue Imbert Suite 861\nBertrand, ME 63844", None),
        # street words stay on their line: "Port" opens the town on the next line
        ("315 Ryan Manor\nPort Joshuachester\n, ME\n 39002", None),
        ("26893 Gail Key\nLake Stephanietown, VI 01256", None),
        # Slovene and Portuguese street words, Italian flats, towns with particles
        ("Malejeva ulica 870, Ormož, Slovenia", None),
        ("11271 Zaloška cesta 3\n Suite 524\n Vipava\n Slovenia", None),
        ("263 R. Cunha, 7 Suite 415, Portimão, Portugal 22468", None),
        ("Av Ribeiro, 6 Apt. 716", None),
        ("7847 Contrada Leone, 179 Appartamento 30\n Suite 368\n Ponte Di Nanto\n Italy", None),
        ("090 Čerpadlová 36\n Suite 755\n Rychnov u Jablonce nad Nisou\n Czech Republic 85584", None),
    ],
)
def test_address_forms(text: str, address: str | None) -> None:
    assert found(text) == [text if address is None else address]


def test_a_number_after_an_address_is_not_the_next_address_house_number() -> None:
    # the second street's lookback never reaches into the first address
    assert found("at 12 Main Street, 34 Oak Avenue") == ["12 Main Street", "34 Oak Avenue"]


@pytest.mark.parametrize(
    "text",
    [
        "I have 3 Windows 10 machines",
        "Install Python 3 and run it",
        "We shipped 2 Version 4 builds",
    ],
)
def test_no_address_from_a_count_before_a_product(text: str) -> None:
    assert found(text) == []


# --- a town and its region ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("We drove through Craigton, IN on the way back.", ["Craigton", "IN"]),
        ("Hjerm, PW 62004 is where the parcel waits.", ["Hjerm", "PW"]),
        ("Home: Kootwijk, Netherlands", ["Kootwijk", "Netherlands"]),
        ("Born and raised in Pabianice, Łódzkie, he never left.", ["Pabianice", "Łódzkie"]),
        ("Offices: Vöcklabruck, Kärnten, plus a small team remote.", ["Vöcklabruck", "Kärnten"]),
    ],
)
def test_town_and_region(text: str, expected: list[str], vocabulary: None) -> None:
    assert places(text) == expected


def test_a_region_splits_a_model_span_of_both() -> None:
    assert places("Staffordland, IA is lovely", [("Staffordland, IA", "GPE")]) == ["Staffordland", "IA"]


def test_a_first_name_before_a_country_is_a_town_when_the_model_says_so() -> None:
    # "France" is a first name too; after a town and a comma it is the country
    text = "hey, are you still in Gaillard, France?"
    assert places(text, [("Gaillard", "GPE"), ("France", "GPE")]) == ["Gaillard", "France"]


@pytest.mark.parametrize(
    "text",
    [
        "Thanks Anna, Norway is lovely in June.",  # a greeting addresses a person
        "Jane Smith, MD will see you now.",  # a degree after a name
        "Fine, OK.",
        "Sure, CA certificates are in the bundle.",
        "Weather, NY style.",
    ],
)
def test_no_town_and_region(text: str, vocabulary: None) -> None:
    assert not any(value in ("Anna", "Jane Smith", "Fine", "Sure", "Weather") for value in places(text))


def test_a_person_the_model_found_before_a_region_stays_a_person(vocabulary: None) -> None:
    assert ("Anna", "PERSON") in recognized("Anna, Texas is hot in summer", [("Anna", "PERSON")])


# --- a state code alone -------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "code"), [("She moved to NJ.", "NJ"), ("Shipping from TX, as usual", "TX")])
def test_state_code_after_a_place_preposition(text: str, code: str) -> None:
    assert places(text) == [code]


@pytest.mark.parametrize(
    "text",
    [
        "Merge it in PR.",
        "Deploy it to ID.",
        "Is it in OR?",
        "the pods in NS.",
        "We are in GA.",
        "Send it to QA.",
    ],
)
def test_no_state_code_that_is_a_word_or_a_technical_term(text: str) -> None:
    assert places(text) == []


# --- regions -----------------------------------------------------------------------------------
def test_regions_are_listed() -> None:
    for region in (
        "steiermark",
        "jönköpings län",
        "mecklenburg-vorpommern",
        "saskatchewan",
        "czech republic",
        "la coruña",
    ):
        assert region in gazetteer.regions(), region


def test_regions_leave_out_everyday_words_and_first_names() -> None:
    regions = gazetteer.words("regions")
    for word in ("western", "unity", "lakes", "bloke", "paola", "ewa"):
        assert word not in regions, word


def test_a_region_after_a_preposition_is_a_place() -> None:
    assert places("They moved to Hajdú-Bihar last year.") == ["Hajdú-Bihar"]


# --- organizations by form ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "firm"),
    [
        ("Shares of MAXIS TOPIX ETF rose.", "MAXIS TOPIX ETF"),
        ("He works at Pinnacle West Bancorp now.", "Pinnacle West Bancorp"),
        ("Merger news: Glacier Bancshares and the rest", "Glacier Bancshares"),
    ],
)
def test_listed_company_forms(text: str, firm: str) -> None:
    assert [text[s:e] for s, e in orgs.find(text)] == [firm]


@pytest.mark.parametrize(
    "text",
    ["Is an ETF a good idea?", "Buy the S&P 500 ETF today", "What is a REIT?"],
)
def test_no_listed_company_form_without_a_name(text: str) -> None:
    assert list(orgs.find(text)) == []


def test_a_share_class_listing_is_one_name_not_a_cut_legal_form() -> None:
    # Session 12: the listing name as a whole (orgs.securities), never "UBS ETF" cut from it.
    text = "Sell UBS ETF-JPM/GBP now"
    assert [text[s:e] for s, e in orgs.find(text)] == ["UBS ETF-JPM/GBP"]
