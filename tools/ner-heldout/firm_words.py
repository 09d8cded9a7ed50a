#!/usr/bin/env python3
"""Write `ner/src/veil_ner/data/firm_words.txt` (session 19, wave18/ner): the one-word names of the
listed companies pytickersymbols ships (MIT; the constituents of its 20 stock indices), with a
trailing legal form or a parenthesis taken off ("Unilever PLC" -> "unilever", "Panasonic Holdings
Corp" -> "panasonic"), case-folded, less every name that is an everyday English word: one that the
Debian `wamerican` word list (2020.12.07, public domain) holds in lower case ("apple", "shell",
"target", "visa", "orange", "next") or that the sidecar's given-name lists hold ("Douglas",
"Lindsay"). What is left is a brand no sentence uses as a common word ("Unilever", "Lufthansa",
"Accenture", "Toyota").

Read by `nonentity.py` as evidence that a model ORG span of one word is a firm, and by
`pipeline.py` to give a model place or person span that is such a name the firm's type; never to
find a firm the model did not propose.

  apt-get install wamerican
  python3 -m venv /tmp/firms && /tmp/firms/bin/pip install pytickersymbols==1.17.10
  /tmp/firms/bin/python tools/ner-heldout/firm_words.py
"""

from __future__ import annotations

import re
import unicodedata
from importlib.metadata import version
from pathlib import Path

from pytickersymbols import PyTickerSymbols

DATA = Path(__file__).resolve().parents[2] / "ner" / "src" / "veil_ner" / "data"
OUT = DATA / "firm_words.txt"
DICTIONARY = Path("/usr/share/dict/american-english")
_TAIL = re.compile(
    r"(?:,?\s+(?:inc|corp|corporation|co|company|plc|ltd|limited|ag|se|sa|nv|n\.v|s\.a|llc|lp|group|holdings?)\.?)+$",
    re.IGNORECASE,
)


def fold(name: str) -> str:
    return unicodedata.normalize("NFC", name).replace("\u2019", "'").casefold()


def listed(name: str) -> set[str]:
    return {line for line in (DATA / name).read_text(encoding="utf-8").splitlines() if not line.startswith("#")}


def main() -> int:
    everyday = {line for line in DICTIONARY.read_text(encoding="utf-8").splitlines() if line[:1].islower()}
    given = listed("first_names.txt") | listed("first_names_nam_dict.txt")
    names: set[str] = set()
    for stock in PyTickerSymbols().get_all_stocks():
        name = re.sub(r"\s*\([^)]*\)", "", stock["name"]).strip()
        for form in (name, _TAIL.sub("", name).strip(" ,")):
            if len(form.split()) == 1 and re.fullmatch(r"[\w&'.\-]+", form) and not form.isdigit():
                names.add(fold(form))
    kept = sorted(n for n in names if n not in everyday and n not in given and len(n) >= 3)
    header = (
        f"# pytickersymbols {version('pytickersymbols')} (MIT): one-word listed company names, "
        "less lower-case words of Debian wamerican 2020.12.07 and listed given names"
    )
    OUT.write_text("\n".join([header, *kept]) + "\n", encoding="utf-8")
    print(f"{len(kept)} of {len(names)} names -> {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
