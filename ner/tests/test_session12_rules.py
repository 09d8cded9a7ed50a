"""Session 12's recognizer rules (docs/ner.md, "Session 12 added"): exchange listing names, legal
forms written onto the name's last word, share classes after a legal form. Pure Python (no model)."""

from __future__ import annotations

import pytest

from veil_ner import orgs


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
