#!/usr/bin/env python3
"""Per-class location check, session 11 (docs/ner.md, "Tuning without the test split"): places in
positions and address forms that provider_text.py does not write, in frames written for this file.

What is borrowed from presidio-evaluator 0.3.2 is only the SHAPE of its values (provider code and
type mapping, never its sentence templates or its FakeNameGenerator records): a city, a state or a
country alone is a location; Faker en_US's `country()` (the world list, "Holy See (Vatican City
State)", "Cote d'Ivoire") fills the country of an address; `AddressProviderNew` also writes two
forms the earlier checks lack, a record's street line followed by a second street name on the
same line ("ul. Nad Jarem 22 Petheö Canyon\\n Suite 732\\n Gdańsk\\n Poland 65423") and a first name
joined to a street line by "and" ("Monika and Turjaška 48": the whole is one address). The values
come from Faker's providers of the locales of provider_text.py and from the sidecar's own place
list (real towns, title-cased); labels from presidio_synth.py's `to_veil`.

Classes (one JSONL file each):
- `lone`: a city, state/region or country alone in positions the place rules do not read yet
  (sentence start before a verb, after "from", "to", "through", "around", "outside", "near",
  "between ... and", in lists, possessives, "X-based", field values);
- `world`: the world country list alone, in the same frames;
- `forms`: the two address forms above, in prose and as blocks;
- `negatives`: the same frames around words that are not places (products, people's roles,
  everyday capitalized words), so a rule that reads these positions shows its false places.

  .venv-presidio/bin/python ner/tools/gpe_text.py --count 300 --seed 3 --out /tmp/gpe3
  ner/.venv/bin/python ner/tools/dev_eval.py --only extra \\
      $(for f in /tmp/gpe3/*.jsonl; do echo --extra $f; done) [--errors location]
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from faker import Faker

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parents[2] / "tools/ner-heldout"))
sys.path.insert(0, str(HERE.parent))

from provider_text import Parts, Values, _emit, write_classes  # noqa: E402

PLACES = HERE.parents[1] / "src/veil_ner/data/places.txt"

LONE_FRAMES = [
    "{} was the first stop on the tour.",
    "We flew back from {} on Sunday night.",
    "The shipment to {} left this morning.",
    "She commutes between home and {} every week.",
    "Driving through {} took longer than expected.",
    "They spent the summer around {} with the kids.",
    "The farm lies just outside {}.",
    "Any good restaurants near {}?",
    "I visited {} twice last year.",
    "{}'s new mayor starts next month.",
    "We have teams in {} and a few people remote.",
    "The event moved from {} to a bigger venue.",
    "Where exactly is {}? I have never heard of it.",
    "Our {}-based supplier raised prices again.",
    "Traffic in {} is awful on Fridays.",
    "City: {}",
    "Ship from {}, arrives in three days.",
    "He ran the marathon in {} in under four hours.",
    "Greetings from sunny {}!",
    "The train to {} is delayed by 20 minutes.",
]

NEGATIVE_VALUES = [
    "Kubernetes",
    "Monday",
    "Excel",
    "Python",
    "Marketing",
    "Finance",
    "Chrome",
    "Docker",
    "Slack",
    "the server",
    "Legal",
    "Sales",
    "Support",
    "Jenkins",
    "Terraform",
    "Outlook",
]


def _title(name: str) -> str:
    return " ".join(w[:1].upper() + w[1:] for w in name.split(" "))


class Places:
    def __init__(self, rng: random.Random, seed: int) -> None:
        self.rng = rng
        self.values = Values(rng, seed)
        self.us = Faker("en_US")
        self.us.seed_instance(seed + 100)
        rows = [
            line.strip()
            for line in PLACES.read_text(encoding="utf-8").splitlines()
            if line and not line.startswith("#")
        ]
        # real towns, as the records' cities are: Latin-script one- or two-word names
        self.towns = [
            _title(r) for r in rows if r.replace(" ", "").isalpha() and r.count(" ") <= 1 and len(r) > 3
        ]

    def lone(self) -> str:
        rec = self.values.record()
        pick = self.rng.random()
        if pick < 0.35:
            return rec["city"]
        if pick < 0.55:
            return self.rng.choice(self.towns)
        if pick < 0.8:
            return rec["state"]
        return rec["country"]

    def world(self) -> str:
        return self.us.country()


def lone(parts: Parts, places: Places, rng: random.Random) -> None:
    _emit(parts, rng.choice(LONE_FRAMES), lambda p: p.add(places.lone(), "GPE"))


def world(parts: Parts, places: Places, rng: random.Random) -> None:
    _emit(parts, rng.choice(LONE_FRAMES), lambda p: p.add(places.world(), "GPE"))


FORM_FRAMES = [
    "Please send the documents to {} by Friday.",
    "Our new office is at {}",
    "Deliver to:\n{}\n\nCall on arrival.",
    "The address on the lease is {}, as far as I know.",
    "{}\nThat is where the parcel should go.",
    "We met at {} for coffee.",
]


def form_value(p: Parts, places: Places, rng: random.Random) -> None:
    v = places.values
    rec = v.record()
    if rng.random() < 0.5:
        # a record's street line, then a second street name on the same line, unit, town, country
        second = places.us.street_name()
        p.add(rec["street"], "STREET_ADDRESS").add(" ").add(second, "STREET_ADDRESS")
        p.add("\n ").add(v.secondary(), "STREET_ADDRESS").add("\n ").add(rec["city"], "GPE")
        country = rec["country"] if rng.random() < 0.6 else places.world()
        p.add("\n ").add(country, "GPE").add(" ").add(v.postcode(), "STREET_ADDRESS")
    else:
        # a first name joined to a street line by "and"
        p.add(rec["first"], "STREET_ADDRESS").add(" and ").add(rec["street"], "STREET_ADDRESS")


def forms(parts: Parts, places: Places, rng: random.Random) -> None:
    frame = rng.choice(FORM_FRAMES)
    before, after = frame.split("{}")
    parts.add(before)
    start = len(parts.text)
    form_value(parts, places, rng)
    # the generator types the whole "X and street" value as one street address
    if parts.text[start:].count(" and ") and len(parts.spans) >= 2 and "\n" not in parts.text[start:]:
        parts.spans[-2:] = [("STREET_ADDRESS", start, len(parts.text))]
    parts.add(after)


def negatives(parts: Parts, places: Places, rng: random.Random) -> None:
    _emit(parts, rng.choice(LONE_FRAMES), lambda p: p.add(rng.choice(NEGATIVE_VALUES)))


FAMILIES = {"lone": lone, "world": world, "forms": forms, "negatives": negatives}


def main() -> int:
    return write_classes(__doc__, FAMILIES, Places)


if __name__ == "__main__":
    sys.exit(main())
