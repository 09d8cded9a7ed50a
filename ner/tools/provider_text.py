#!/usr/bin/env python3
"""Per-class recall check for values SHAPED as Presidio's synthetic generator emits them (docs/ner.md,
"Tuning without the test split", session 10), in frames written for this file only.

What is borrowed is the SHAPE of the values, from the generator's provider code (presidio-evaluator
0.3.2's `AddressProviderNew` formats and its type mapping, as tools/ner-heldout/presidio_synth.py
describes): a city, a state, a state abbreviation or a country alone is a location; an address is a
house number + street + unit + city + state/country + postcode over one to four lines (the
"\\n, ST\\n 12345" form included); a person is first + middle initial + last, with or without a
title, in lower case sometimes. What is NOT borrowed: its sentence templates (never read) and its
FakeNameGenerator records. The values come from Faker's own providers of the locales of the
countries such records cover (street lines like "Strojírenská 1006", towns like "Svratka"); the
sentences are this file's.

Labels follow the held-out corpus's conventions exactly (`to_veil` of presidio_synth.py is
imported): a run of location parts joined by spaces, commas and line breaks that holds a street
part is one `location`; without one, each city/state/country is its own span, a lone ZIP code is
ignored (neither true nor false).

Classes (one JSONL file each):
- `gpe`: a city, state, state abbreviation or country alone, at sentence start, in lists, after
  prepositions and verbs, "City, ST", "City, ST 12345", "City, Country";
- `address`: a postal address in one of the provider's forms, in prose or as a block;
- `person`: first + middle initial + last, a title before it, lower case, capitals;

  .venv-presidio/bin/python ner/tools/provider_text.py --count 300 --seed 3 --out /tmp/provider
  ner/.venv/bin/python ner/tools/dev_eval.py --only extra \\
      $(for f in /tmp/provider/*.jsonl; do echo --extra $f; done) [--errors location]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from faker import Faker

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools/ner-heldout"))
from presidio_synth import to_veil

# Faker locales of the countries FakeNameGenerator records come from (their street lines and towns).
LOCALES = {
    "en_US": "United States",
    "en_AU": "Australia",
    "de_AT": "Austria",
    "nl_BE": "Belgium",
    "pt_BR": "Brazil",
    "en_CA": "Canada",
    "cs_CZ": "Czech Republic",
    "da_DK": "Denmark",
    "et_EE": "Estonia",
    "fi_FI": "Finland",
    "fr_FR": "France",
    "de_DE": "Germany",
    "hu_HU": "Hungary",
    "is_IS": "Iceland",
    "it_IT": "Italy",
    "nl_NL": "Netherlands",
    "en_NZ": "New Zealand",
    "no_NO": "Norway",
    "pl_PL": "Poland",
    "pt_PT": "Portugal",
    "sl_SI": "Slovenia",
    "es_ES": "Spain",
    "sv_SE": "Sweden",
    "de_CH": "Switzerland",
    "en_GB": "United Kingdom",
}


class Parts:
    """Text built from pieces, each piece optionally a typed part (presidio_synth's kinds)."""

    def __init__(self) -> None:
        self.text = ""
        self.spans: list[tuple[str, int, int]] = []

    def add(self, value: str, kind: str | None = None) -> Parts:
        if kind:
            self.spans.append((kind, len(self.text), len(self.text) + len(value)))
        self.text += value
        return self


class Values:
    def __init__(self, rng: random.Random, seed: int) -> None:
        self.rng = rng
        self.us = Faker("en_US")
        self.us.seed_instance(seed)
        self.fakers: dict[str, Faker] = {}
        for index, locale in enumerate(LOCALES):
            fake = Faker(locale)
            fake.seed_instance(seed + 1 + index)
            self.fakers[locale] = fake

    def locale(self) -> str:
        # half the records American (the generator's own en_US fields), half from other countries
        return "en_US" if self.rng.random() < 0.45 else self.rng.choice(list(LOCALES)[1:])

    def record(self) -> dict[str, str]:
        locale = self.locale()
        fake = self.fakers[locale]
        state = (
            getattr(fake, "state", None)
            or getattr(fake, "administrative_unit", None)
            or getattr(fake, "region", None)
        )
        abbr = getattr(fake, "state_abbr", None) or getattr(fake, "province_abbr", None)
        return {
            "street": fake.street_address(),
            "street_name": fake.street_name(),
            "city": fake.city(),
            "state": state() if state else self.us.state(),
            "state_abbr": abbr() if abbr else self.us.state_abbr(),
            "country": LOCALES[locale],
            "zip": fake.postcode(),
            "first": fake.first_name(),
            "last": fake.last_name(),
            "prefix": self.rng.choice(["Mr.", "Mrs.", "Ms.", "Dr.", "Miss"]),  # the titles such records hold
        }

    def building_number(self) -> str:
        return self.us.building_number()

    def secondary(self) -> str:
        return self.us.secondary_address()

    def postcode(self) -> str:
        return self.us.postcode()


def _emit(parts: Parts, frame: str, fill) -> None:
    """Fill a frame "... {} ..." with one value builder."""
    before, after = frame.split("{}")
    parts.add(before)
    fill(parts)
    parts.add(after)


GPE_FRAMES = [
    "{} is where the conference will be held this year.",
    "We drove through {} on the way back.",
    "The new warehouse opens near {} next spring.",
    "Her parents still live outside {}.",
    "Shipping to {} takes about four days.",
    "I grew up around {} but moved away at eighteen.",
    "Is the store in {} open on Sundays?",
    "The claim was filed from {} last week.",
    "Offices: {}, plus a small team remote.",
    "Born and raised in {}, he never left.",
    "{}, that's where I'm based now.",
    "My sister just got a job in {} and loves it.",
    "Can you book a hotel close to {} for Tuesday?",
    "The package is stuck somewhere between here and {}.",
    "Last known location: {}",
    "Our clients are mostly based in {} these days.",
    "Home: {}",
    "They are relocating the team to {} in June.",
    "hey, are you still in {}?",
    "Weather in {} is terrible today.",
]


def gpe(parts: Parts, v: Values, rng: random.Random) -> None:
    rec = v.record()
    forms = [
        lambda p: p.add(rec["city"], "GPE"),
        lambda p: p.add(rec["state"], "GPE"),
        lambda p: p.add(rec["country"], "GPE"),
        lambda p: p.add(rec["city"], "GPE").add(", ").add(rec["state_abbr"], "GPE"),
        lambda p: (
            p.add(rec["city"], "GPE")
            .add(", ")
            .add(rec["state_abbr"], "GPE")
            .add(" ")
            .add(v.postcode(), "ZIP_CODE")
        ),
        lambda p: p.add(rec["city"], "GPE").add(", ").add(rec["country"], "GPE"),
        lambda p: p.add(rec["city"], "GPE").add(", ").add(rec["state"], "GPE"),
        lambda p: p.add(rec["state_abbr"], "GPE"),
    ]
    _emit(parts, rng.choice(GPE_FRAMES), rng.choice(forms))


def address_value(p: Parts, v: Values, rng: random.Random) -> None:
    """One address in one of the provider's forms, parts typed as the generator types them."""
    rec = v.record()
    number, unit = v.building_number(), v.secondary()
    # the provider's {{street_address}}: a house number before the record's street line, a unit
    # after it half the time ("637 Strojírenská 1006 Apt. 12")
    street = f"{v.building_number()} {rec['street']}" + (f" {v.secondary()}" if rng.random() < 0.5 else "")
    form = rng.randrange(11)
    if form == 0:
        p.add(number, "STREET_ADDRESS").add(" ").add(rec["street"], "STREET_ADDRESS").add(" ").add(
            unit, "STREET_ADDRESS"
        )
        p.add(" ").add(rec["city"], "GPE").add(" ").add(
            rng.choice([rec["state"], rec["state_abbr"], rec["country"]]), "GPE"
        )
    elif form in (1, 2):
        p.add(number, "STREET_ADDRESS").add(" ").add(rec["street"], "STREET_ADDRESS").add("\n ").add(
            unit, "STREET_ADDRESS"
        )
        p.add("\n ").add(rec["city"], "GPE").add("\n ").add(rec["country"], "GPE")
        if form == 2:
            p.add(" ").add(v.postcode(), "STREET_ADDRESS")
    elif form == 3:
        p.add(street, "STREET_ADDRESS").add(", ").add(rec["city"], "GPE").add(", ").add(rec["country"], "GPE")
    elif form == 4:
        p.add(street, "STREET_ADDRESS").add(" ").add(unit, "STREET_ADDRESS").add(", ").add(rec["city"], "GPE")
        p.add(", ").add(rec["country"], "GPE").add(" ").add(v.postcode(), "STREET_ADDRESS")
    elif form in (5, 6):
        p.add(street, "STREET_ADDRESS").add("\n").add(rec["city"], "GPE").add(", ").add(
            rec["state_abbr"], "GPE"
        )
        p.add(" ").add(v.postcode(), "STREET_ADDRESS")
    elif form in (7, 8):
        p.add(street, "STREET_ADDRESS").add("\n").add(rec["city"], "GPE").add("\n, ").add(
            rec["state_abbr"], "GPE"
        )
        p.add("\n ").add(v.postcode(), "STREET_ADDRESS")
    elif form == 9:
        p.add(street, "STREET_ADDRESS").add("\n").add(rec["city"], "GPE").add("\n, ").add(
            rec["state_abbr"], "GPE"
        )
        p.add("\n ").add(rec["country"], "GPE").add(" ").add(v.postcode(), "STREET_ADDRESS")
    else:
        p.add(rec["street"], "STREET_ADDRESS")


ADDRESS_FRAMES = [
    "Please ship the replacement to {} before Friday.",
    "My new address is {}.",
    "Ship to:\n{}\nThanks!",
    "The invoice went to {} by mistake.",
    "Return address: {}",
    "We moved to {} in March, please update the records.",
    "{}\nThat's the billing address on file.",
    "Can the courier pick it up at {}?",
    "Mail the signed copy to:\n{}",
    "The meeting is at {}, second floor.",
    "Delivery address\n{}\n\nLeave it at the door.",
    "I'm staying at {} until the end of the month.",
]


def address(parts: Parts, v: Values, rng: random.Random) -> None:
    _emit(parts, rng.choice(ADDRESS_FRAMES), lambda p: address_value(p, v, rng))


PERSON_FRAMES = [
    "{} called about the overdue invoice.",
    "Please forward this to {} when you get a chance.",
    "The account belongs to {}.",
    "Thanks,\n{}",
    "According to {}, the shipment left on time.",
    "I spoke with {} yesterday and she agreed.",
    "Attendees: {} and the finance team.",
    "Can you add {} to the mailing list?",
    "{} will present the results on Monday.",
    "Regards, {}",
    "The form was signed by {} in blue ink.",
    "hi, this is {}, I'm calling about my order",
]


def person_value(p: Parts, v: Values, rng: random.Random) -> None:
    rec = v.record()
    initial = rng.choice("ABCDEFGHJKLMNPRSTW")
    form = rng.randrange(6)
    if form == 0:
        name = f"{rec['first']} {rec['last']}"
    elif form == 1:
        name = f"{rec['first']} {initial}. {rec['last']}"
    elif form == 2:
        name = f"{rec['first']} {initial} {rec['last']}"
    elif form == 3:
        p.add(rec["prefix"], "TITLE").add(" ")
        name = f"{rec['first']} {rec['last']}"
    elif form == 4:
        name = f"{rec['first']} {rec['last']}".lower()
    else:
        name = rec["first"] if rng.random() < 0.5 else rec["last"]
    p.add(name, "PERSON")


def person(parts: Parts, v: Values, rng: random.Random) -> None:
    _emit(parts, rng.choice(PERSON_FRAMES), lambda p: person_value(p, v, rng))


FAMILIES = {"gpe": gpe, "address": address, "person": person}


def write_classes(description: str | None, families: dict, make_values) -> int:
    """The command line of a class check: one JSONL file of `--count` records per family, each
    family writing into a Parts from the values `make_values(rng, seed)` builds."""
    parser = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--count", type=int, default=300, help="records per class")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--out", type=Path, required=True, help="directory for one JSONL file per class")
    args = parser.parse_args()
    rng = random.Random(args.seed)  # noqa: S311 - reproducible synthetic text, not a secret
    values = make_values(rng, args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, family in families.items():
        with (args.out / f"{name}.jsonl").open("w", encoding="utf-8") as out:
            for index in range(args.count):
                parts = Parts()
                family(parts, values, rng)
                entities, ignored = to_veil(parts.text, parts.spans)
                record = {
                    "id": f"{name}-{index}",
                    "lang": "en",
                    "text": parts.text,
                    "entities": entities,
                    "ignored": ignored,
                }
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return 0


def main() -> int:
    return write_classes(__doc__, FAMILIES, Values)


if __name__ == "__main__":
    sys.exit(main())
