#!/usr/bin/env python3
"""Writes `ner/src/veil_ner/data/firms.txt` (session 16, wave15/ner3): the names of the listed
companies that pytickersymbols ships (MIT; the constituents of 20 stock indices: S&P 500, DAX,
FTSE 100, ...), of two words or more once a trailing legal form or a parenthesis is taken off,
case-folded. Read by `nonentity.py` as evidence that a model ORG span of everyday words is a firm
("American Express", "General Mills"), never to find a firm the model did not.

  python3 -m venv /tmp/firms && /tmp/firms/bin/pip install pytickersymbols==1.17.10
  /tmp/firms/bin/python ner/tools/firms_list.py
"""

from __future__ import annotations

import re
import unicodedata
from importlib.metadata import version
from pathlib import Path

from pytickersymbols import PyTickerSymbols

OUT = Path(__file__).resolve().parents[1] / "src" / "veil_ner" / "data" / "firms.txt"
_TAIL = re.compile(
    r"(?:,?\s+(?:inc|corp|corporation|co|company|plc|ltd|limited|ag|se|sa|nv|n\.v|s\.a|llc|lp|group|holdings?)\.?)+$",
    re.IGNORECASE,
)


def fold(name: str) -> str:
    return unicodedata.normalize("NFC", name).replace("\u2019", "'").casefold()


def main() -> int:
    names: set[str] = set()
    for stock in PyTickerSymbols().get_all_stocks():
        name = re.sub(r"\s*\([^)]*\)", "", stock["name"]).strip()
        for form in (name, _TAIL.sub("", name).strip(" ,")):
            if len(form.split()) >= 2 and re.fullmatch(r"[\w&'.\- ]+", form):
                names.add(" ".join(fold(form).split()))
    header = f"# pytickersymbols {version('pytickersymbols')} (MIT): listed companies of two words or more"
    OUT.write_text("\n".join([header, *sorted(names)]) + "\n", encoding="utf-8")
    print(f"{len(names)} names -> {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
