#!/usr/bin/env python3
"""Build ner/src/veil_ner/data/regions.txt: the names of the world's first-level regions and
countries (ISO 3166-1 and 3166-2, as pycountry ships them from Debian's iso-codes), one
case-folded entry per line, for the recognition pipeline's places (docs/ner.md, step 5, session 10).

A state, province, county or region is how a postal address and a sentence name where someone
lives ("Steiermark", "Jönköpings län", "Mecklenburg-Vorpommern", "Hajdú-Bihar"); GeoNames' city
lists (places.txt, towns.txt) hold settlements, not regions. Left out: names in non-Latin scripts
(the other lists are Latin-script too), and one-word names that are frequent English words
(`frequent_words.txt`: "Central", "Western", "Unity", "Lakes", "Bay") or names in the person lists
("Paola", "Ewa") unless places.txt already holds them, so a region list never turns an everyday
word or a first name into a place.

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
_CODE = re.compile(r"\s*\[[A-Z]{2}-[A-Z0-9]+\]$")  # "Uppsala län [SE-03]": the code disambiguates


# English names of countries and of the United Kingdom's nations still in everyday use that ISO
# 3166-1 no longer (or never) lists under that name.
_IN_USE = [
    *("Czech Republic", "Russia", "The Netherlands", "Holland", "Great Britain", "England", "Scotland"),
    *("Wales", "Northern Ireland", "Macedonia", "Swaziland", "Burma", "Ivory Coast", "Cape Verde"),
    *("East Timor", "Turkey", "South Korea", "North Korea", "Vatican City"),
]


def fold(word: str) -> str:  # the same key as gazetteer.fold
    return unicodedata.normalize("NFC", word).replace("\u2019", "'").casefold()


def latin(name: str) -> bool:
    return all(not ch.isalpha() or unicodedata.name(ch, "").startswith("LATIN") for ch in name)


def main() -> None:
    def lines(name: str) -> set[str]:
        text = (DATA / name).read_text(encoding="utf-8")
        return {line for line in text.splitlines() if line and not line.startswith("#")}

    frequent = lines("frequent_words.txt")
    places = lines("places.txt")
    people = lines("first_names.txt") | lines("last_names.txt")
    names: set[str] = set()
    countries = {*_IN_USE}
    for country in pycountry.countries:
        countries.update(getattr(country, a) for a in ("name", "common_name", "official_name") if hasattr(country, a))
    for region in pycountry.subdivisions:
        names.add(_CODE.sub("", region.name))
    # "Netherlands, Kingdom of the", "Korea, Republic of": the short name people write
    names.update(name.split(", ")[0] for name in list(names) if ", " in name)
    countries.update(name.split(", ")[0] for name in list(countries) if ", " in name)
    keys = {fold(name) for name in countries}  # a country's name is never filtered out
    for name in names:
        key = fold(name.strip())
        if len(key) < 3 or not latin(key):
            continue
        if " " not in key and "-" not in key and key not in places and (key in frequent or key in people):
            continue  # an everyday word or a person's name first ("Central", "Paola")
        keys.add(key)
    header = f"# ISO 3166-1/3166-2 names via pycountry {pycountry.__version__ if hasattr(pycountry, '__version__') else '26.2.16'} (LGPL-2.1; data from Debian iso-codes)\n"
    (DATA / "regions.txt").write_text(header + "".join(f"{k}\n" for k in sorted(keys)), encoding="utf-8")
    print(f"regions.txt: {len(keys)} entries")


if __name__ == "__main__":
    main()
