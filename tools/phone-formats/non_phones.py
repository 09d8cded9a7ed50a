#!/usr/bin/env python3
"""Numbers that are not phone numbers, in the sentences phone cues use (session 17, wave16/phone).

The precision half of tools/phone-formats: order numbers, amounts, dates, times, ids, versions,
ISBNs, tracking and invoice numbers, scores and measures, written bare, in digit groups and after
the words a phone cue reads ("on", "at", a name, "ref", "ext"-like words), so a detector change that
reads more numbers as phones shows up here. Every record's number is NOT a phone: a `phone`
entity over it at the default threshold is a false positive (measure.mjs --negatives).
Output: JSONL {id, class, frame, text, start, end} like generate.py. Standard library only.
Usage: python3 tools/phone-formats/non_phones.py [--seed 17] [--per-class 60] > /tmp/np.jsonl
"""

import argparse
import json
import random

NAMES = ["Mei", "Omar", "Raj Patel", "Lena Fischer", "Tom", "Ana Souza", "Jonas", "Ilse Vos"]
MONTHS = ["Jan", "Feb", "March", "April", "May", "June", "July", "Aug", "Sept", "Oct", "Nov", "Dec"]


def digits(rng, n, first="123456789"):
    return rng.choice(first) + "".join(rng.choice("0123456789") for _ in range(n - 1))


def isbn10(rng):
    body = [rng.randrange(10) for _ in range(9)]
    check = (11 - sum((10 - k) * d for k, d in enumerate(body)) % 11) % 11
    s = "".join(map(str, body)) + ("X" if check == 10 else str(check))
    return f"{s[0]}-{s[1:4]}-{s[4:9]}-{s[9]}"


def isbn13(rng):
    body = [9, 7, rng.choice([8, 9])] + [rng.randrange(10) for _ in range(9)]
    check = (10 - sum(d * (1 if k % 2 == 0 else 3) for k, d in enumerate(body)) % 10) % 10
    s = "".join(map(str, body)) + str(check)
    return f"{s[:3]}-{s[3]}-{s[4:8]}-{s[8:12]}-{s[12]}"


# Each class: a value maker. Values are what a text holds that is not a phone number.
def date_spaced(r):
    """Day, month and a two- or four-digit year, spaced (the draws in the order they always had)."""
    day = r.randint(1, 28)
    month = r.randint(1, 12)
    year = r.choice([r.randint(0, 99), r.randint(1950, 2030)])
    return f"{day:02d} {month:02d} {year:02d}"


VALUES = {
    "order": lambda r: digits(r, r.choice([6, 7, 8, 9, 10])),
    "order-grouped": lambda r: f"{digits(r, 3)}-{digits(r, 7, '0123456789')}-{digits(r, 7, '0123456789')}",
    "amount": lambda r: f"{r.randint(1, 999)} {r.randint(0, 999):03d} {r.randint(0, 999):03d}",
    "amount-dots": lambda r: f"{r.randint(1, 99)}.{r.randint(0, 999):03d}.{r.randint(0, 999):03d}",
    "amount-plus": lambda r: f"+{r.randint(1, 99)} {r.randint(0, 999):03d} {r.randint(0, 999):03d}",
    "date-spaced": date_spaced,
    "date-iso": lambda r: f"{r.randint(1990, 2030)}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}",
    "date-dots": lambda r: f"{r.randint(1, 28):02d}.{r.randint(1, 12):02d}.{r.randint(1990, 2030)}",
    "time": lambda r: f"{r.randint(0, 23):02d} {r.randint(0, 59):02d} {r.randint(0, 59):02d}",
    "timestamp": lambda r: digits(r, 10, "1"),
    "id": lambda r: digits(r, r.choice([8, 10, 12])),
    "version": lambda r: f"{r.randint(1, 20)}.{r.randint(0, 30)}.{r.randint(0, 400)}",
    "isbn10": isbn10,
    "isbn13": isbn13,
    "ipv4": lambda r: ".".join(str(r.randint(1, 254)) for _ in range(4)),
    "score": lambda r: " ".join(str(r.randint(0, 60)) for _ in range(r.choice([3, 4, 6]))),
    "range": lambda r: f"{r.randint(1000, 4999)}-{r.randint(5000, 9999)}",
    "coords": lambda r: f"{r.randint(10, 89)} {r.randint(0, 59):02d} {r.randint(0, 59):02d}",
    "postcode-pair": lambda r: f"{digits(r, 5)} {digits(r, 5)}",
    # Session 18 (wave17/phone): short numbers (a phone word before them is read as an extension
    # since session 18; these frames hold none), drawn after the classes above so their records stay.
    "year": lambda r: str(r.randint(1950, 2030)),
    "short": lambda r: digits(r, r.choice([4, 5])),
    "short-grouped": lambda r: r.choice(
        [f"{r.randint(1, 9)}-{r.randint(0, 9999):04d}", f"{r.randint(1, 9)} {r.randint(10, 99)} {r.randint(10, 99)}"]
    ),
    "middle-dot": lambda r: "\u00b7".join(str(r.randint(1, 999)) for _ in range(r.choice([2, 3, 4]))),
    # Session 19 (wave18/phone): 2-3 digit numbers (an extension a dialling verb names with "ext" is a
    # phone since session 19; these frames hold none), house numbers before a postcode, ticket numbers.
    "two-three": lambda r: str(r.randint(10, 999)),
    "ext-field": lambda r: f"ext {r.randint(10, 999)}",
    "house-postcode": lambda r: f"{r.randint(1, 250)} {digits(r, 5)}",
    "ticket": lambda r: f"{digits(r, r.choice([5, 6, 7]))}-{r.randint(1, 99)}",
}

FRAMES = [
    "Order {v} shipped on Monday.",
    "Your order number is {v}.",
    "Invoice {v} is due.",
    "{n} on {v}",
    "Ask {n} on {v} before Friday.",
    "Ask {n} about {v}.",
    "Meet {n} at {v} tomorrow.",
    "{n} at {v}",
    "{n} paid {v} last week.",
    "The total came to {v}.",
    "We met on {v} at the office.",
    "Released on {v}.",
    "Ref {v}",
    "Ticket {v} was closed by {n}.",
    "See ISBN {v}.",
    "Tracking: {v}",
    "{n}\n{v}",
    "| {n} | {v} |",
    "{n} - {v}",
    "name,value\n{n},{v}",
    "Write down {v} for {n}.",
    "Text of build {v} attached.",
    "Ring size {v}.",
    "Dial indicator read {v}.",
    "Fax cover sheet, page {v}.",
    "Reach the summit at {v} metres.",
    "Upgrade to version {v} on Friday.",
    "The ext4 volume {v} is full.",
    "{n} scored {v} in the test.",
    "Call stack depth {v}.",
    "Text {v} rows were imported.",
    "WhatsApp version {v} is out.",
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--per-class", type=int, default=60)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    count = 0
    for cls, make in VALUES.items():
        for _ in range(args.per_class):
            value = make(rng)
            frame = rng.choice(FRAMES).replace("{n}", rng.choice(NAMES))
            start = frame.index("{v}")
            text = frame.replace("{v}", value)
            print(
                json.dumps(
                    {
                        "id": f"np-{count}",
                        "class": f"not:{cls}",
                        "frame": "negative",
                        "text": text,
                        "start": start,
                        "end": start + len(value),
                    }
                )
            )
            count += 1


if __name__ == "__main__":
    main()
