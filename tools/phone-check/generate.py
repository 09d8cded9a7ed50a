#!/usr/bin/env python3
"""Phone check set for detection in running text (issue 18 item 7), independent of Veil's code.

Positives: Faker phone numbers of EVERY locale Faker ships, in the locale's own national formats
and, where the phonenumbers package parses them for the locale's region, in international
format, placed in this file's sentences. Two families: `bare` sentences without any phone word
(lists, signatures, tables, CSV, a number in parentheses after a name, "ask X on N") and `verb`
sentences with the chat verbs people use ("call", "text", "reach ... at"). Negatives: random
dates, times, versions, amounts, order/invoice/tracking ids, ISBNs, coordinates, postcodes,
ranges, page numbers and code, none of them a phone number.

Output: JSONL in eval-corpus.ts's format (code-point offsets; `negative` records carry no
entities), scored with
  npx tsx server/src/bench/eval-corpus.ts data/... --types phone --errors 40
Usage: .venv-presidio/bin/python tools/phone-check/generate.py [--seed 7] [--per-locale 6] > out.jsonl
"""

import argparse
import json
import random

import phonenumbers
from faker import Faker
from faker.config import AVAILABLE_LOCALES

NAMES = ["Ana Souza", "Jonas Berg", "Mei Tanaka", "Omar Haddad", "Lena Fischer", "Tom Reyes", "Ilse Vos", "Raj Patel"]
CITIES = ["Lyon", "Porto", "Gdansk", "Tartu", "Cork", "Bergen", "Graz", "Malmo"]

# {p} is the phone number, {n}/{m} names, {c} a city. No phone word in BARE.
BARE = [
    "Best regards,\n{n}\n{p}",
    "{n} ({p}) will bring the slides on Monday.",
    "name,city,number\n{n},{c},{p}",
    "| {n} | {c} | {p} |",
    "Ask {n} on {p} before Friday.",
    "If the server room floods, {p} is who to wake up.",
    "{n} - {p}",
    "Our office in {c}: {p}, open 9 to 5.",
    "Emergency numbers for the trip: {n} {p}; {m} {p2}",
    "You can get hold of {n} at {p} most afternoons.",
    "{n}, {c}\n{p}\n",
    "Pass this on to {m}: {n} {p}",
]
VERB = [
    "Call {n} at {p} if the delivery is late.",
    "Text {p} when you land in {c}.",
    "You can reach {n} at {p}.",
    "Please ring {p} after 6 pm.",
]


def digits(rng, count, first="123456789"):
    return rng.choice(first) + "".join(rng.choice("0123456789") for _ in range(count - 1))


def negatives(rng):
    """Yield (text) of numbers that are not phone numbers, in sentences without phone words."""
    d = lambda count, first="123456789": digits(rng, count, first)  # noqa: E731
    z = lambda count: digits(rng, count, "0123456789")  # noqa: E731
    ri = rng.randint
    hm = lambda: f"{ri(0, 23):02d}:{ri(0, 59):02d}"  # noqa: E731
    coord = lambda places: f"{rng.uniform(-80, 80):.{places}f}"  # noqa: E731
    year = lambda: str(ri(1950, 2035))  # noqa: E731
    day = lambda: f"{ri(1, 28):02d}"  # noqa: E731
    month = lambda: f"{ri(1, 12):02d}"  # noqa: E731
    yield f"The contract started on {day()}.{month()}.{year()} and ends on {year()}-{month()}-{day()}."
    yield f"Meeting moved to {day()}/{month()}/{year()} at {hm()}."
    yield f"Logged at {year()}-{month()}-{day()} {hm()}:{ri(0, 59):02d}"
    yield f"Dates: {day()} {month()} {year()}, {day()}-{month()}-{year()}"
    yield f"Upgrade from {ri(1, 20)}.{ri(0, 30)}.{ri(0, 300)} to {ri(1, 20)}.{ri(0, 30)}.{ri(0, 9999)}."
    yield f"Build {ri(1, 9)}.{ri(0, 99)}.{ri(1000, 99999)}.{ri(0, 999)} is out."
    yield f"The budget is {ri(1, 999)} {z(3)} {z(3)} EUR this year."
    yield f"Revenue rose to ${ri(1, 999)},{z(3)},{z(3)} in {year()}."
    yield f"Total: {ri(1, 99)}.{z(3)}.{z(3)},{ri(10, 99)} €"
    yield f"Population {ri(1, 99)} {z(3)} {z(3)} (census {year()})."
    yield f"Order {d(3)}-{z(7)}-{z(7)} shipped; invoice INV-{year()}-{z(5)}."
    yield f"Your order number {d(9)} has shipped."
    yield f"Tracking: 1Z{d(3)}AA{z(10)}, parcel {d(4)} {z(4)} {z(4)} {z(2)}."
    yield f"ISBN 978-{ri(0, 9)}-{d(2)}-{d(6)}-{ri(0, 9)}; see also ISBN {ri(0, 9)} {d(3)} {d(5)} {ri(0, 9)}."
    yield f"The wreck lies at {coord(4)}, {coord(4)} ({coord(6)} {coord(6)})."
    yield f"Ship to 10{ri(100, 999)} Berlin or {ri(10, 99)}-{z(3)} Kraków, {d(5)} Paris."
    yield f"Covered in the years {year()}-{year()} and {ri(1000, 4000)}\u2013{ri(4001, 9000)} units."
    yield f"See pages {ri(10, 400)}-{ri(401, 900)} and pp. {ri(1, 99)}, {ri(100, 999)}."
    yield f"Between {ri(1, 99)} {z(3)} and {ri(100, 999)} {z(3)} people attended."
    yield f"`const sizes = [{ri(1, 999)}, {ri(1, 9999)}, {ri(1, 99999)}];` then `sleep({d(4)})`."
    yield f"Run `dd bs={d(4)} count={d(6)}` and `chmod {ri(600, 777)} file`; port {d(4)}."
    yield f"Account balance {d(2)} {z(3)},{z(2)} kr after {d(3)} {z(3)} kr fees."
    yield f"Reference {d(4)} {z(4)} {z(4)} on the wire transfer."
    yield f"Case {d(2)}-{z(6)} was closed; ticket #{d(7)}."
    yield "Scores: " + " ".join(str(ri(10, 99)) for _ in range(5))
    yield f"It weighs {ri(1, 999)} {z(3)} kg and measures {ri(1, 99)}.{z(3)} m."
    yield f"SKU {d(3)}-{z(3)}-{z(3)} is back in stock."
    yield f"The timestamps were {d(10)} and {d(13)}."


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--per-locale", type=int, default=6)
    parser.add_argument("--negatives", type=int, default=40, help="rounds of negative sentences")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    out = []

    def record(family, text, spans, negative=False):
        entities = [{"type": "phone", "start": s, "end": s + len(v)} for s, v in spans]  # code points
        out.append(
            {"id": f"{family}-{len(out)}", "lang": "en", "text": text, "negative": negative, "entities": entities}
        )

    for locale in AVAILABLE_LOCALES:
        fake = Faker(locale)
        if not hasattr(fake, "phone_number"):
            continue  # a few locales ship no phone provider
        fake.seed_instance(rng.randint(0, 2**31))
        region = locale.split("_")[-1] if "_" in locale else None
        for _ in range(args.per_locale):
            numbers = []
            for _ in range(2):
                number = fake.phone_number()
                if rng.random() < 0.3 and region is not None:
                    try:
                        parsed = phonenumbers.parse(number, region)
                        if phonenumbers.is_possible_number(parsed):
                            number = phonenumbers.format_number(parsed, phonenumbers.PhoneNumberFormat.INTERNATIONAL)
                    except phonenumbers.NumberParseException:
                        pass
                numbers.append(number)
            # Short service numbers ("997", "1488") identify no one; the check keeps personal lengths.
            if any(sum(ch.isdigit() for ch in number) < 7 for number in numbers):
                continue
            for family, templates in (("bare", BARE), ("verb", VERB)):
                template = rng.choice(templates)
                n, m = rng.sample(NAMES, 2)
                text = template.replace("{n}", n).replace("{m}", m).replace("{c}", rng.choice(CITIES))
                spans = []
                for key, number in (("{p2}", numbers[1]), ("{p}", numbers[0])):
                    while key in text:
                        at = text.index(key)
                        text = text[:at] + number + text[at + len(key) :]
                        spans = [(s + len(number) - len(key) if s > at else s, v) for s, v in spans]
                        spans.append((at, number))
                spans.sort()
                record(f"{family}-{locale}", text, spans)
    for _ in range(args.negatives):
        for text in negatives(rng):
            record("neg", text, [], negative=True)
    for item in out:
        print(json.dumps(item, ensure_ascii=False))


if __name__ == "__main__":
    main()
