"""Session 14: the first names of `nam_dict.txt` (Jörg Michael, GNU FDL; shipped in the PyPI
package gender-guesser 0.4.0) written to data/first_names_nam_dict.txt by ner/tools/nam_dict_names.py
(docs/ner.md, "Session 14 added"). Romanized Japanese, Korean, Chinese, Arabic, Caucasian and
Central Asian given names the Faker lists lack become evidence for a person; the section leaves
out stop words, frequent English words, places and the first word of a place's name, so no
everyday word or town line becomes a name through it.
Also: the employer on a signature's title line ("Senior Analyst, Wolters Combinatie" under a
name line) is a firm, not a person. Pure Python (no model, no word vectors)."""

from __future__ import annotations

from importlib import resources

import pytest

from veil_ner import gazetteer, labels, names, pipeline
from veil_ner.backends import RawEntity


def people(text: str) -> set[str]:
    return {text[start:end] for start, end in names.find(text)}


def persons(text: str) -> set[str]:
    return {text[e.start : e.end] for e in pipeline.recognize(text, []) if e.label.startswith("PERSON")}


def _section() -> list[str]:
    text = (resources.files("veil_ner") / "data" / "first_names_nam_dict.txt").read_text(encoding="utf-8")
    return [line for line in text.splitlines() if not line.startswith("#")]


@pytest.mark.parametrize(
    "name",
    # one or more per region the Faker lists left thin: Japan, Korea, China, Arabia/Persia,
    # the Caucasus and Central Asia, Eastern and Northern Europe
    [
        "hideo",
        "chihiro",
        "takumi",
        "jihoon",
        "ji-hoon",
        "minjun",
        "oumaima",
        "esat",
        "lamara",
        "jaromir",
        "vitaliy",
    ],
)
def test_romanized_and_regional_first_names_are_listed(name: str) -> None:
    assert name in gazetteer.first_names()


@pytest.mark.parametrize(
    "word",
    # stop words, frequent English words, a town, and first words of multi-word places
    ["novel", "liberal", "will", "valle", "vester", "pino"],
)
def test_section_leaves_out_everyday_words_and_place_heads(word: str) -> None:
    assert word not in _section()


def test_section_is_disjoint_from_the_faker_census_entries_and_places() -> None:
    section = _section()
    assert len(section) > 30_000
    assert len(set(section)) == len(section)
    places = gazetteer.places() | gazetteer.regions() | gazetteer.towns()
    assert not set(section) & places
    assert not set(section) & gazetteer.stop_words()


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Have you been to a Hideo Yamanaka concert before?", "Hideo Yamanaka"),
        ("Please forward this to Oumaima before noon.", "Oumaima"),
        ("Ask Jaromir about the invoice.", "Jaromir"),
        ("Thanks, Takumi!", "Takumi"),
    ],
)
def test_listed_given_names_are_found_in_frames_that_need_a_known_name(text: str, name: str) -> None:
    assert name in people(text)
    assert name in persons(text)


@pytest.mark.parametrize(
    ("text", "absent"),
    [
        ("We moved to Valle Edén last year.", "Valle Edén"),
        ("Use Pino How to log.", "Pino How"),
        ("The novel was liberal in tone.", "Novel"),
    ],
)
def test_place_heads_and_words_stay_unnamed(text: str, absent: str) -> None:
    assert absent not in people(text)
    assert absent not in persons(text)


def recognized(text: str, spans: list[tuple[str, str]]) -> set[tuple[str, str]]:
    model = []
    for value, label in spans:
        start = text.index(value)
        model.append(RawEntity(start, start + len(value), label, 0.86))
    return {(text[e.start : e.end], labels.veil_type(e.label)) for e in pipeline.recognize(text, model)}


@pytest.mark.parametrize(
    ("text", "name", "firm"),
    [
        (
            "Best regards,\nBeau van den Berg\nSenior Analyst, Wolters Combinatie\nMobile: 1",
            "Beau van den Berg",
            "Wolters Combinatie",
        ),
        (
            "Thanks,\nIsabella Nogueira\nAccount Manager, Xavier-Batista\n",
            "Isabella Nogueira",
            "Xavier-Batista",
        ),
        ("Cheers,\nDestini Berge MD\nHead Engineer, Skiles Berge", "Destini Berge", "Skiles Berge"),
    ],
)
def test_employer_on_a_signature_title_line_is_a_firm(text: str, name: str, firm: str) -> None:
    found = recognized(text, [(name, "PERSON"), (firm, "PERSON")])
    assert (name, "person") in found
    assert (firm, "organization") in found


@pytest.mark.parametrize(
    ("text", "spans", "person"),
    [
        (
            "Reviewers:\nAnna Schmidt\nBen Carter, Jane Roe\n",
            ["Anna Schmidt", "Ben Carter", "Jane Roe"],
            "Jane Roe",
        ),
        ("Thanks,\nAnna Schmidt\nPlease ask Analyst, Jane Roe\n", ["Anna Schmidt", "Jane Roe"], "Jane Roe"),
        ("Senior Analyst, Jane Roe\n", ["Jane Roe"], "Jane Roe"),
        ("Anna Schmidt\nSenior Analyst, Jane Roe and Ben Carter\n", ["Anna Schmidt", "Jane Roe"], "Jane Roe"),
    ],
)
def test_title_line_negatives(text: str, spans: list[str], person: str) -> None:
    assert (person, "person") in recognized(text, [(s, "PERSON") for s in spans])
