#!/usr/bin/env python3
"""Write data/heldout-voa.jsonl from Apache OpenNLP's name-finder test files (stdlib only).

Source: `voa1.train` and `voa2.train`, two Voice of America news articles (a work of the US
government, public domain) annotated by the Apache OpenNLP project in its name-finder format
(`<START:type> tokens <END>`, Apache License 2.0), copied unchanged into
`tools/ner-heldout/opennlp/` (provenance: data/README.md). Neither article nor its annotation was
written by this project, and no rule of the NER pipeline was written against them.

One record per sentence, detokenized (`U . S .` -> `U.S.`, `country ' s` -> `country's`,
`Myung - bak` -> `Myung-bak`, `9 , 500` -> `9,500`, quotes closed up), spans in code points.
Types: person -> person, organization -> organization, location -> location; `date` is dropped
(the NER sidecar finds no dates). Two annotation slips are corrected and listed in CORRECTIONS
(an unannotated "London", a "NATO" marked as a location); nothing else is changed.

Split (fixed): the Korea article (voa1) is `dev`, the NATO/Afghanistan article (voa2) is `test`.
Score only `dev` while tuning.

Usage: python3 tools/ner-heldout/opennlp_voa.py > data/heldout-voa.jsonl
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent / "opennlp"
TYPES = {"person": "person", "organization": "organization", "location": "location"}
# (file, sentence index, text of the entity, type): slips of the source annotation
CORRECTIONS = [
    ("voa2", 9, "London", "location"),  # "host a summit in London early next year": unannotated
]
RETYPE = [
    ("voa2", 2, "NATO", "location", "organization"),  # "NATO will remain in Afghanistan"
]
_TAG = re.compile(r"<START:(\w+)>|<END>")
_NO_SPACE_BEFORE = {",", ".", "!", "?", ":", ";", ")"}


def detok(line: str) -> tuple[str, list[dict]]:
    """Join the tokens of one annotated line; return the text and its entity spans."""
    tokens: list[str] = []
    for piece in re.split(r"(<START:\w+>|<END>)", line):
        if piece.startswith("<START:") or piece == "<END>":
            tokens.append(piece)
        else:
            tokens.extend(piece.split())
    out = ""
    ents: list[dict] = []
    open_type: str | None = None
    open_at = 0
    quote_open = False
    glue_next = False
    for i, tok in enumerate(tokens):
        m = _TAG.fullmatch(tok)
        if m:
            if m.group(1):
                open_type = m.group(1)
                open_at = -1
            else:
                if open_type in TYPES and open_at >= 0:
                    ents.append({"type": TYPES[open_type], "start": open_at, "end": len(out)})
                open_type = None
            continue
        prev = out[-1:] if out else ""
        nxt = next((t for t in tokens[i + 1 :] if not _TAG.fullmatch(t)), "")
        space = bool(out) and not glue_next
        if tok in _NO_SPACE_BEFORE or tok == "'" or tok == "-":
            space = False
        closing = tok == '"' and (prev in {",", ".", "!", "?"} or (quote_open and bool(out)))
        if tok == '"':
            space = bool(out) and not closing
        if prev == "-" and out[-2:-1] != " ":
            space = False
        if prev == "'" and not out.endswith(" '"):
            space = False
        if tok.isdigit() and out.endswith(",") and out[-2:-1].isdigit():
            space = False
        if tok == "." and re.search(r"(?:^|\s)[A-Z]$", out):  # U . S . -> U.S.
            space = False
        if re.fullmatch(r"[A-Z]", tok) and out.endswith(".") and re.search(r"(?:^|\s)[A-Z]\.$", out):
            space = False
        glue_next = tok == '"' and not closing
        if tok == '"':
            quote_open = not closing
        if tok == "-" and nxt and prev.isalnum():
            glue_next = True
        if tok == "'" and nxt in {"s", "t", "ll", "re", "ve", "d", "m"}:
            glue_next = True
        if tok == "," and prev.isdigit() and nxt.isdigit() and len(nxt) == 3:
            glue_next = True
        if space:
            out += " "
        if open_type is not None and open_at < 0:
            open_at = len(out)
        out += tok
    return out, ents


def records() -> list[dict]:
    rows: list[dict] = []
    for name, split in (("voa1", "dev"), ("voa2", "test")):
        lines = [ln for ln in (HERE / f"{name}.train").read_text(encoding="utf-8").splitlines() if ln.strip()]
        for n, line in enumerate(lines):
            text, ents = detok(line)
            for file, idx, value, kind in CORRECTIONS:
                if file == name and idx == n:
                    at = text.index(value)
                    ents.append({"type": kind, "start": at, "end": at + len(value)})
            for file, idx, value, old, new in RETYPE:
                if file == name and idx == n:
                    for e in ents:
                        if e["type"] == old and text[e["start"] : e["end"]] == value:
                            e["type"] = new
            ents.sort(key=lambda e: e["start"])
            rows.append(
                {
                    "id": f"{name}-{n:02d}",
                    "lang": "en",
                    "split": split,
                    "source": f"opennlp {name}.train",
                    "text": text,
                    "negative": not ents,
                    "entities": ents,
                }
            )
    return rows


def main() -> None:
    for row in records():
        sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
