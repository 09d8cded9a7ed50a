"""Session 12's recognizer rules (docs/ner.md, "Session 12 added"): exchange listing names, legal
forms written onto the name's last word, share classes after a legal form; street lines bracketed
by a building number and a unit, a French-form street line's own number. Pure Python (no model)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from veil_ner import addresses, gazetteer, orgs, pipeline
from veil_ner.backends import RawEntity


def found(text: str) -> set[str]:
    return {text[start:end] for start, end in orgs.find(text)}


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("I hold STIFL FNL DS REP NN CUM SRS A PRF in my account.", "STIFL FNL DS REP NN CUM SRS A PRF"),
        ("Buy HSBC HOLDINGS P/ADR today", "HSBC HOLDINGS P/ADR"),
        ("the fund ETFS FORE/LONG JPY SHORT GBP fell", "ETFS FORE/LONG JPY SHORT GBP"),
        ("I worked at XTRACKERS FTSE CHN/USD.", "XTRACKERS FTSE CHN/USD"),
        ("sold MANX TELE/PAR VTG FPD 0.002 yesterday", "MANX TELE/PAR VTG FPD 0.002"),
        ("ECCL INSU /8.625 PREF is listed", "ECCL INSU /8.625 PREF"),
        ("for F N B CORP FL/SH SH NV as a clerk", "F N B CORP FL/SH SH NV"),
    ],
)
def test_exchange_listing_names(text: str, name: str) -> None:
    assert name in found(text)


@pytest.mark.parametrize(
    "text",
    [
        "Use the TCP/IP STACK and a CI/CD PIPELINE.",
        "CAN I SPEAK TO A REAL PERSON?!?! WHICH ETF SHOULD I BUY",
        "Set READ/WRITE access on /usr/local/bin",
        "The AC/DC TOUR was loud.",
        "GET /api/v1/users HTTP/1.1",
        "Scotland Group plc 11% CUM PRF GBP1 is",
    ],
)
def test_capitals_and_slashes_without_listing_evidence(text: str) -> None:
    assert not [v for v in found(text) if "/" in v or v.isupper()]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("He works for TOKYO KIKAI SEISAKUSHOLTD. now", "TOKYO KIKAI SEISAKUSHOLTD."),
        ("at THE ROYAL HOTELLIMITED in town", "ROYAL HOTELLIMITED"),
        ("from Hankyu Hanshin HoldingsInc. today", "Hankyu Hanshin HoldingsInc."),
        ("at SHARINGTECHNOLOGY.INC since May", "SHARINGTECHNOLOGY.INC"),
        ("at TEMONA.inc. since May", "TEMONA.inc."),
        ("for Karula Co.LTD. and others", "Karula Co.LTD."),
        ("for NORITAKE CO.LIMITED and others", "NORITAKE CO.LIMITED"),
    ],
)
def test_legal_form_on_the_last_word(text: str, name: str) -> None:
    assert name in found(text)


@pytest.mark.parametrize(
    "text",
    [
        "UNLIMITED plans and ZINC oxide",
        "an Unincorporated association",
        "Dear Vince, the Zinc report is late.",
    ],
)
def test_words_ending_in_a_legal_form(text: str) -> None:
    assert not found(text)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Celina from Metlife Inc Preferred Shares Series A spoke", "Metlife Inc Preferred Shares Series A"),
        ("I bought Sartorius AG Preference Shares.", "Sartorius AG Preference Shares"),
        ("at PAVmed Inc. - Series Z now", "PAVmed Inc. - Series Z"),
        ("from Alok Industries Ltd Fully Paid Ord. Shrs is", "Alok Industries Ltd Fully Paid Ord. Shrs"),
    ],
)
def test_share_class_after_a_legal_form(text: str, name: str) -> None:
    assert name in found(text)


def test_share_tail_needs_a_share_word() -> None:
    assert "Acme Inc." in found("Acme Inc. A new product ships soon.")
    assert "Acme Inc. A" not in found("Acme Inc. A new product ships soon.")


def addresses_in(text: str) -> list[str]:
    return [text[start:end] for start, end in addresses.find(text)]


@pytest.mark.parametrize(
    ("text", "address"),
    [
        (
            "please send a new one to 44485 Rue Supexhe 303 Apt. 888 Sint-Denijs Belgium? Thanks",
            "44485 Rue Supexhe 303 Apt. 888 Sint-Denijs Belgium",
        ),
        (
            "Robert Pirogov\n\n9188 115 Av. Habib bourguiba\n Suite 055\n Zeldou\n\n Tunisia 85106",
            "9188 115 Av. Habib bourguiba\n Suite 055\n Zeldou\n\n Tunisia 85106",
        ),
        (
            "it is 2204 86 Pavlou Drandaki Apt. 923, ROW HEATH, United Kingdom",
            "2204 86 Pavlou Drandaki Apt. 923, ROW HEATH, United Kingdom",
        ),
        (
            "Andja\n\n1220 Agip u. 91.\n Apt. 615\n Kisszentmárton\n\n Hungary 52324",
            "1220 Agip u. 91.\n Apt. 615\n Kisszentmárton\n\n Hungary 52324",
        ),
        (
            "Karp\n08398 Hans Nielsen Hauges gate 79 Apt. 983, HYPPELN, Sweden 26574\nMobile: 719-210-7512",
            "08398 Hans Nielsen Hauges gate 79 Apt. 983, HYPPELN, Sweden 26574",
        ),
        (
            "it is 694 4558 Boulevard Laflèche Suite 088 St Georges Canada",
            "694 4558 Boulevard Laflèche Suite 088 St Georges Canada",
        ),
    ],
)
def test_a_number_and_a_unit_bracket_a_street_line(text: str, address: str) -> None:
    assert addresses_in(text) == [address]


@pytest.mark.parametrize(
    "text",
    [
        "I booked 2 rooms at the Hilton, Suite 12 was nice.",
        "We need 3 Large Pizzas for Suite 400 please.",
        "Our team of 12 Engineers in Suite 300 is hiring.",
    ],
)
def test_no_bracket_around_sentence_words(text: str) -> None:
    assert addresses_in(text) == []


@pytest.mark.parametrize(
    ("text", "address"),
    [
        (
            "Our offices are located at 71470 Rue de la Brasserie 211\nUrbanov\n, VY\n Czech Republic 65019",
            "71470 Rue de la Brasserie 211\nUrbanov\n, VY\n Czech Republic 65019",
        ),
        (
            "Motoko Sato\n\n29668 Rue du Commerce 12\n Suite 582\n Witry\n\n Belgium 60850",
            "29668 Rue du Commerce 12\n Suite 582\n Witry\n\n Belgium 60850",
        ),
        ("Send it to 12 rue de la Paix 75002 Paris please.", "12 rue de la Paix 75002 Paris"),
        ("Write to 3 rue Victor Hugo 12 Bis now", "3 rue Victor Hugo"),
    ],
)
def test_a_french_form_street_line_keeps_its_own_number(text: str, address: str) -> None:
    assert addresses_in(text) == [address]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("I used to work for THE TOTTORI BANKLTD. as a clerk.", "TOTTORI BANKLTD."),
        ("I used to work for Strike CompanyLimited as a clerk.", "Strike CompanyLimited"),
        ("at FUJI SOFT SERVICE BUREAU INCORPORATED since", "FUJI SOFT SERVICE BUREAU INCORPORATED"),
        ("I used to work for iQIYI Inc. as a clerk.", "iQIYI Inc."),
        ("from uCloudlink Group Inc. is here", "uCloudlink Group Inc."),
    ],
)
def test_more_legal_forms(text: str, name: str) -> None:
    assert name in found(text)


@pytest.mark.parametrize(
    "text",
    ["the Limited edition", "a Delimited file", "an eBay seller", "iPhone users like iOS", "Sublimited?"],
)
def test_no_firm_in_look_alikes(text: str) -> None:
    assert not found(text)


class FakeVocab:
    """Word vectors for a few common words only: every other word is rare."""

    COMMON = frozenset(
        [
            *("spanish", "trouble", "error", "production", "capital", "letters", "json", "html"),
            *("windows", "chapter", "the", "room", "what", "your", "address", "here", "they", "are"),
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


@pytest.mark.usefixtures("vocabulary")
def test_a_town_in_capitals_after_in_is_judged_in_title_case() -> None:
    assert pipeline._unknown_after_in("HASKAYNE")
    assert pipeline._unknown_after_in("Haskayne")
    text = "My card is lost. I am in TEEBAR for a business trip"
    assert [text[s.start : s.end] for s in pipeline.recognize(text, [])] == ["TEEBAR"]


@pytest.mark.usefixtures("vocabulary")
@pytest.mark.parametrize(
    "word", ["JSON", "HTML", "SPANISH", "TROUBLE", "ERROR", "PRODUCTION", "CAPITAL LETTERS"]
)
def test_capitals_after_in_that_are_words_or_acronyms(word: str) -> None:
    assert not pipeline._unknown_after_in(word)
    text = f"Please reply in {word} for the team."
    assert pipeline.recognize(text, []) == []


def location_values(text: str, model: list[tuple[str, str]] | None = None) -> list[str]:
    spans = [RawEntity(text.index(v), text.index(v) + len(v), label, 0.85) for v, label in model or []]
    return [
        text[s.start : s.end]
        for s in pipeline.recognize(text, spans)
        if s.label in ("GPE_GAZ", "GPE", "LOC", "ADDRESS")
    ]


@pytest.mark.usefixtures("vocabulary")
@pytest.mark.parametrize(
    ("text", "model", "address"),
    [
        (
            "here they are: PSC 5344, Box 3405\nAPO AA 22190, and Alexandra and 52 Essex Rd",
            [("Alexandra", "PERSON")],
            "Alexandra and 52 Essex Rd",
        ),
        ("What is your address? it is Darda and Coronilla 3599", [], "Darda and Coronilla 3599"),
        (
            "here: PSC 5344, Box 3405\nAPO AA 22190, and Felix and Buitenburen 28",
            [],
            "Felix and Buitenburen 28",
        ),
    ],
)
def test_a_first_name_joined_to_a_street_after_and_or_is(
    text: str, model: list[tuple[str, str]], address: str
) -> None:
    assert address in location_values(text, model)


@pytest.mark.usefixtures("vocabulary")
@pytest.mark.parametrize(
    "text", ["It is Maria and Windows 11 now.", "My favourite is Anna and Chapter 3.", "and The and Room 2"]
)
def test_no_street_after_a_first_name_and_a_common_word(text: str) -> None:
    assert location_values(text) == []


@pytest.mark.usefixtures("vocabulary")
@pytest.mark.parametrize(
    ("text", "model", "town"),
    [
        ("My friend lives in Lipník u Hrotovic", [("Lipník", "GPE")], "Lipník u Hrotovic"),
        (
            "the home city Kostelec nad Cernými Lesy: ACME",
            [("Kostelec", "GPE"), ("Cernými Lesy", "PERSON")],
            "Kostelec nad Cernými Lesy",
        ),
        ("I am in Zagorje ob Savi now", [("Zagorje", "GPE")], "Zagorje ob Savi"),
    ],
)
def test_a_town_keeps_its_particle_and_the_rest(text: str, model: list[tuple[str, str]], town: str) -> None:
    assert location_values(text, model) == [town]


@pytest.mark.usefixtures("vocabulary")
def test_no_town_tail_without_a_particle_or_after_an_address() -> None:
    assert location_values("I live in Paris and Rome", [("Paris", "GPE"), ("Rome", "GPE")]) == [
        "Paris",
        "Rome",
    ]
    text = "Send it to 12 Main Street u Bob"
    assert location_values(text) == ["12 Main Street"]
