"""Session 16 (wave15/ner): organizations over-reported and locations missed (`pipeline.py`).

- Job titles the model calls a firm or a person ("the Securities analyst", "the Teller supervisor",
  "Sigfig as Foreign language translator"): dropped, or the firm cut before "as"; not a firm whose
  words are no everyday words ("Goldman Sachs analyst"), nor without a determiner or "as".
- A known town the model calls a person after a place preposition ("through Store Merløse"), and a
  model place of several words that is a listed town as a whole against a first name + surname rule.
- A firm's name that opens with a person's name or a shorter firm's piece and runs on to an
  organization head noun or a fund's word ("Eaton Vance Floating-Rate 2022 Target Term Trust").
- A legal form in lower case after a firm ("Succeed co. ltd.") kept with it.
Pure Python: the model's spans are given by hand, the word vectors faked."""

from __future__ import annotations

import pytest

from rule_support import recognized, vocabulary_fixture
from veil_ner import pipeline
from veil_ner.backends import RawEntity

COMMON = frozenset(
    ["securities", "network", "insurance", "foreign", "teller", "marketing", "store", "monday", "group"]
)


vocabulary = vocabulary_fixture(COMMON)


run = recognized


@pytest.mark.parametrize(
    ("text", "value", "label"),
    [
        ('Auda S. Rivard, the Securities analyst, said: "fine"', "Securities", "ORG"),
        ('Elisabeth Haajanen, the Network and computer systems administrator, said: "no"', "Network", "ORG"),
        ('Virginia M. Harjo, the Insurance manager, said: "yes"', "Insurance", "ORG"),
        ('Lilly Campbell, the Teller supervisor, said: "ok"', "Teller", "PERSON"),
        ("She works as a Marketing manager in town.", "Marketing", "ORG"),
    ],
)
def test_job_title_is_no_name(vocabulary: None, text: str, value: str, label: str) -> None:
    found = run(text, [(value, label)])
    assert not any(v == value for v, _ in found)


def test_firm_cut_before_a_job_title(vocabulary: None) -> None:
    text = "I used to work for Sigfig as Foreign language translator, but quit."
    assert ("Sigfig", "organization") in run(text, [("Sigfig as Foreign", "ORG")])


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I work at Goldman Sachs as a Securities analyst.", "Goldman Sachs"),  # no everyday words
        ("Insurance manager approved the claim.", "Insurance"),  # no determiner or "as"
        ("The Securities and Exchange Commission ruled.", "Securities and Exchange Commission"),  # lower case
        ("We hired the Network team.", "Network"),  # no trade's head noun follows
    ],
)
def test_not_a_job_title(vocabulary: None, text: str, value: str) -> None:
    start = text.index(value)
    assert pipeline._before_job_title(text, start, start + len(value)) == (start, start + len(value))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("We drove through Store Merløse on the way home.", "Store Merløse"),
        ("Shipping to Bad Brückenau usually takes three days.", "Bad Brückenau"),
        ("Our plant near Montalbano Elicona closed.", "Montalbano Elicona"),
    ],
)
def test_known_town_the_model_calls_a_person(vocabulary: None, text: str, value: str) -> None:
    assert (value, "location") in run(text, [(value, "PERSON")])


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Please forward the invoice to Store Merløse today.", "Store Merløse"),  # addresses a person
        ("We met in Store Merløse's office.", "Store Merløse"),  # a possessive
        ("Store Merløse signed the lease.", "Store Merløse"),  # no preposition
        ("We drove through Store Merløse Group offices.", "Store Merløse"),  # a capitalized word follows
        ("I stayed in Alice Springs Road.", "Alice Springs"),  # ... a street's name goes on
        ("The memo is from Abel Figueiredo.", "Abel Figueiredo"),  # a listed first name opens it
    ],
)
def test_not_a_known_town(vocabulary: None, text: str, value: str) -> None:
    start = text.index(value)
    assert not pipeline.known_town_after_preposition(text, start, start + len(value))


def test_listed_town_of_several_words_stays_the_models_place(vocabulary: None) -> None:
    # a town of GeoNames' 1,000+ list (not the 15,000+ one) is a known place as a whole, so a first
    # name + surname rule does not take the model's place from it
    text = "Her new job is based in Alfredo Wagner now."
    start = text.index("Alfredo Wagner")
    span = RawEntity(start, start + len("Alfredo Wagner"), "GPE", 0.9)
    assert pipeline._known_place_of_words(text, span)
    assert ("Alfredo Wagner", "location") in run(text, [("Alfredo Wagner", "GPE")])


@pytest.mark.parametrize(
    ("text", "model", "value"),
    [
        (
            "Mary McAdory from Eaton Vance Floating-Rate 2022 Target Term Trust is the keynote speaker",
            [("Mary McAdory", "PERSON"), ("Eaton Vance", "PERSON")],
            "Eaton Vance Floating-Rate 2022 Target Term Trust",
        ),
        (
            "John Hancock Preferred Income Fund III is the brainchild of our founders.",
            [("John Hancock", "PERSON")],
            "John Hancock Preferred Income Fund III",
        ),
        (
            "Honorata M Ibarra from Invesco FTSE UK High Div Low Vol ETF is the keynote speaker",
            [("Honorata M Ibarra", "PERSON"), ("Invesco FTSE", "ORG")],
            "Invesco FTSE UK High Div Low Vol ETF",
        ),
    ],
)
def test_firm_name_running_on(vocabulary: None, text: str, model: list[tuple[str, str]], value: str) -> None:
    assert (value, "organization") in run(text, model)


@pytest.mark.parametrize(
    ("text", "model", "value"),
    [
        (
            "Anna Berg and Paul Meyer Group",
            [("Anna Berg", "PERSON"), ("Paul Meyer Group", "ORG")],
            "Anna Berg",
        ),
        ("I met John Smith Monday at the Bank.", [("John Smith", "PERSON")], "John Smith"),
        ("Thanks, John Smith. Group chat later.", [("John Smith", "PERSON")], "John Smith"),
    ],
)
def test_no_firm_run(vocabulary: None, text: str, model: list[tuple[str, str]], value: str) -> None:
    found = run(text, model)
    assert not any(kind == "organization" and value in v for v, kind in found)


def test_lower_case_legal_form_kept(vocabulary: None) -> None:
    text = "I used to work for Succeed co. ltd. as Actor, but quit a few months ago."
    found = run(text, [("Succeed co. ltd.", "ORG")])
    assert any(kind == "organization" and v.startswith("Succeed co. ltd") for v, kind in found)
