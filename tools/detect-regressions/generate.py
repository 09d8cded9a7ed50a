#!/usr/bin/env python3
# ruff: noqa: RUF001, RUF002  (full-width and other look-alike characters are the point of this corpus)
"""Regression corpus for the detection classes of issue 18 (items 1-5): data/detect-regressions.jsonl.

Values come from Faker's own per-locale generators and are kept only when python-stdnum or
phonenumbers says they are valid (UK NINOs, which neither library covers, are built here from
HMRC's published prefix rules), so neither the values nor the gold spans come from Veil's
code. Each class writes its values the way the held-out data showed people write them:

  phone_chat        "my number is ...", "reach me at ..." (Faker en_US formats: x-extensions,
                    +1-, 001-, dots, parentheses)
  window_cut        a phone number with a word ending in a context word's letters ("reach",
                    "breach", "approach") at every distance before it
  cards_in_a_row    two or three card numbers separated by single spaces, grouped or compact
  amex_context      American Express numbers after "credit card number" and friends
  lower_case_ids    IBAN, VAT and NIE typed in lower case
  separators        IBAN groups with dashes or dots, VAT with a dashed prefix, SSN with dots,
                    NIE with hyphens
  it_vat_bare       Italian VAT numbers after "P.IVA" / "Partita IVA" without the IT prefix
  nino_print        UK NINOs with spaces (pairs, one group, suffix spaced or glued, lower case)
  passport          passport numbers after "passport number" (US and UK)
  national_mobiles  Philippine and Turkish mobile numbers in national format
  unicode           SSNs, cards, phones, emails and IBANs with full-width, Arabic-Indic, Persian
                    or Devanagari digits, Unicode dashes and spaces, `＠` and `。`, inside
                    Japanese, Chinese, Arabic, Hindi and English text
  negatives         broadcast and zero MACs, "www.<word>" without a top-level domain, NINO-like
                    letter pairs followed by a digit chain, "my number of ..." phrases

Each record carries its class in `domain`. Deterministic (seeded). Usage:
  .venv-presidio/bin/python tools/detect-regressions/generate.py [PER_CLASS] [SEED]
(`make compare-presidio` installs Faker, python-stdnum and phonenumbers in .venv-presidio.)
"""

import json
import random
import sys
from pathlib import Path

import phonenumbers
from faker import Faker
from stdnum import iban as std_iban
from stdnum import luhn, vatin
from stdnum.es import nie
from stdnum.us import ssn as us_ssn

OUT = Path(__file__).resolve().parents[2] / "data" / "detect-regressions.jsonl"


class Corpus:
    def __init__(self):
        self.records = []

    def add(self, domain, lang, parts, negative=False):
        """`parts`: strings and (type, value) pairs, joined in order; gold spans in code points."""
        text = ""
        entities = []
        for part in parts:
            if isinstance(part, tuple):
                kind, value = part
                entities.append({"type": kind, "start": len(text), "end": len(text) + len(value)})
                text += value
            else:
                text += part
        self.records.append(
            {
                "id": f"dr-{len(self.records)}",
                "lang": lang,
                "domain": domain,
                "negative": negative or not entities,
                "text": text,
                "entities": entities,
            }
        )


# ---------------------------------------------------------------------------------------------
# Value sources (independent of Veil: Faker plus the reference validators).


def us_phone(fake):
    """A Faker en_US number that phonenumbers reads as a possible US number (extensions kept)."""
    while True:
        value = fake.phone_number()
        candidate = value
        if candidate.startswith("001-"):
            candidate = "+1-" + candidate[4:]
        try:
            parsed = phonenumbers.parse(candidate, "US")
        except phonenumbers.NumberParseException:
            continue
        if phonenumbers.is_possible_number(parsed):
            return value


def plain_us_phone(fake):
    while True:
        value = us_phone(fake)
        if "x" not in value:
            return value


def card(fake, card_type=None):
    while True:
        value = fake.credit_card_number(card_type=card_type)
        if luhn.is_valid(value):
            return value


def grouped_card(value):
    if len(value) == 15:
        return f"{value[:4]} {value[4:10]} {value[10:]}"
    return " ".join(value[k : k + 4] for k in range(0, len(value), 4))


IBAN_LOCALES = [
    "de_DE",
    "fr_FR",
    "es_ES",
    "it_IT",
    "nl_NL",
    "en_GB",
    "pl_PL",
    "pt_PT",
    "de_AT",
    "fr_CH",
    "nl_BE",
    "sv_SE",
]
VAT_LOCALES = ["de_DE", "fr_FR", "it_IT", "es_ES", "nl_NL", "de_AT", "pl_PL", "pt_PT", "nl_BE"]


def iban(rng):
    while True:
        value = Faker(rng.choice(IBAN_LOCALES)).iban()
        if std_iban.is_valid(value):
            return value


def vat(rng):
    while True:
        fake = Faker(rng.choice(VAT_LOCALES))
        value = fake.vat_id().replace(" ", "")
        if vatin.is_valid(value):
            return value


def it_vat(rng):
    fake = Faker("it_IT")
    while True:
        value = fake.company_vat().replace(" ", "")
        if vatin.is_valid(value) and value.startswith("IT"):
            return value[2:]


def nie_value(fake):
    while True:
        value = fake.nie()
        if nie.is_valid(value):
            return value


def ssn_value(fake):
    while True:
        value = fake.ssn()
        if us_ssn.is_valid(value):
            return value


# HMRC: first letter not D F I Q U V; second not D F I O Q U V; prefixes BG GB KN NK NT TN ZZ
# are never issued; suffix A-D.
NINO_FIRST = [c for c in "ABCEGHJKLMNOPRSTWXYZ"]
NINO_SECOND = [c for c in "ABCEGHJKLMNPRSTWXYZ"]
NINO_BAD = {"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"}


def nino(rng):
    while True:
        prefix = rng.choice(NINO_FIRST) + rng.choice(NINO_SECOND)
        if prefix not in NINO_BAD:
            digits = "".join(rng.choice("0123456789") for _ in range(6))
            return prefix, digits, rng.choice("ABCD")


def valid_mobile(value, region):
    try:
        parsed = phonenumbers.parse(value, region)
    except phonenumbers.NumberParseException:
        return False
    return (
        phonenumbers.is_valid_number(parsed) and phonenumbers.number_type(parsed) == phonenumbers.PhoneNumberType.MOBILE
    )


# ---------------------------------------------------------------------------------------------
# Classes.

CHAT_PHONE = [
    ("my number is ", ""),
    ("My number is ", "."),
    ("my phone number is ", ", thanks"),
    ("You can reach me at ", " after 5pm."),
    ("reach me on ", ""),
    ("Call me at ", " tomorrow."),
    ("text me at ", " tonight"),
    ("My cell is ", "."),
    ("Hi, it's Sam. My number is ", " if you need anything."),
    ("Phone: ", ""),
    ("Please call ", " to confirm your appointment."),
    ("Contact: ", " (office)"),
]


def phone_chat(corpus, rng, fake, n):
    for _ in range(n):
        before, after = rng.choice(CHAT_PHONE)
        corpus.add("phone_chat", "en", [before, ("phone", us_phone(fake)), after])


CUT_WORDS = ["reach", "breach", "approach", "bleach", "teach", "preach", "coach", "each"]
FILLER = [
    "the",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "a",
    "lazy",
    "dog",
    "while",
    "we",
    "wait",
    "for",
    "news",
    "about",
    "it",
]


def window_cut(corpus, rng, fake, n):
    for _ in range(n):
        gap = rng.randint(0, 55)
        words = []
        while len(" ".join(words)) < gap:
            words.append(rng.choice(FILLER))
        filler = " ".join(words)[:gap]
        phone = plain_us_phone(fake)
        while phone.isdigit():  # bare digits are a phone only next to a phone word: not this class
            phone = plain_us_phone(fake)
        corpus.add("window_cut", "en", [f"Please {rng.choice(CUT_WORDS)} {filler} ", ("phone", phone), " now."])


def cards_in_a_row(corpus, rng, fake, n):
    types = ["visa16", "mastercard", "amex", "discover", "visa13"]
    for _ in range(n):
        count = rng.choice([2, 2, 3])
        grouped = rng.random() < 0.5
        parts = [rng.choice(["Cards on file: ", "cards ", "Please charge ", ""])]
        for k in range(count):
            value = card(fake, rng.choice(types))
            if k > 0:
                parts.append(" ")
            parts.append(("credit_card", grouped_card(value) if grouped and len(value) in (15, 16) else value))
        parts.append(rng.choice([".", "", " thanks"]))
        corpus.add("cards_in_a_row", "en", parts)


AMEX_CONTEXT = [
    "credit card number ",
    "my credit card number is ",
    "Credit card number: ",
    "Amex: ",
    "card no. ",
    "Please bill my card ",
]


def amex_context(corpus, rng, fake, n):
    for _ in range(n):
        value = card(fake, "amex")
        if rng.random() < 0.3:
            value = grouped_card(value)
        corpus.add(
            "amex_context",
            "en",
            [rng.choice(AMEX_CONTEXT), ("credit_card", value), rng.choice([".", "", " exp 09/27"])],
        )


def lower_case_ids(corpus, rng, fake, n):
    es = Faker("es_ES")
    for k in range(n):
        choice = k % 3
        if choice == 0:
            value = iban(rng).lower()
            if rng.random() < 0.5:
                value = " ".join(value[j : j + 4] for j in range(0, len(value), 4))
            corpus.add("lower_case_ids", "en", [rng.choice(["IBAN ", "iban: ", "my iban is "]), ("iban", value), "."])
        elif choice == 1:
            corpus.add(
                "lower_case_ids",
                "en",
                [rng.choice(["VAT ", "vat number ", "VAT no. "]), ("eu_vat", vat(rng).lower()), "."],
            )
        else:
            corpus.add(
                "lower_case_ids",
                "es",
                [rng.choice(["NIE ", "nie: ", "Mi NIE es "]), ("es_nie", nie_value(es).lower()), "."],
            )


def separators(corpus, rng, fake, n):
    es = Faker("es_ES")
    for k in range(n):
        choice = k % 4
        if choice == 0:
            value = iban(rng)
            sep = rng.choice(["-", "."])
            corpus.add(
                "separators",
                "en",
                ["IBAN ", ("iban", sep.join(value[j : j + 4] for j in range(0, len(value), 4))), " please"],
            )
        elif choice == 1:
            value = vat(rng)
            body = value[2:]
            if body.isdigit():
                body = "-".join(body[j : j + 3] for j in range(0, len(body), 3))
            corpus.add("separators", "en", ["VAT ", ("eu_vat", f"{value[:2]}-{body}"), "."])
        elif choice == 2:
            corpus.add(
                "separators",
                "en",
                [
                    rng.choice(["SSN ", "Social Security No. ", "ssn: "]),
                    ("us_ssn", ssn_value(fake).replace("-", ".")),
                    ".",
                ],
            )
        else:
            value = nie_value(es)
            form = rng.choice([f"{value[:8]}-{value[8]}", f"{value[0]}-{value[1:8]}-{value[8]}"])
            corpus.add("separators", "es", ["NIE ", ("es_nie", form), "."])


IT_LABELS = ["P.IVA ", "P.IVA: ", "Partita IVA ", "Partita IVA: ", "P. IVA ", "partita iva n. "]


def it_vat_bare(corpus, rng, fake, n):
    for _ in range(n):
        corpus.add(
            "it_vat_bare",
            "it",
            [
                rng.choice(["Fattura intestata a Rossi S.r.l., ", "Dati azienda: ", ""]),
                rng.choice(IT_LABELS),
                ("eu_vat", it_vat(rng)),
                ".",
            ],
        )


NINO_LABELS = ["NI number ", "National Insurance number: ", "NINO ", "my national insurance number is "]


def nino_print(corpus, rng, fake, n):
    for _ in range(n):
        prefix, digits, suffix = nino(rng)
        form = rng.choice(
            [
                f"{prefix} {digits[:2]} {digits[2:4]} {digits[4:]} {suffix}",
                f"{prefix} {digits} {suffix}",
                f"{prefix}{digits}{suffix}",
                f"{prefix} {digits[:2]} {digits[2:4]} {digits[4:]}{suffix}",
            ]
        )
        if rng.random() < 0.25:
            form = form.lower()
        corpus.add("nino_print", "en", [rng.choice(NINO_LABELS), ("uk_nino", form), "."])


def passport(corpus, rng, fake, n):
    for k in range(n):
        if k % 3 == 2:
            value = "".join(rng.choice("0123456789") for _ in range(9))
            corpus.add(
                "passport",
                "en-GB",
                [
                    rng.choice(["passport number ", "Passport No. ", "My passport number is "]),
                    ("uk_passport", value),
                    ".",
                ],
            )
        else:
            corpus.add(
                "passport",
                "en",
                [
                    rng.choice(["passport number ", "Passport No. ", "passport number: ", "My passport number is "]),
                    ("us_passport", fake.passport_number()),
                    ".",
                ],
            )


def national_mobiles(corpus, rng, fake, n):
    ph = Faker("en_PH")
    tr = Faker("tr_TR")
    labels = ["Mobile: ", "my number is ", "Reach me at ", "Text me on ", "Cell "]
    made = 0
    while made < n:
        if made % 2 == 0:
            value = ph.mobile_number()
            region = "PH"
        else:
            value = tr.phone_number()
            region = "TR"
        if value.startswith("+") or not valid_mobile(value, region):
            continue
        corpus.add("national_mobiles", "en", [rng.choice(labels), ("phone", value), rng.choice(["", ".", " anytime"])])
        made += 1


FULL_WIDTH = str.maketrans("0123456789-+()@.", "０１２３４５６７８９－＋（）＠．")
DIGIT_SETS = {
    "arabic": "٠١٢٣٤٥٦٧٨٩",
    "persian": "۰۱۲۳۴۵۶۷۸۹",
    "devanagari": "०१२३४५६७८९",
}
DASHES = ["\u2013", "\u2011", "\u2012", "\u2010", "\uff0d"]
SURROUNDINGS = {
    "ja": (
        "{label} {value} までご連絡ください。",
        {"phone": "電話", "email": "メール", "us_ssn": "SSN", "credit_card": "カード", "iban": "IBAN"},
    ),
    "zh": (
        "我的{label}是 {value}，谢谢。",
        {"phone": "电话", "email": "邮箱", "us_ssn": "SSN", "credit_card": "信用卡", "iban": "IBAN"},
    ),
    "ar": (
        "{label}: {value} شكرا",
        {"phone": "هاتف", "email": "البريد", "us_ssn": "SSN", "credit_card": "بطاقة", "iban": "IBAN"},
    ),
    "hi": (
        "मेरा {label} {value} है।",
        {"phone": "फ़ोन", "email": "ईमेल", "us_ssn": "SSN", "credit_card": "कार्ड", "iban": "IBAN"},
    ),
    "en": (
        "My {label} is {value}, thanks.",
        {"phone": "phone", "email": "email", "us_ssn": "SSN", "credit_card": "card", "iban": "IBAN"},
    ),
}


def variant(value, kind, rng):
    style = rng.choice(["full_width", "digits", "dashes", "spaces", "mixed"])
    if style == "full_width":
        return value.translate(FULL_WIDTH)
    if style == "digits" and kind != "email":
        digits = DIGIT_SETS[rng.choice(list(DIGIT_SETS))]
        return "".join(digits[int(c)] if c.isdigit() else c for c in value)
    if style == "dashes" and "-" in value:
        return value.replace("-", rng.choice(DASHES))
    if style == "spaces" and " " in value:
        return value.replace(" ", rng.choice(["\u00a0", "\u3000", "\u202f"]))
    if kind == "email":
        return (
            value.replace("@", "＠") if rng.random() < 0.5 else value.rsplit(".", 1)[0] + "。" + value.rsplit(".", 1)[1]
        )
    return value.translate(FULL_WIDTH)


def unicode_forms(corpus, rng, fake, n):
    for _ in range(n):
        kind = rng.choice(["phone", "email", "us_ssn", "credit_card", "iban"])
        if kind == "phone":
            national = plain_us_phone(fake).replace(".", "-")
            for prefix in ("+1-", "001-", "1-"):
                if national.startswith(prefix):
                    national = national[len(prefix) :]
            value = rng.choice(["+1 ", ""]) + national
        elif kind == "email":
            value = fake.email()
        elif kind == "us_ssn":
            value = ssn_value(fake)
        elif kind == "credit_card":
            value = grouped_card(card(fake, "visa16"))
        else:
            value = iban(rng)
            value = " ".join(value[j : j + 4] for j in range(0, len(value), 4))
        written = variant(value, kind, rng)
        lang = rng.choice(list(SURROUNDINGS))
        template, labels = SURROUNDINGS[lang]
        if lang in ("ja", "zh") and not labels[kind].isascii() and rng.random() < 0.5:
            template = template.replace(" {value} ", "{value}").replace(" {value}", "{value}")  # no spaces in CJK prose
        before, after = template.split("{value}")
        corpus.add("unicode", lang, [before.format(label=labels[kind]), (kind, written), after])


def negatives(corpus, rng, fake, n):
    words = ["microsoft", "google", "example", "github", "wikipedia", "openai", "company", "amazon"]
    for k in range(n):
        choice = k % 5
        if choice == 0:
            mac = rng.choice(["ff:ff:ff:ff:ff:ff", "FF-FF-FF-FF-FF-FF", "FF:FF:FF:FF:FF:FF"])
            corpus.add("negatives", "en", [f"Broadcast frames go to {mac} on the segment."])
        elif choice == 1:
            mac = rng.choice(["00:00:00:00:00:00", "00-00-00-00-00-00"])
            corpus.add("negatives", "en", [f"The interface reports {mac} until it is configured."])
        elif choice == 2:
            corpus.add("negatives", "en", [f"Search for www.{rng.choice(words)} in the logs, not the URL."])
        elif choice == 3:
            prefix, digits, _ = nino(rng)
            corpus.add(
                "negatives",
                "en",
                [f"Row {prefix} {digits[:2]} {digits[2:4]} {digits[4:]} {rng.randint(0, 9)} of the table"],
            )
        else:
            corpus.add(
                "negatives",
                "en",
                [f"my number of attempts is {rng.randint(2, 40)} and my number of retries is {rng.randint(2, 9)}"],
            )


CLASSES = [
    phone_chat,
    window_cut,
    cards_in_a_row,
    amex_context,
    lower_case_ids,
    separators,
    it_vat_bare,
    nino_print,
    passport,
    national_mobiles,
    unicode_forms,
    negatives,
]


def main():
    per_class = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 18
    rng = random.Random(seed)
    Faker.seed(seed)
    fake = Faker("en_US")
    corpus = Corpus()
    for make in CLASSES:
        make(corpus, rng, fake, per_class)
    with OUT.open("w", encoding="utf-8") as handle:
        for record in corpus.records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    print(f"wrote {len(corpus.records)} records to {OUT}")


if __name__ == "__main__":
    main()
