#!/usr/bin/env python3
"""Phone numbers written by other countries' habits (session 19, wave18/phone; issue 18 item 3).

A fresh family, independent of Veil's code and of Faker's formats: numbers built from each plan's
own valid prefixes and written as people in that country write them, in generate.py's sentence
frames with a phone word (`word`) and without one (`bare`):
- `br`: Brazil, the area code in parentheses, a mobile `(11) 96123-4073` or a landline `(21) 3456-7890`;
- `in`: India, a mobile in 5+5 `98765 43210`, with `+91` or the trunk `0`;
- `jp`: Japan, dashes `090-1234-5678`, `03-1234-5678`;
- `de0`: Germany, the trunk zero in parentheses `+49 (0)30 1234567`, the area code before a slash
  with spaces `030 / 1234567`;
- `vanity`: North American toll-free numbers spelt with letters `1-800-FLOWERS`, `1-888-GOT-JUNK`;
- `called-ext`: an extension of 2-3 digits named alone after a dialling verb, `dial ext 12` (word
  frames of its own; no bare frame: a bare extension is no phone).
Output: JSONL {id, class, locale, source, frame, text, start, end} like generate.py; count with
count.mjs (`--key source`).
Usage: .venv-presidio/bin/python tools/phone-formats/habits.py [--seed 19] [--per-class 40] > /tmp/hb.jsonl
"""

import argparse
import json
import random

from generate import BARE, NAMES, WORD, case_record

VANITY_WORDS = [
    "FLOWERS",
    "GOT-JUNK",
    "CONTACTS",
    "PLUMBER",
    "LAWYERS",
    "DENTIST",
    "PET-MEDS",
    "MATTRES",
    "HILTONS",
    "AUTOPARTS",
]
EXT_FRAMES = [
    "dial ext {p}",
    "Call ext. {p} for billing.",
    "Please ring me on extension {p} tomorrow.",
    "For the front desk, dial extension {p}.",
    "call us at ext {p}",
]


def d(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789") for _ in range(n))


def br(rng):
    area = rng.choice(["11", "21", "31", "41", "51", "61", "71", "81", "85", "92"])
    if rng.random() < 0.5:
        return f"({area}) 9{rng.choice('6789')}{d(rng, 3)}-{d(rng, 4)}"
    return f"({area}) {rng.choice('2345')}{d(rng, 3)}-{d(rng, 4)}"


def india(rng):
    number = rng.choice("6789") + d(rng, 4) + " " + d(rng, 5)
    return rng.choice(["", "+91 ", "0"]) + number


def jp(rng):
    if rng.random() < 0.5:
        return f"0{rng.choice('789')}0-{rng.choice('123456789')}{d(rng, 3)}-{d(rng, 4)}"
    return f"0{rng.choice(['3', '6'])}-{rng.choice('3456')}{d(rng, 3)}-{d(rng, 4)}"


def de0(rng):
    area, rest = rng.choice([("30", 8), ("89", 8), ("40", 7), ("221", 7), ("69", 8)])
    subscriber = rng.choice("23456789") + d(rng, rest - 1)
    if rng.random() < 0.5:
        return f"+49 (0){area} {subscriber}"
    return f"0{area} / {subscriber}"


def vanity(rng):
    return f"{rng.choice(['1-', '1-', ''])}{rng.choice(['800', '888', '877', '866'])}-{rng.choice(VANITY_WORDS)}"


CLASSES = {"br": br, "in": india, "jp": jp, "de0": de0, "vanity": vanity}


def record(count, cls, frame, template, number):
    return case_record("hb", count, cls, cls, cls, frame, template, number)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--per-class", type=int, default=40)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    count = 0
    for cls, make in CLASSES.items():
        for _ in range(args.per_class):
            number = make(rng)
            for frame, frames in (("word", WORD), ("bare", BARE)):
                template = rng.choice(frames).replace("{n}", rng.choice(NAMES))
                print(json.dumps(record(count, cls, frame, template, number), ensure_ascii=False))
                count += 1
    for _ in range(args.per_class):
        template = rng.choice(EXT_FRAMES)
        print(
            json.dumps(
                record(count, "called-ext", "word", template, rng.choice("123456789") + d(rng, rng.choice([1, 2])))
            )
        )
        count += 1


if __name__ == "__main__":
    main()
