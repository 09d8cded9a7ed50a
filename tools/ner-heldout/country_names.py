#!/usr/bin/env python3
"""Write ner/src/veil_ner/data/countries_i18n.txt: the ISO 3166-1 country names in German, French,
Spanish, Italian, Portuguese and Dutch (session 18, wave17/ner).

Also the English names of first-level regions that ISO 3166-2 writes in the local language
("Bavaria" for "Bayern"). Source: pycountry 26.2.16 (LGPL-2.1; names and translations from
Debian's iso-codes), the gettext catalogues it ships (`locales/<lang>/LC_MESSAGES/iso3166-1.mo`,
`iso3166-2.mo` for the regions' English names): each country's name, common name
and official name translated into the six languages ("Reino Unido", "Regno Unito", "Verenigd
Koninkrijk", "États-Unis", "Deutschland", "Italie"). Kept: Latin script, no comma or parenthesis
(the inverted forms "Corée, République de"), case-folded, not already an English name
(`regions.txt` holds those), and no single word that is one of the 20,000 frequent English
words (`frequent_words.txt`: "Chili", "Grenade", "Island", "Maurice"). Read by
`ner/src/veil_ner/pipeline.py` as known country names in the other six languages the pipeline
serves (`regions.txt` has English names only).

Usage (a venv with pycountry==26.2.16, never at run time):
  /tmp/pc/bin/python tools/ner-heldout/country_names.py > ner/src/veil_ner/data/countries_i18n.txt
"""

from __future__ import annotations

import gettext
import sys
import unicodedata
from pathlib import Path

import pycountry

ROOT = Path(__file__).resolve().parents[2]
LANGS = ("de", "fr", "es", "it", "pt", "nl")


def _latin(value: str) -> bool:
    return all(not ch.isalpha() or unicodedata.name(ch, "").startswith("LATIN") for ch in value)


def main() -> int:
    english: set[str] = set()
    names: set[str] = set()
    for lang in LANGS:
        catalogue = gettext.translation("iso3166-1", pycountry.LOCALES_DIR, languages=[lang])
        for country in pycountry.countries:
            for field in ("name", "common_name", "official_name"):
                value = getattr(country, field, None)
                if not value:
                    continue
                english.add(value.casefold())
                translated = catalogue.gettext(value).strip()
                if "," in translated or "(" in translated or not _latin(translated):
                    continue
                names.add(translated.casefold())
    # one word that is also an everyday English word is left out ("Chili", "Grenade", "Island")
    frequent = set((ROOT / "ner/src/veil_ner/data/frequent_words.txt").read_text(encoding="utf-8").split())
    # First-level regions' English names (ISO 3166-2 names are local: "Bayern" is in regions.txt,
    # "Bavaria", "Lapland", "Occitania" were in no list; 22 names); the other languages' catalogues
    # also hold common words ("Centrale", "Altopiano") and are left out.
    catalogue = gettext.translation("iso3166-2", pycountry.LOCALES_DIR, languages=["en"])
    for region in pycountry.subdivisions:
        if region.parent_code is not None:
            continue
        translated = catalogue.gettext(region.name).strip()
        if translated == region.name or any(c in translated for c in ",(/") or not _latin(translated):
            continue
        names.add(translated.casefold())
        english.add(region.name.casefold())
    out = sorted(name for name in names - english if " " in name or name not in frequent)
    sys.stdout.write(
        "# ISO 3166-1 names in de, fr, es, it, pt, nl via pycountry 26.2.16 (LGPL-2.1; Debian iso-codes)\n"
    )
    sys.stdout.write("".join(f"{name}\n" for name in out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
