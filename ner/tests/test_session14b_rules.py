"""Session 14 (wave13/ner2): street addresses and intersections written the local way.

- An intersection whose streets carry a French, Southern European, Polish/Czech or Dutch street
  type before the name, in either case and abbreviated (`rue`, `ul.`, `C/`, `Avda.`, `via`), or a
  Hungarian, Slavic or Germanic type after it in lower case (`út`, `ulica`, `utca`), with a
  Hungarian house number's closing dot, is one location (`addresses.corners`).
- An elided article glued to a street's name (`d'Ouchy`, `dell'Indipendenza`), Dutch street words
  before the name (`Laan van ...`), a house number before a name glued to its German or Dutch
  type (`12 Hauptstrasse`), and a name and number followed by the word "street" are addresses
  (`addresses.find`). Pure Python (no model)."""

from __future__ import annotations

import pytest

from veil_ner import addresses


def corners(text: str) -> set[str]:
    return {text[start:end] for start, end in addresses.corners(text)}


def found(text: str) -> set[str]:
    return {text[start:end] for start, end in addresses.find(text)}


@pytest.mark.parametrize(
    ("text", "streets"),
    [
        (
            "it is the corner of 14 rue Marie de Médicis and Alexandra Row",
            "14 rue Marie de Médicis and Alexandra Row",
        ),
        (
            "send it to the corner of 517 rue Saint-Antoine and Wade Rue? I am",
            "517 rue Saint-Antoine and Wade Rue",
        ),
        ("the corner of 1316 chemin Georges and MacMahon Fields", "1316 chemin Georges and MacMahon Fields"),
        (
            "the corner of C/ Domingo Beltrán 19 and Lundberg Wells",
            "C/ Domingo Beltrán 19 and Lundberg Wells",
        ),
        (
            "the corner of ul. Spychalskiego 96 and Dávila Villages",
            "ul. Spychalskiego 96 and Dávila Villages",
        ),
        ("and the corner of Budaörsi út 44. and Holm Gateway", "Budaörsi út 44. and Holm Gateway"),
        ("meet me at the corner of Via Roma and Corso Italia", "Via Roma and Corso Italia"),
        ("the corner of via Garibaldi and via Po.", "via Garibaldi and via Po"),
        (
            "the intersection of ul. Marszałkowska and al. Jerozolimskie",
            "ul. Marszałkowska and al. Jerozolimskie",
        ),
        ("the corner of rue de Rivoli and rue du Louvre", "rue de Rivoli and rue du Louvre"),
        ("the corner of Avda. Diagonal and C/ Balmes", "Avda. Diagonal and C/ Balmes"),
        ("the corner of Rákóczi út and Síp utca", "Rákóczi út and Síp utca"),
        ("the corner of Laan van Meerdervoort and Elm Street", "Laan van Meerdervoort and Elm Street"),
        ("the corner of Hauptstraße and Elm Street", "Hauptstraße and Elm Street"),
    ],
)
def test_corners_with_local_street_types(text: str, streets: str) -> None:
    assert streets in corners(text)


@pytest.mark.parametrize(
    "text",
    [
        "at the corner of the screen and the menu",
        "the intersection of Python and Rust",
        "the intersection of via and through",
        "the corner of place and time",
        "the junction of route and path in the graph",
    ],
)
def test_corner_negatives(text: str) -> None:
    assert corners(text) == set()


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("Via dell'Indipendenza 8", "Via dell'Indipendenza 8"),
        ("Avenue d'Ouchy 109, Lausanne", "Avenue d'Ouchy 109, Lausanne"),
        ("12 rue de l'Université", "12 rue de l'Université"),
        ("at Laan van Meerdervoort 50 in Den Haag", "Laan van Meerdervoort 50"),
        ("Aleje Jerozolimskie 44", "Aleje Jerozolimskie 44"),
        ("deliver to 12 Hauptstrasse", "12 Hauptstrasse"),
        ("7 Keizersgracht, Amsterdam", "7 Keizersgracht, Amsterdam"),
        ("The title refers to Bonaröd 15 street in LÄNGHEM. It was", "Bonaröd 15"),
        ("The title refers to Democracia 7069 street in Pinamar.", "Democracia 7069"),
    ],
)
def test_local_street_forms(text: str, address: str) -> None:
    assert address in found(text)


@pytest.mark.parametrize(
    "text",
    [
        "I upgraded Windows 10 last week",
        "we had 3 Strawberries",
        "version 2 Plein text",
        "I have 2 Weg",
        "we ran Python 3 street tests",  # a product name and version: never a street
        "the l'Oreal 5 pack",
    ],
)
def test_local_street_negatives(text: str) -> None:
    assert found(text) == set()
