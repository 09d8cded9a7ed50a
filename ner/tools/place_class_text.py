#!/usr/bin/env python3
"""Write a check of one class of location misses (session 9): multi-word places whose name holds a
lower-case particle ("Ústí nad Labem", "Frankfurt an der Oder", "Newcastle upon Tyne", "Neumarkt
im Mühlkreis", "Neustadt bei Coburg", "Nové Město na Moravě", "Los Alcázares"), named in prose
after a preposition, alone on a line and in an address's city line, plus negatives in the same
frames (a capitalized word, a particle and another capitalized word that is no place).

Places come from the sidecar's own place lists (ner/src/veil_ner/data/places.txt, GeoNames, case-
folded: written back in title case, particles in lower case); the frames are written here, not
Presidio's templates, not a test record. Veil-typed JSONL for ner/tools/dev_eval.py --extra.

Usage:
  ner/.venv/bin/python ner/tools/place_class_text.py --count 200 --seed 3 > /tmp/particles.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import sys

from veil_ner import gazetteer as g

PARTICLES = ("nad", "pod", "an der", "am", "upon", "im", "bei", "na", "dos", "das", "los", "del", "di", "el")
FRAMES = [
    "We opened a second office in {place} last spring.",
    "My parents still live near {place}, about an hour away.",
    "The parcel left {place} on Monday and should arrive soon.",
    "She was born in {place} and moved abroad at nineteen.",
    "Can you book me a hotel in {place} for two nights?",
    "Regards,\nMarta\n{place}",
    "Our supplier, based in {place}, raised prices again.",
    "The conference moves to {place} next year.",
]
NEGATIVES = [
    "The Port of Spain office? No, the Bill of Rights exhibit.",
    "We read Pride and Prejudice in class.",
    "Run Tests on Save is off in the editor settings.",
    "Open Settings in Visual Studio and search for Format on Save.",
    "The Lord of the Rings trilogy is long.",
    "Use Sign in with Apple on the login page.",
]


def title(place: str) -> str:
    words = place.split()
    return " ".join(
        w if w in {p for q in PARTICLES for p in q.split()} else w[:1].upper() + w[1:] for w in words
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(args.seed)  # noqa: S311 - a reproducible sample, not a secret
    pool = sorted(
        p
        for p in g.places()
        if any(f" {q} " in p for q in PARTICLES) and len(p.split()) <= 4 and p.replace(" ", "").isalpha()
    )
    out = sys.stdout
    for index in range(args.count):
        place = title(rng.choice(pool))
        frame = rng.choice(FRAMES)
        text = frame.format(place=place)
        start = text.index(place)
        record = {
            "id": f"particle-{index}",
            "lang": "en",
            "text": text,
            "entities": [{"type": "location", "start": start, "end": start + len(place)}],
        }
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
    for index, text in enumerate(NEGATIVES):
        out.write(
            json.dumps({"id": f"particle-neg-{index}", "lang": "en", "text": text, "entities": []}) + "\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
