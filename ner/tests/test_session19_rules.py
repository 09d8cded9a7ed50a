"""Session 19 (wave18/ner): names the pipeline dropped or mistyped though the model proposed them
(`tools/ner-heldout/miss_causes.py` on the dev halves and data/heldout-mixed19.jsonl's dev half).

- A listed company's one-word name (`data/firm_words.txt`: pytickersymbols' one-word index
  constituents, less lower-case dictionary words and given names) is organization evidence for a
  model ORG span; in capitals only from four letters. Everyday words ("Target", "Orange"), given
  names and short acronyms ("AES") stay dropped.
- A model place or person span that is a listed company's name and no known place is a firm
  ("Head of Research, Unilever" as a place, "Morgan Stanley" as a person); a known town keeps the
  model's type, and a model firm that is a listed name stays a firm though a town has its name.
- A known place as a whole keeps a first word that is a greeting or stop word elsewhere ("Buenos
  Aires", "Los Angeles"); "the Netherlands" still loses "the".
Pure Python: the model's spans are given by hand, the word vectors faked."""

from __future__ import annotations

import pytest

from rule_support import of_kind, recognized, vocabulary_fixture
from veil_ner import nonentity

COMMON = frozenset(
    [
        *("please", "follow", "up", "with", "about", "contract", "has", "appointed", "new", "finance"),
        *("chief", "she", "asked", "for", "claim", "form", "the", "column", "is", "empty", "my"),
        *("favourite", "colour", "use", "payload", "research", "head", "regards", "bidding", "are"),
        *("target", "orange", "douglas", "called", "again", "office", "opened", "in", "check", "whether"),
        *("cheaper",),
    ]
)

vocabulary = vocabulary_fixture(COMMON)


@pytest.mark.usefixtures("vocabulary")
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Please follow up with Novartis about the contract.", "Novartis"),
        ("Sanofi has appointed a new finance chief.", "Sanofi"),
        ("She asked Allianz for the claim form.", "Allianz"),
        ("The invoice from HSBC is attached.", "HSBC"),
    ],
)
def test_a_listed_one_word_firm_is_an_organization(text: str, value: str) -> None:
    assert value in of_kind(recognized(text, [(value, "ORG")]), "organization")


@pytest.mark.usefixtures("vocabulary")
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("The Target column is empty.", "Target"),
        ("Orange is my favourite colour.", "Orange"),
        ("Douglas called again.", "Douglas"),
        ("Use AES for the payload.", "AES"),
    ],
)
def test_everyday_words_names_and_short_acronyms_get_no_firm_evidence(text: str, value: str) -> None:
    assert not of_kind(recognized(text, [(value, "ORG")]), "organization")


def test_the_firm_word_list_leaves_out_dictionary_words_and_given_names() -> None:
    assert nonentity.listed_firm_word("Unilever")
    assert nonentity.listed_firm_word("ASML")
    for word in ("Apple", "Shell", "Visa", "Next", "Douglas", "AES", "IBMX"):
        assert not nonentity.listed_firm_word(word)


@pytest.mark.usefixtures("vocabulary")
@pytest.mark.parametrize(
    ("text", "value", "label"),
    [
        ("Regards,\nDr. Ana Ruiz\nHead of Research, Novartis\nBasel", "Novartis", "GPE"),
        ("Morgan Stanley opened a new office in Madrid.", "Morgan Stanley", "PERSON"),
        ("Morgan Stanley opened a new office in Madrid.", "Morgan Stanley", "ORG"),
        ("The claim form from Allianz is empty.", "Allianz", "PERSON"),
    ],
)
def test_a_listed_firm_the_model_mistypes_is_an_organization(text: str, value: str, label: str) -> None:
    found = recognized(text, [(value, label)])
    assert value in of_kind(found, "organization")
    assert value not in of_kind(found, "person") | of_kind(found, "location")


@pytest.mark.usefixtures("vocabulary")
def test_a_listed_firm_named_like_a_town_keeps_the_model_type() -> None:
    # "Nokia" is a town in Finland: the model's place stays a place, the model's firm a firm
    signature = "Regards,\nAna Ruiz\nHead of Research, Nokia"
    assert "Nokia" in of_kind(recognized(signature, [("Nokia", "GPE")]), "location")
    assert "Nokia" in of_kind(recognized("Nokia and Sanofi are bidding.", [("Nokia", "ORG")]), "organization")


@pytest.mark.usefixtures("vocabulary")
@pytest.mark.parametrize(
    ("text", "value", "expected"),
    [
        ("The office opened in Buenos Aires in May.", "Buenos Aires", "Buenos Aires"),
        ("Regards,\nAna Ruiz\nLos Angeles, USA", "Los Angeles", "Los Angeles"),
        ("The office opened in the Netherlands in May.", "the Netherlands", "Netherlands"),
    ],
)
def test_a_known_place_keeps_its_first_word(text: str, value: str, expected: str) -> None:
    found = recognized(text, [(value, "GPE")])
    assert expected in of_kind(found, "location")
    assert not {"Aires", "Angeles", "Netherlands"} & of_kind(found, "person")


@pytest.mark.usefixtures("vocabulary")
@pytest.mark.parametrize(
    ("text", "value", "firm"),
    [
        ("The pallets were shipped by KORVALD SHIPPING last week.", "KORVALD SHIPPING", True),
        ("Invoices go to BRESLAVIK GROUP in Oslo.", "BRESLAVIK GROUP", True),
        ("Restart the DATA SERVICES before the backup.", "DATA SERVICES", False),
        ("Restart the API SERVICES before the backup.", "API SERVICES", False),
        ("Restart the SDK before the backup.", "SDK", False),
    ],
)
def test_a_firm_in_capitals_needs_a_head_noun_and_a_name_word(text: str, value: str, firm: bool) -> None:
    assert (value in of_kind(recognized(text, [(value, "ORG")]), "organization")) is firm


@pytest.mark.usefixtures("vocabulary")
def test_a_model_firm_over_two_names_joined_by_or_is_judged_apart() -> None:
    text = "Please check whether Sanofi or Novartis is cheaper."
    found = of_kind(recognized(text, [("Sanofi or Novartis", "ORG")]), "organization")
    assert found == {"Sanofi", "Novartis"}
    text = "Please check whether Sanofi or Orange is cheaper."
    assert of_kind(recognized(text, [("Sanofi or Orange", "ORG")]), "organization") == {"Sanofi"}
