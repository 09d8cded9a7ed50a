#!/usr/bin/env python3
"""Write a check of two classes of location misses (session 9). `--kind particles`: multi-word
places whose name holds a lower-case particle ("Ústí nad Labem", "Frankfurt an der Oder",
"Newcastle upon Tyne", "Neumarkt im Mühlkreis", "Nové Město na Moravě", "Los Alcázares"), in prose
after a preposition, alone on a line and in an address's city line, plus negatives in the same
frames (a capitalized word, a particle and another capitalized word that is no place).
`--kind facility`: a firm's site named by its town ("the Pogoanele branch", "our Sommersted
warehouse"), towns of 1,000+ inhabitants drawn from ner/src/veil_ner/data/towns.txt whatever the
other lists say, plus negatives ("the Sales office", "the GitHub office").

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
FACILITY_FRAMES = [
    "Per our manager, the {place} branch closes early today.",
    "I work at the {place} office of a logistics firm.",
    "Our {place} warehouse ships on Mondays only.",
    "The {place} plant was sold last year.",
    "Please forward this to the {place} site before Friday.",
    "Their {place} showroom reopens in March.",
]
FACILITY_NEGATIVES = [
    "Call the Sales office before noon.",
    "The Main branch of the repository is protected.",
    "Ask the GitHub office about the invoice.",
    "Our Support hub answers within a day.",
    "The Fastify factory function returns an instance.",
    "The Kowalski office is on the second floor.",
    "Their Enterprise plant runs on solar power.",
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
    parser.add_argument("--kind", choices=("particles", "facility"), default="particles")
    args = parser.parse_args()
    rng = random.Random(args.seed)  # noqa: S311 - a reproducible sample, not a secret
    if args.kind == "facility":
        pool = sorted(p for p in g.towns() if len(p.split()) <= 2 and p.replace(" ", "").isalpha())
        frames, negatives = FACILITY_FRAMES, FACILITY_NEGATIVES
    else:
        pool = sorted(
            p
            for p in g.places()
            if any(f" {q} " in p for q in PARTICLES) and len(p.split()) <= 4 and p.replace(" ", "").isalpha()
        )
        frames, negatives = FRAMES, NEGATIVES
    out = sys.stdout
    for index in range(args.count):
        place = title(rng.choice(pool))
        frame = rng.choice(frames)
        text = frame.format(place=place)
        start = text.index(place)
        record = {
            "id": f"{args.kind}-{index}",
            "lang": "en",
            "text": text,
            "entities": [{"type": "location", "start": start, "end": start + len(place)}],
        }
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
    for index, text in enumerate(negatives):
        out.write(
            json.dumps({"id": f"{args.kind}-neg-{index}", "lang": "en", "text": text, "entities": []}) + "\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
