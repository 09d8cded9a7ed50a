#!/usr/bin/env python3
"""Own wordings for session 16 (wave15/ner): locations and organizations in frames written for this
file only, with values from Faker's providers of many locales (city, state/region, country, street
line, company) and negatives in the same frames, so that a rule is measured on both sides.

Nothing here comes from a held-out record or from the generator's sentence templates; only the
value SHAPES follow tools/ner-heldout/presidio_synth.py's conventions (a city, a state or a country
alone is one `location`; a street line with its town is one `location`; a company is one
`organization`).

Classes (one JSONL file each, Veil-typed, for ner/tools/dev_eval.py `--extra`):
- `place`: a city, region, country or street line in prose frames (after verbs, prepositions,
  "based in", lists, field values, a parenthesis, sentence start);
- `org`: a company in prose frames (employer, counterparty, subject of a verb, signature line);
- `neg`: the org and place frames around values that are neither (job titles, product names,
  departments, everyday capitalized words): every name span found here is a false positive.

  .venv-presidio/bin/python ner/tools/ner16_text.py --count 600 --seed 16 --out /tmp/ner16/own16
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from faker import Faker

LOCALES = (
    "en_US", "en_GB", "en_AU", "en_CA", "en_NZ", "de_DE", "de_AT", "de_CH", "fr_FR", "it_IT",
    "es_ES", "pt_PT", "pt_BR", "nl_NL", "nl_BE", "da_DK", "no_NO", "sv_SE", "fi_FI", "pl_PL",
    "cs_CZ", "hu_HU", "sl_SI", "et_EE", "is_IS",
)  # fmt: skip

PLACE_FRAMES = (
    "{} is where our warehouse is.",
    "Shipping to {} usually takes three days.",
    "Our team in {} will handle the audit.",
    "The branch at {} closes at five.",
    "Customer address: {}",
    "Location: {}",
    "They relocated the plant from {} last year.",
    "The flight to {} was delayed again.",
    "Send the samples to our lab in {}, please.",
    "We drove through {} on the way home.",
    "Weather alert for {} tonight.",
    "Her new job is based in {}.",
    "The courier picked it up near {} this morning.",
    "I stayed at a small hotel outside {} for a week.",
    "Offices: London, {} and Madrid.",
    "The headquarters moved to {}.",
    "Ticket from {} to Berlin, one way.",
    "Delivery address is {} (ring twice).",
    "Visiting {} next month for the trade fair.",
    "The rally in {} drew thousands.",
)
ORG_FRAMES = (
    "I work at {} as an analyst.",
    "The contract with {} expires in March.",
    "{} announced record profits this quarter.",
    "We received an invoice from {} yesterday.",
    "Employer: {}",
    "She joined {} after graduating.",
    "Our supplier {} raised prices again.",
    "The merger between {} and a rival was blocked.",
    "Please call {} support about the outage.",
    "Best regards,\nJohn\n{}",
    "He left {} in 2019.",
    "Shares of {} fell sharply.",
    "The grant was funded by {}.",
    "A spokesperson for {} declined to comment.",
    "Company: {}",
)
NEG_VALUES = (
    "Senior Analyst", "Account Manager", "Human Resources", "Customer Success", "Quality Assurance",
    "Product Owner", "Data Engineering", "Head of Sales", "Marketing", "Finance", "Legal",
    "Premium Plan", "Pro Max", "Starter Kit", "Gold Membership", "Express Delivery", "Annual Report",
    "Board Meeting", "Terms of Service", "Privacy Policy", "Monday", "Christmas", "Spring Sale",
    "Black Friday", "Release Notes", "Team Lead", "the Sales Team", "IT Support", "Help Desk",
    "Research and Development", "Operations", "Procurement", "the Board", "Accounts Payable",
)  # fmt: skip


def faker_for(rng: random.Random, fakers: dict[str, Faker]) -> Faker:
    return fakers[rng.choice(LOCALES)]


def place_value(rng: random.Random, fake: Faker) -> str:
    kind = rng.random()
    if kind < 0.45:
        return fake.city()
    if kind < 0.6:
        unit = (
            getattr(fake, "state", None)
            or getattr(fake, "administrative_unit", None)
            or getattr(fake, "region", None)
        )
        return unit() if unit else fake.city()
    if kind < 0.75:
        return fake.country()
    if kind < 0.88:
        return f"{fake.city()}, {fake.country()}"
    return f"{fake.street_address()}, {fake.city()}"


def fill(frame: str, value: str, kind: str) -> dict:
    start = frame.index("{}")
    text = frame.replace("{}", value, 1)
    entities = [] if kind == "neg" else [{"type": kind, "start": start, "end": start + len(value)}]
    if kind == "location" and ", " in value and not any(ch.isdigit() for ch in value):
        # a city and its country without a street line: two places (presidio_synth's to_veil)
        comma = start + value.index(", ")
        entities = [
            {"type": kind, "start": start, "end": comma},
            {"type": kind, "start": comma + 2, "end": start + len(value)},
        ]
    return {"text": text, "entities": entities, "frame": frame}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=600)
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    rng = random.Random(args.seed)  # noqa: S311 - reproducible test text, not a secret
    fakers = {}
    for index, locale in enumerate(LOCALES):
        fake = Faker(locale)
        fake.seed_instance(args.seed + index)
        fakers[locale] = fake
    args.out.mkdir(parents=True, exist_ok=True)
    rows: dict[str, list[dict]] = {"place": [], "org": [], "neg": []}
    for _ in range(args.count):
        value = place_value(rng, faker_for(rng, fakers))
        if value.startswith(("the ", "The ")):
            continue
        rows["place"].append(fill(rng.choice(PLACE_FRAMES), value, "location"))
        rows["org"].append(fill(rng.choice(ORG_FRAMES), faker_for(rng, fakers).company(), "organization"))
        frame = rng.choice(PLACE_FRAMES + ORG_FRAMES)
        rows["neg"].append(fill(frame, rng.choice(NEG_VALUES), "neg"))
    for name, items in rows.items():
        with (args.out / f"{name}.jsonl").open("w", encoding="utf-8") as handle:
            for row in items:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
