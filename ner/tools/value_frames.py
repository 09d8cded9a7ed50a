#!/usr/bin/env python3
"""Own wordings for the names pipeline (session 15): the gold person and place values of development
sets, put into frames of our own, so that what a rule learns is tested on values outside the
templates it was read on. Person values and single-line place values without digits are taken from
the dev split of data/heldout-presidio-synth.jsonl (never the test split) and any Veil-typed JSONL
given (session 12's dev-template files); each text puts one value (two for a "X, Y" pair) into one
of 20 frames (10 for people, 10 for places). Output: Veil-typed JSONL for ner/tools/dev_eval.py
`--extra` (each record carries its `frame`).

  ner/.venv/bin/python ner/tools/value_frames.py SEED COUNT [FILE ...] > /tmp/own.jsonl
"""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PERSON_FRAMES = (
    "I had lunch with {p} yesterday.",
    "Please forward the invoice to {p} before Friday.",
    "{p} will join the call at 3pm.",
    "The report was written by {p}.",
    "Can you ask {p} about the contract?",
    "Meeting notes: {p} presented the roadmap.",
    "My manager {p} approved the leave.",
    "According to {p}, the shipment is late.",
    "I spoke to {p} on the phone this morning.",
    "Thanks {p}, that helps a lot.",
)
PLACE_FRAMES = (
    "I live in {l}.",
    "We are moving to {l} next spring.",
    "The conference takes place in {l} this year.",
    "She grew up in {l} before studying abroad.",
    "Our new office is located in {l}.",
    "He flew from {l} to London.",
    "Is the weather nice in {l} in June?",
    "The package was sent from {l} on Monday.",
    "They spent two weeks in {l}, {l2}.",
    "My family comes from {l}.",
)


def values(files: list[Path]) -> tuple[list[str], list[str]]:
    found: dict[str, set[str]] = {"person": set(), "location": set()}
    records = [
        json.loads(line) for line in (ROOT / "data/heldout-presidio-synth.jsonl").open(encoding="utf-8")
    ]
    records = [r for r in records if r.get("split") == "dev"]  # never the test split
    for path in files:
        records += [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]
    for record in records:
        for entity in record["entities"]:
            value = record["text"][entity["start"] : entity["end"]]
            if (
                entity["type"] in found
                and "\n" not in value
                and not re.search(r"\d", value)
                and len(value) > 2
            ):
                found[entity["type"]].add(value)
    return sorted(found["person"]), sorted(found["location"])


def main() -> int:
    seed, count, files = int(sys.argv[1]), int(sys.argv[2]), [Path(p) for p in sys.argv[3:]]
    rng = random.Random(seed)  # noqa: S311 - reproducible test text, not a secret
    people, places = values(files)
    for _ in range(count):
        if rng.random() < 0.5:
            value, frame = rng.choice(people), rng.choice(PERSON_FRAMES)
            start = frame.index("{p}")
            text = frame.replace("{p}", value)
            entities = [{"type": "person", "start": start, "end": start + len(value)}]
        else:
            value, second, frame = rng.choice(places), rng.choice(places), rng.choice(PLACE_FRAMES)
            start = frame.index("{l}")
            text = frame.replace("{l}", value, 1)
            entities = [{"type": "location", "start": start, "end": start + len(value)}]
            if "{l2}" in text:
                other = text.index("{l2}")
                text = text.replace("{l2}", second)
                entities.append({"type": "location", "start": other, "end": other + len(second)})
        print(json.dumps({"text": text, "entities": entities, "frame": frame}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
