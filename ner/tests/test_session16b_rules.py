"""Session 16 (wave15/ner2): organization precision (`pipeline.py`, `orgs.py`).

- Departments, plans, products, documents and roles the model calls firms ("Data Engineering",
  "Customer Success", "Premium Plan", "Head of Sales"): dropped when every word is an everyday word
  and the last one names a function, an offering, a document or a role; firms with everyday-word
  names that end otherwise ("General Electric", "United Airlines") or hold a rare word, a legal form
  or an organization head ("Bajaj Finance", "Acme Marketing Ltd", "First Bank Support") stay.
- An institution's name opened by capitalized words before its head ("Royal Bank of Scotland Group
  plc" was cut to "Bank of Scotland Group"), never across a sentence start or a function word.
Pure Python: the model's spans are given by hand, the word vectors faked."""

from __future__ import annotations

import pytest

from rule_support import recognized, vocabulary_fixture
from veil_ner import orgs, pipeline

COMMON = frozenset(
    [
        *("data", "engineering", "customer", "success", "premium", "plan", "gold", "membership", "sales"),
        *("human", "resources", "research", "development", "annual", "report", "black", "friday", "general"),
        *("electric", "united", "airlines", "american", "express", "first", "bank", "support", "natural"),
        *("canadian", "fields", "marketing", "royal", "scotland", "commonwealth", "australia", "contact"),
        *("america",),
        *("product", "owner", "starter", "kit", "finance", "national", "group"),
    ]
)


vocabulary = vocabulary_fixture(COMMON)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Our team in Data Engineering will handle the audit.", "Data Engineering"),
        ("Shares of Customer Success fell sharply.", "Customer Success"),
        ("She bought the Premium Plan last week.", "Premium Plan"),
        ("Visiting Gold Membership next month.", "Gold Membership"),
        ("Shipping to Human Resources usually takes three days.", "Human Resources"),
        ("She joined Research and Development after graduating.", "Research and Development"),
        ("The contract with Black Friday expires in March.", "Black Friday"),
        ("Ticket from Annual Report to Berlin.", "Annual Report"),
        ("Shares of Product Owner fell sharply.", "Product Owner"),
        ("Our team in Head of Sales will handle it.", "Sales"),
        ("The branch at Finance closes at five.", "Finance"),
    ],
)
def test_department_or_offering_is_no_firm(vocabulary: None, text: str, value: str) -> None:
    assert not any(v == value for v, _ in recognized(text, [(value, "ORG")]))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I work at General Electric as an analyst.", "General Electric"),  # ends in no class word
        ("She flew United Airlines to Oslo.", "United Airlines"),
        ("Shares of Gold Fields rose.", "Gold Fields"),
        ("Shares of Bajaj Finance fell sharply.", "Bajaj Finance"),  # a rare word
        ("Shares of Canadian Natural Resources rose.", "Canadian Natural Resources"),  # not "Human"
        ("Please call United Bank Support about it.", "United Bank Support"),  # an organization head
    ],
)
def test_firm_of_everyday_words_stays(vocabulary: None, text: str, value: str) -> None:
    assert (value, "organization") in recognized(text, [(value, "ORG")])


def test_department_test_needs_everyday_words(vocabulary: None) -> None:
    assert not pipeline._department_or_offering("Zyxto Marketing")
    assert not pipeline._department_or_offering("Sales Force One Two Three")  # no class word last
    assert pipeline._department_or_offering("Starter Kit")


def _orgs(text: str) -> list[str]:
    return [text[s:e] for s, e in orgs.find(text)]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Shares of Royal Bank of Scotland Group plc fell sharply.", "Royal Bank of Scotland Group plc"),
        ("I banked with the Royal Bank of Scotland for years.", "Royal Bank of Scotland"),
        ("We opened an account at Commonwealth Bank of Australia today.", "Commonwealth Bank of Australia"),
        ("a loan from National Bank of Greece", "National Bank of Greece"),
    ],
)
def test_institution_opened_by_capitalized_words(vocabulary: None, text: str, value: str) -> None:
    assert value in _orgs(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Contact Bank of America today.", "Bank of America"),  # a sentence's first word
        ("Thanks. Contact Bank of America today.", "Bank of America"),
        ("Dear Bank of America team,", "Bank of America"),  # a greeting
        ("Visit the Bank of America site.", "Bank of America"),  # a function word
        ("Office:\nRoyal Bank of Canada", "Bank of Canada"),  # a line's first word after a label
    ],
)
def test_institution_not_extended(vocabulary: None, text: str, value: str) -> None:
    assert value in _orgs(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("The headquarters moved to Research and Development.", "Research and Development"),
        ("Send the samples to our lab in Gold Membership, please.", "Gold Membership"),
        ("Our team in Human Resources will handle the audit.", "Human Resources"),
    ],
)
def test_department_piece_is_no_town(vocabulary: None, text: str, value: str) -> None:
    """The model's firm dropped, its first word is no town after the preposition either."""
    for model in ([], [(value, "ORG")]):
        assert not any(v.startswith(value.split(maxsplit=1)[0]) for v, _ in recognized(text, model))
