#!/usr/bin/env python3
"""Phone numbers as generators and people write them, by format class (issue 18 items 1-4, 7).

Independent of Veil's code: the numbers come from Faker (every locale's `phone_number()` and
`msisdn()`, `country_calling_code()` before a locale's own national number, and each of the
en_US provider's formats: extensions `x123`, `+1-` and `001-` prefixes, dots, parentheses),
each placed in one sentence frame WITH a phone word or verb before it ("Phone:", "my number is",
"tel", "call", "call me at", "reach her at") and one WITHOUT (a list, a line end, parentheses
after a name, "at"). A record's `class` is the format family (`us:(###)###-####x###`, or
`<locale>:<shape>` with digits as `#`); `frame` is `word` or `bare`.

Output: JSONL, one record per placed number: {id, class, locale, source, frame, text, start,
end} (code-point offsets of the number). Scored through the real server by measure.mjs.
Usage: .venv-presidio/bin/python tools/phone-formats/generate.py [--seed 16] [--per-locale 8] > /tmp/pf.jsonl
"""

import argparse
import json
import random
import re

import phonenumbers
from faker import Faker
from faker.config import AVAILABLE_LOCALES
from faker.providers.phone_number import en_US

NAMES = ["Ana Souza", "Jonas Berg", "Mei Tanaka", "Omar Haddad", "Lena Fischer", "Tom Reyes", "Ilse Vos", "Raj Patel"]

# {p} is the number, {n} a name. WORD frames name the number (a phone word or a calling verb).
WORD = [
    "my number is {p}",
    "My phone number is {p}, call after 5.",
    "Phone: {p}",
    "Tel: {p}\nFax: none",
    "tel {p}",
    "call {p} tomorrow",
    "Please call me at {p}.",
    "You can reach {n} at {p}.",
    "Contact {n}, phone {p}, for the keys.",
    "Mobile: {p}\n",
    "Text me on {p} when you land.",
    "{n} (cell: {p}) is the on-call engineer.",
]
# BARE frames: no phone word anywhere in the sentence.
BARE = [
    "{n}\n{p}",
    "Best regards,\n{n}\n{p}",
    "{n} ({p}) will bring the slides.",
    "| {n} | {p} |",
    "{n} - {p}",
    "- {n}: {p}\n- Tom Reyes: later",
    "Ask {n} on {p} before Friday.",
    "{n} can be found at {p} most afternoons.",
    "name,number\n{n},{p}",
    "Write down {p} for {n}.",
]


def shape(number: str) -> str:
    return re.sub(r"\d", "#", number)


def us_numbers(rng: random.Random, per_format: int):
    """Each en_US format (`$` a digit 2-9, `#` any digit), `per_format` numbers each."""
    for fmt in sorted(set(en_US.Provider.formats)):
        for _ in range(per_format):
            number = "".join(
                rng.choice("23456789") if ch == "$" else rng.choice("0123456789") if ch == "#" else ch for ch in fmt
            )
            yield f"us:{fmt.replace('$', '#')}", "en_US", "en_US.formats", number


def locale_numbers(rng: random.Random, per_locale: int):
    for locale in AVAILABLE_LOCALES:
        fake = Faker(locale)
        fake.seed_instance(rng.randint(0, 2**31))
        if not hasattr(fake, "phone_number"):
            continue
        for _ in range(per_locale):
            number = fake.phone_number()
            yield f"{locale}:{shape(number)}", locale, "phone_number", number
        # The same numbers as libphonenumber prints them for the locale's country, when it parses
        # them as valid there: international ("+49 30 1234567"), E.164 and national layouts.
        region = locale.split("_")[-1] if "_" in locale else None
        for _ in range(per_locale):
            number = fake.phone_number()
            try:
                parsed = phonenumbers.parse(number, region)
            except phonenumbers.NumberParseException:
                continue
            if region is None or not phonenumbers.is_valid_number(parsed):
                continue
            for name, fmt in (
                ("international", phonenumbers.PhoneNumberFormat.INTERNATIONAL),
                ("e164", phonenumbers.PhoneNumberFormat.E164),
                ("national", phonenumbers.PhoneNumberFormat.NATIONAL),
            ):
                printed = phonenumbers.format_number(parsed, fmt)
                yield f"{locale}/{name}:{shape(printed)}", locale, name, printed
        msisdn = fake.msisdn()
        yield f"msisdn:{len(msisdn)}", locale, "msisdn", msisdn
        # A calling code before a number: Faker draws the code at random (not the locale's), so
        # the pair is only phone-shaped, as a careless form fills it: "+44 0612345678".
        national = re.sub(r"\D", "", fake.phone_number())
        code = fake.country_calling_code()
        yield "cc+national", locale, "country_calling_code", f"{code} {national}"


def case_record(prefix, count, cls, locale, source, frame, template, number):
    """One phone case of a generator (human.py, habits.py): the template's `{p}` replaced by the
    number, with the number's offsets."""
    start = template.index("{p}")
    return {
        "id": f"{prefix}-{count}",
        "class": cls,
        "locale": locale,
        "source": source,
        "frame": frame,
        "text": template.replace("{p}", number),
        "start": start,
        "end": start + len(number),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--per-locale", type=int, default=8)
    parser.add_argument("--per-us-format", type=int, default=8)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    numbers = list(us_numbers(rng, args.per_us_format)) + list(locale_numbers(rng, args.per_locale))
    count = 0
    for cls, locale, source, number in numbers:
        for frame, frames in (("word", WORD), ("bare", BARE)):
            template = rng.choice(frames).replace("{n}", rng.choice(NAMES))
            start = template.index("{p}")
            text = template.replace("{p}", number)
            record = {
                "id": f"pf-{count}",
                "class": cls,
                "locale": locale,
                "source": source,
                "frame": frame,
                "text": text,
                "start": start,
                "end": start + len(number),
            }
            print(json.dumps(record, ensure_ascii=False))
            count += 1


if __name__ == "__main__":
    main()
