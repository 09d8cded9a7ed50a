#!/usr/bin/env python3
"""A second generalisation check for the recognition pipeline (docs/ner.md, "Tuning without the
test split"): Faker values of many locales in phrasings written for this file only (chat lines,
e-mail headers and sign-offs, support transcripts, forms, addresses in prose and in blocks),
labelled in Veil's conventions (`person`, `organization`, `location`; a postal address is one
`location`). Not the CHECK family's templates (ner/tools/synth_ner.py) and not the held-out corpora's.

Runs in a venv with Faker (tools/compare-presidio/venv.sh pins faker==40.54.0):
  .venv-presidio/bin/python ner/tools/own_text.py --count 600 --seed 5 > /tmp/own.jsonl
  ner/.venv/bin/python ner/tools/dev_eval.py --only extra --extra /tmp/own.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys

from faker import Faker

# Latin-script locales, English ones included (this set is never trained on; it checks rules).
LOCALES = [
    "en_GB",
    "en_AU",
    "en_CA",
    "en_IE",
    "en_NZ",
    "de_DE",
    "de_AT",
    "fr_FR",
    "es_ES",
    "es_MX",
    "it_IT",
    "nl_NL",
    "pt_BR",
    "pt_PT",
    "sv_SE",
    "da_DK",
    "no_NO",
    "fi_FI",
    "pl_PL",
    "cs_CZ",
    "hu_HU",
    "ro_RO",
    "tr_TR",
    "hr_HR",
]


class Text:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.entities: list[dict] = []
        self.length = 0

    def add(self, value: str, kind: str | None = None) -> Text:
        if kind:
            self.entities.append({"type": kind, "start": self.length, "end": self.length + len(value)})
        self.parts.append(value)
        self.length += len(value)
        return self


class Values:
    def __init__(self, rng: random.Random, seed: int) -> None:
        self.rng = rng
        self.fakers = {}
        for index, locale in enumerate(LOCALES):
            fake = Faker(locale)
            fake.seed_instance(seed + index)
            self.fakers[locale] = fake

    def fake(self) -> Faker:
        return self.fakers[self.rng.choice(LOCALES)]

    def case(self, value: str) -> str:
        roll = self.rng.random()
        return value.lower() if roll < 0.07 else value.upper() if roll < 0.12 else value

    def person(self) -> str:
        fake = self.fake()
        return self.case(f"{fake.first_name()} {fake.last_name()}")

    def first(self) -> str:
        return self.fake().first_name()

    def org(self) -> str:
        return self.fake().company()

    def city(self) -> str:
        return self.fake().city()

    def country(self) -> str:
        return self.fake().country()

    def street(self) -> str:
        return self.fake().street_address()

    def postcode(self) -> str:
        return self.fake().postcode()


def chat(t: Text, v: Values, rng: random.Random) -> None:
    t.add("[10:42] ").add(v.first(), "person").add(": landed in ").add(v.city(), "location")
    t.add(rng.choice([", heading to the hotel now", " finally", ", see you at dinner"]))


def headers(t: Text, v: Values, rng: random.Random) -> None:
    t.add("From: ").add(v.person(), "person").add("\nTo: ").add(v.person(), "person")
    t.add("\nSubject: visit to our ").add(v.city(), "location").add(" site\n\nSee you there.")


def transcript(t: Text, v: Values, rng: random.Random) -> None:
    t.add("Agent: how can I help?\nCaller: this is ").add(v.person(), "person")
    t.add(", I ordered from ").add(v.org(), "organization").add(" and it never arrived in ")
    t.add(v.city(), "location").add(".")


def form(t: Text, v: Values, rng: random.Random) -> None:
    t.add("Full name: ").add(v.person(), "person").add("\nEmployer: ").add(v.org(), "organization")
    t.add("\nCity of birth: ").add(v.city(), "location")


def prose_address(t: Text, v: Values, rng: random.Random) -> None:
    fake = v.fake()
    t.add("Please forward my post to ")
    t.add(f"{fake.street_address()}, {fake.postcode()} {fake.city()}", "location")
    t.add(rng.choice([" from Monday on.", " until further notice.", ", thanks!"]))


def block_address(t: Text, v: Values, rng: random.Random) -> None:
    fake = v.fake()
    t.add(v.person(), "person").add("\n")
    t.add(f"{fake.street_address()}\n{fake.postcode()} {fake.city()}\n{fake.current_country()}", "location")
    t.add("\n")


def travel(t: Text, v: Values, rng: random.Random) -> None:
    t.add(rng.choice(["We drove from ", "The team flew out of ", "My cousin just moved from "]))
    t.add(v.city(), "location").add(" to ").add(v.city(), "location").add(rng.choice([".", " last week."]))


def signoff(t: Text, v: Values, rng: random.Random) -> None:
    t.add("Thanks for the quick turnaround.\n\nKind regards,\n").add(v.person(), "person")
    t.add("\n").add(v.org(), "organization")


def mention(t: Text, v: Values, rng: random.Random) -> None:
    t.add("cc ").add(v.person(), "person").add(rng.choice([" can you check the invoice?", " FYI"]))


def meeting(t: Text, v: Values, rng: random.Random) -> None:
    t.add("Minutes: ").add(v.person(), "person").add(" and ").add(v.person(), "person")
    t.add(" met the ").add(v.org(), "organization").add(" delegation in ").add(v.city(), "location").add(".")


def country_move(t: Text, v: Values, rng: random.Random) -> None:
    t.add(v.first(), "person").add(" is relocating to ").add(v.country(), "location").add(" in spring.")


def negative(t: Text, v: Values, rng: random.Random) -> None:
    t.add(
        rng.choice(
            [
                "Can you explain how a Kubernetes operator reconciles state?",
                "Write a haiku about autumn leaves.",
                "Convert this JSON to YAML and keep the comments.",
                "What is the difference between TCP and UDP?",
                "Summarise the release notes for version 4.2 in three bullet points.",
            ]
        )
    )


TEMPLATES = [
    chat,
    headers,
    transcript,
    form,
    prose_address,
    block_address,
    travel,
    signoff,
    mention,
    meeting,
    country_move,
    negative,
]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--count", type=int, default=600)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    os.environ.setdefault("PYTHONHASHSEED", "0")
    rng = random.Random(args.seed)  # noqa: S311 - reproducible synthetic text, not a secret
    values = Values(rng, args.seed)
    for index in range(args.count):
        text = Text()
        TEMPLATES[index % len(TEMPLATES)](text, values, rng)
        record = {"id": f"own-{index}", "lang": "en", "text": "".join(text.parts), "entities": text.entities}
        sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
