"""Records of the hand-written held-out sets (news18.py, mixed19.py): sentences whose names are
marked `[P ...]`, `[O ...]`, `[L ...]` become JSON Lines records with character offsets; even
indexes are the `dev` split, odd ones `test`. Stdlib only."""

from __future__ import annotations

import json
import re
import sys

TYPES = {"P": "person", "O": "organization", "L": "location"}
_MARK = re.compile(r"\[([POL]) ([^\]]+)\]")


def record(prefix: str, source: str, index: int, marked: str) -> dict:
    entities, pos, out = [], 0, []
    for match in _MARK.finditer(marked):
        out.append(marked[pos : match.start()])
        start = sum(len(part) for part in out)
        out.append(match.group(2))
        entities.append({"type": TYPES[match.group(1)], "start": start, "end": start + len(match.group(2))})
        pos = match.end()
    out.append(marked[pos:])
    return {
        "id": f"{prefix}-{index:02d}",
        "lang": "en",
        "split": "dev" if index % 2 == 0 else "test",
        "source": source,
        "negative": not entities,
        "text": "".join(out),
        "entities": entities,
    }


def write(prefix: str, source: str, sentences: list[str]) -> int:
    for index, marked in enumerate(sentences):
        sys.stdout.write(json.dumps(record(prefix, source, index, marked), ensure_ascii=False) + "\n")
    return 0
