#!/usr/bin/env python3
"""Phone numbers as people type them (session 18, wave17/phone; issue 18 items 1-2).

Independent of Veil's code: valid numbers of every Faker locale (libphonenumber's national and
international prints, so the digit groups are the plan's own), re-typed as people do:
- `mixed`: more than one kind of separator inside one number (`020-7946 0958`, `06.12 34-56 78`,
  `+1 (415) 555.0199`);
- `keyboard:<name>`: one separator other keyboards and typesetting put between the groups (middle
  dot, slash, narrow no-break space, thin space, en dash, non-breaking hyphen);
- `short`: 4-5 digit extensions and local numbers right after a phone word (`ext. 4587`,
  `call 5-0199 inside the office`, `Tel. 2 34 56`); bare short numbers are non_phones.py's.
Each long number is placed in a sentence frame with a phone word (`word`) and in one without
(`bare`), as generate.py does. Output: JSONL {id, class, locale, source, frame, text, start, end}
(code-point offsets); count with count.mjs (`--key source`).
Usage: .venv-presidio/bin/python tools/phone-formats/human.py [--seed 18] [--per-locale 3] > /tmp/ph.jsonl
"""

import argparse
import json
import random
import re

import phonenumbers
from faker import Faker
from faker.config import AVAILABLE_LOCALES
from generate import BARE, NAMES, WORD, case_record

KEYBOARD = {
    "middle-dot": "\u00b7",
    "slash": "/",
    "narrow-nbsp": "\u202f",
    "thin-space": "\u2009",
    "en-dash": "\u2013",
    "nb-hyphen": "\u2011",
}
MIXABLE = [" ", "-", "."]
SHORT_WORD = [
    "ext. {p}",
    "Dial ext. {p} for support.",
    "call {p} inside the office",
    "Tel. {p}",
    "extension {p}",
    "My extension is {p}.",
    "Phone: {p}",
    "Durchwahl {p}",
    "Call me on {p} when you are in the building.",
    "For the help desk dial {p}.",
]
SHORT_SHAPES = ["####", "#####", "#-####", "# ## ##", "## ##", "##-###", "## ###"]


def valid_numbers(rng: random.Random, per_locale: int):
    """(locale, national groups, international print) of valid numbers of each locale's region."""
    for locale in AVAILABLE_LOCALES:
        region = locale.split("_")[-1] if "_" in locale else None
        if region is None:
            continue
        fake = Faker(locale)
        fake.seed_instance(rng.randint(0, 2**31))
        if not hasattr(fake, "phone_number"):
            continue
        found = 0
        for _ in range(per_locale * 6):
            if found == per_locale:
                break
            try:
                parsed = phonenumbers.parse(fake.phone_number(), region)
            except phonenumbers.NumberParseException:
                continue
            if not phonenumbers.is_valid_number(parsed):
                continue
            national = phonenumbers.format_number(parsed, phonenumbers.PhoneNumberFormat.NATIONAL)
            international = phonenumbers.format_number(parsed, phonenumbers.PhoneNumberFormat.INTERNATIONAL)
            groups = re.findall(r"\d+", national)
            if len(groups) < 3 or not re.fullmatch(r"[\d ()\-./]+", national):
                continue  # mixing needs three groups at least
            found += 1
            yield locale, groups, re.findall(r"\d+", international)


def mixed(rng: random.Random, groups: list[str], plus: bool) -> str:
    while True:
        seps = [rng.choice(MIXABLE) for _ in groups[1:]]
        if len(set(seps)) > 1:
            break
    out = ("+" if plus else "") + groups[0]
    for sep, group in zip(seps, groups[1:], strict=True):
        out += sep + group
    return out


def typed(groups: list[str], sep: str, plus: bool) -> str:
    return ("+" if plus else "") + sep.join(groups)


def short_number(rng: random.Random) -> str:
    shape = rng.choice(SHORT_SHAPES)
    first = True
    out = ""
    for ch in shape:
        if ch == "#":
            out += rng.choice("123456789" if first else "0123456789")
            first = False
        else:
            out += ch
    return out


def record(count, cls, locale, source, frame, template, number):
    return case_record("ph", count, cls, locale, source, frame, template, number)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--per-locale", type=int, default=3)
    parser.add_argument("--short", type=int, default=200)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    numbers = []
    for locale, national, international in valid_numbers(rng, args.per_locale):
        numbers.append(("mixed", locale, "mixed-national", mixed(rng, national, False)))
        numbers.append(("mixed", locale, "mixed-international", mixed(rng, international, True)))
        for kind, groups, plus in (("national", national, False), ("international", international, True)):
            name = rng.choice(sorted(KEYBOARD))
            numbers.append((f"keyboard:{name}", locale, f"keyboard-{kind}:{name}", typed(groups, KEYBOARD[name], plus)))
    count = 0
    for cls, locale, source, number in numbers:
        for frame, frames in (("word", WORD), ("bare", BARE)):
            template = rng.choice(frames).replace("{n}", rng.choice(NAMES))
            print(json.dumps(record(count, cls, locale, source, frame, template, number), ensure_ascii=False))
            count += 1
    for _ in range(args.short):
        template = rng.choice(SHORT_WORD)
        number = short_number(rng)
        print(json.dumps(record(count, "short", "", "short", "word", template, number), ensure_ascii=False))
        count += 1


if __name__ == "__main__":
    main()
