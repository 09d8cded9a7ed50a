#!/usr/bin/env python3
"""Build ner/src/veil_ner/data/regions.txt: the names of the world's first-level regions and
countries (ISO 3166-1 and 3166-2, as pycountry ships them from Debian's iso-codes), one
case-folded entry per line, for the recognition pipeline's places (docs/ner.md, step 5, session 10).

A state, province, county or region is how a postal address and a sentence name where someone
lives ("Steiermark", "Jönköpings län", "Mecklenburg-Vorpommern", "Hajdú-Bihar"); GeoNames' city
lists (places.txt, towns.txt) hold settlements, not regions. Left out: names in non-Latin scripts
(the other lists are Latin-script too), and one-word names that are everyday words saying where
(`_GENERIC`: "Central", "Western", "Lakes", "Bay") or names in the person lists ("Paola", "Ewa")
unless places.txt already holds them, so a region list never turns an everyday word or a first
name into a place. A bracketed alternative name is split off ("A Coruña [La Coruña]").

Run in a throw-away venv (the sidecar never imports pycountry):
  python3 -m venv /tmp/pc && /tmp/pc/bin/pip install pycountry==26.2.16
  /tmp/pc/bin/python ner/tools/regions_list.py
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pycountry

DATA = Path(__file__).resolve().parents[1] / "src/veil_ner/data"
_BRACKET = re.compile(r"\s*\[(?P<inside>[^\]]+)\]$")  # "Uppsala län [SE-03]", "A Coruña [La Coruña]"
_CODE = re.compile(r"[A-Z]{2}-[A-Z0-9]+")


# English names of countries and of the United Kingdom's nations still in everyday use that ISO
# 3166-1 no longer (or never) lists under that name.
_IN_USE = [
    *("Czech Republic", "Russia", "The Netherlands", "Holland", "Great Britain", "England", "Scotland"),
    *("Wales", "Northern Ireland", "Macedonia", "Swaziland", "Burma", "Ivory Coast", "Cape Verde"),
    *("East Timor", "Turkey", "South Korea", "North Korea", "Vatican City"),
]


# One-word region names that are everyday English words saying where, not which place
# ("Central", "Western", "Lakes", "Upper"): left out unless GeoNames lists them as a town.
_GENERIC = frozenset(
    [
        "central",
        "western",
        "eastern",
        "northern",
        "southern",
        "north",
        "south",
        "east",
        "west",
        "northeast",
        "northwest",
        "southeast",
        "southwest",
        "capital",
        "coast",
        "coastal",
        "lakes",
        "lake",
        "upper",
        "lower",
        "bay",
        "valley",
        "river",
        "national",
        "interior",
        "centre",
        "center",
        "islands",
        "island",
        "unity",
        "mountain",
        "mountains",
        "plateau",
        "highlands",
        "lowlands",
        "littoral",
        "oriental",
        "occidental",
        "midlands",
        "border",
        "borders",
        "delta",
        "greater",
        "inner",
        "outer",
        "middle",
        "mid",
        "far",
        "equatorial",
        "metropolitan",
        "federal",
        "district",
        "region",
        "province",
        "state",
        "city",
        "town",
        "port",
        "harbour",
        "harbor",
        "antique",
        "bloke",
        "cascade",
        "est",
        "gulf",
        "grad",
        "lac",
        "mono",
        "ain",
        "afar",
        "ascension",
    ]
)


def fold(word: str) -> str:  # the same key as gazetteer.fold
    return unicodedata.normalize("NFC", word).replace("\u2019", "'").casefold()


def latin(name: str) -> bool:
    return all(not ch.isalpha() or unicodedata.name(ch, "").startswith("LATIN") for ch in name)


def main() -> None:
    def lines(name: str) -> set[str]:
        text = (DATA / name).read_text(encoding="utf-8")
        return {line for line in text.splitlines() if line and not line.startswith("#")}

    places = lines("places.txt")
    people = lines("first_names.txt") | lines("last_names.txt")
    names: set[str] = set()
    countries = {*_IN_USE}
    for country in pycountry.countries:
        countries.update(
            getattr(country, a) for a in ("name", "common_name", "official_name") if hasattr(country, a)
        )
    for region in pycountry.subdivisions:
        bracket = _BRACKET.search(region.name)
        names.add(region.name[: bracket.start()] if bracket else region.name)
        if bracket and not _CODE.fullmatch(bracket.group("inside")):
            names.add(bracket.group("inside"))
    # "Netherlands, Kingdom of the", "Korea, Republic of": the short name people write
    names.update(name.split(", ")[0] for name in list(names) if ", " in name)
    countries.update(name.split(", ")[0] for name in list(countries) if ", " in name)
    keys = {fold(name) for name in countries}  # a country's name is never filtered out
    for name in names:
        key = fold(name.strip())
        if len(key) < 3 or not latin(key):
            continue
        if " " not in key and "-" not in key and key not in places and (key in _GENERIC or key in people):
            continue  # a word that says where, not which place ("Central"), or a person's name ("Paola")
        keys.add(key)
    version = getattr(pycountry, "__version__", "26.2.16")
    header = f"# ISO 3166-1/3166-2 names via pycountry {version} (LGPL-2.1; data from Debian iso-codes)\n"
    (DATA / "regions.txt").write_text(header + "".join(f"{k}\n" for k in sorted(keys)), encoding="utf-8")
    print(f"regions.txt: {len(keys)} entries")


if __name__ == "__main__":
    main()
