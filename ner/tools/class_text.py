#!/usr/bin/env python3
"""Per-class recall and false-positive checks for the recognition pipeline (docs/ner.md, "Tuning
without the test split"): one small file per class of miss, in phrasings written for this file only
(not the CHECK family's of synth_ner.py, not own_text.py's, not the held-out corpora's), so a rule
for one class is measured on that class and its look-alikes alone.

Classes (each a JSONL file in Veil's conventions, `person`/`organization`/`location`; a postal
address and a street intersection are one `location`):
- `last_first`: "Last, First" names in rosters, forms and filings ("Kowalski, Anna");
- `corner`: intersections ("the corner of Elm Street and Ruiz Avenue", "Oak and Main streets");
- `fragments`: address fragments named alone (a street without a number, a county, a district,
  a postcode + city);
- `positions`: names NO list knows (made by splicing two known first names or surnames, kept only
  when neither list nor the model's vocabulary knows the result) where only a person fits:
  subject of a person verb, "thanks to X", "Dear X", "X's mother", after a title or role noun;
- `cased`: names in lower case and in capitals in chat;
- `places_prep`: towns no list knows (Faker city names filtered against the gazetteers) after
  "from", "to", "via", "visiting";
- `negatives`: the same frames around things that are not names (products, roles, objects), for
  false positives (no entities).

Runs in a venv with Faker (tools/compare-presidio/venv.sh) and reads the pipeline's own lists:
  .venv-presidio/bin/python ner/tools/class_text.py --count 120 --seed 3 --out /tmp/classes
  ner/.venv/bin/python ner/tools/dev_eval.py --only extra \\
      $(for f in /tmp/classes/*.jsonl; do echo --extra $f; done)
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from faker import Faker

from own_text import Text  # the same text-with-spans builder (run from ner/tools)

DATA = Path(__file__).resolve().parents[1] / "src/veil_ner/data"
LOCALES = ["en_GB", "en_AU", "en_US", "de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL", "pt_PT", "pl_PL", "sv_SE"]


def _lines(name: str) -> frozenset[str]:
    text = (DATA / f"{name}.txt").read_text(encoding="utf-8")
    return frozenset(line for line in text.splitlines() if line and not line.startswith("#"))


class Values:
    def __init__(self, rng: random.Random, seed: int) -> None:
        self.rng = rng
        self.fakers = []
        for index, locale in enumerate(LOCALES):
            fake = Faker(locale)
            fake.seed_instance(seed + index)
            self.fakers.append(fake)
        self.first_names = _lines("first_names")
        self.last_names = _lines("last_names")
        self.known_places = _lines("places") | _lines("towns")

    def fake(self) -> Faker:
        return self.rng.choice(self.fakers)

    def first(self) -> str:
        return self.fake().first_name()

    def last(self) -> str:
        return self.fake().last_name()

    def person(self) -> str:
        return f"{self.first()} {self.last()}"

    def spliced(self, known: frozenset[str], draw) -> str:
        """A name no list knows: the head of one name glued to the tail of another."""
        for _ in range(200):
            a, b = draw(), draw()
            if " " in a or " " in b or len(a) < 4 or len(b) < 4:
                continue
            word = a[: len(a) // 2 + 1] + b[len(b) // 2 :]
            if word.casefold() not in known and word.casefold() not in self.first_names | self.last_names:
                return word
        return "Quorvana"

    def unknown_first(self) -> str:
        return self.spliced(self.first_names, self.first)

    def unknown_last(self) -> str:
        return self.spliced(self.last_names, self.last)

    def unknown_person(self) -> str:
        return f"{self.unknown_first()} {self.unknown_last()}"

    def street_name(self) -> str:
        fake = self.rng.choice(self.fakers[:3])  # English street names: "Morris Street"
        return fake.street_name()

    def unknown_city(self) -> str:
        for _ in range(200):
            city = self.fake().city()
            if city.casefold() not in self.known_places and " " not in city:
                return city
        return "Vrelnica"


def last_first(t: Text, v: Values, rng: random.Random) -> None:
    form = rng.randrange(5)
    if form == 0:
        t.add("Patient: ").add(f"{v.last()}, {v.first()}", "person").add("\nWard: 4B")
    elif form == 1:
        t.add("Attendees: ").add(f"{v.last()}, {v.first()}", "person").add("; ")
        t.add(f"{v.last()}, {v.first()}", "person").add(rng.choice(["", "; guests welcome"]))
    elif form == 2:
        t.add("The claim is filed under ").add(f"{v.last()}, {v.first()}", "person").add(".")
    elif form == 3:
        t.add("Signed: ").add(f"{v.last().upper()}, {v.first()}", "person")
    else:
        t.add("Name (last, first): ").add(f"{v.last()}, {v.first()}", "person")


def corner(t: Text, v: Values, rng: random.Random) -> None:
    form = rng.randrange(4)
    if form == 0:
        t.add("Meet me at the corner of ").add(f"{v.street_name()} and {v.street_name()}", "location")
        t.add(rng.choice([".", " at six.", ", by the bakery."]))
    elif form == 1:
        t.add("The accident happened on the corner of ")
        t.add(f"{v.street_name()} & {v.street_name()}", "location").add(" last night.")
    elif form == 2:
        a, b = v.last(), v.last()
        t.add("The shop sits at ").add(f"{a} and {b} streets", "location").add(", next to the bank.")
    else:
        t.add("We live near the intersection of ").add(f"{v.street_name()} and {v.street_name()}", "location")
        t.add(".")


def fragments(t: Text, v: Values, rng: random.Random) -> None:
    form = rng.randrange(5)
    if form == 0:
        t.add("She has a flat on ").add(v.street_name(), "location").add(" now.")
    elif form == 1:
        t.add("He works for the sheriff of ").add(f"{v.last()} County", "location").add(".")
    elif form == 2:
        fake = v.fake()
        t.add("Please ship it to ").add(f"{fake.postcode()} {fake.city()}", "location")
        t.add(", not the office.")
    elif form == 3:
        t.add("Our new house is on ").add(v.street_name(), "location").add(", two doors from the school.")
    else:
        t.add("The parcel went to ").add(f"{v.last()} County", "location").add(" instead.")


def positions(t: Text, v: Values, rng: random.Random) -> None:
    form = rng.randrange(10)
    name = v.unknown_person() if rng.random() < 0.5 else v.unknown_first()
    if form == 0:
        t.add(name, "person").add(rng.choice([" said the report was late.", " wrote back on Friday."]))
    elif form == 1:
        t.add(name, "person").add(" asked whether the refund had gone through.")
    elif form == 2:
        t.add(name, "person").add(" was born in a small village by the sea.")
    elif form == 3:
        t.add("The move went smoothly thanks to ").add(name, "person").add(".")
    elif form == 4:
        t.add("Dear ").add(name, "person").add(",\nyour order has shipped.")
    elif form == 5:
        t.add("I met ").add(v.unknown_first(), "person").add("'s mother at the station.")
    elif form == 6:
        t.add(rng.choice(["Dr. ", "Professor ", "Prof. "])).add(name, "person").add(" will see you at ten.")
    elif form == 7:
        t.add(rng.choice(["Our attorney ", "My colleague ", "My lawyer ", "Her doctor "]))
        t.add(name, "person").add(" sent the papers.")
    elif form == 8:
        t.add("I spoke with ").add(name, "person").add(" about the lease yesterday.")
    else:
        t.add("Please forward this to ").add(name, "person").add(" when you can.")


def cased(t: Text, v: Values, rng: random.Random) -> None:
    name = v.person()
    name = name.lower() if rng.random() < 0.6 else name.upper()
    form = rng.randrange(3)
    if form == 0:
        t.add("hey, it's ").add(name, "person").add(" again, any news on my ticket?")
    elif form == 1:
        t.add("please add ").add(name, "person").add(" to the guest list")
    else:
        t.add("ATTN: ").add(name, "person") if name.isupper() else t.add("cc ").add(name, "person")


def places_prep(t: Text, v: Values, rng: random.Random) -> None:
    form = rng.randrange(4)
    if form == 0:
        t.add("The train from ").add(v.unknown_city(), "location").add(" was late again.")
    elif form == 1:
        t.add("We are driving to ").add(v.unknown_city(), "location").add(" tomorrow.")
    elif form == 2:
        t.add("The parcel came via ").add(v.unknown_city(), "location").add(", oddly.")
    else:
        t.add("I'm visiting ").add(v.unknown_city(), "location").add(" next week with my kids.")


NEGATIVES = [
    "Meet me at the corner of the hall and the kitchen.",
    "The corner of the table and the wall is chipped.",
    "The release went smoothly thanks to Kubernetes.",
    "Thanks to Redis, the cache hit rate doubled.",
    "Everyone said the build was flaky.",
    "Support wrote back on Friday.",
    "Python was born in 1991.",
    "Dear Sir or Madam,\nyour order has shipped.",
    "Professor of Physics at the university.",
    "Our attorney general sent the papers.",
    "Migrate from MySQL to PostgreSQL via pgloader.",
    "I'm visiting Grafana dashboards every morning.",
    "The request goes from Nginx to Gunicorn via a socket.",
    "Convert the file from JSON to YAML.",
    "Add Terraform to the pipeline please.",
    "The function's return type is wrong.",
    "Docker's daemon restarted twice.",
    "Alice and Bob streets are a classic cryptography example.",
    "Smith, J. (2020). Deep learning. Journal of Things.",
    "Last, First is the format the form expects.",
    "It runs on Main Street software.",
    "cc the team on the invoice",
    "please add error handling to the parser",
    "Check the county records and the district map.",
]


def negatives(t: Text, v: Values, rng: random.Random) -> None:
    t.add(rng.choice(NEGATIVES))


FAMILIES = {
    "last_first": last_first,
    "corner": corner,
    "fragments": fragments,
    "positions": positions,
    "cased": cased,
    "places_prep": places_prep,
    "negatives": negatives,
}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--count", type=int, default=120, help="records per class")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--out", type=Path, required=True, help="directory for one JSONL file per class")
    args = parser.parse_args()
    rng = random.Random(args.seed)  # noqa: S311 - reproducible synthetic text, not a secret
    values = Values(rng, args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, family in FAMILIES.items():
        with (args.out / f"{name}.jsonl").open("w", encoding="utf-8") as out:
            for index in range(args.count):
                text = Text()
                family(text, values, rng)
                record = {
                    "id": f"{name}-{index}",
                    "lang": "en",
                    "text": "".join(text.parts),
                    "entities": text.entities,
                }
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
