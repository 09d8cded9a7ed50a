#!/usr/bin/env python3
"""Held-out corpus from independent sources: data/heldout-faker.jsonl.

Values come from Faker (its own per-locale generators) and are kept only when python-stdnum (or
phonenumbers, for phones) says they are valid, so neither the values nor the gold labels come
from Veil's code. Each value sits in Faker's locale text with the label a form would print
before it. Deterministic (seeded). Usage: .venv-presidio/bin/python tools/compare-presidio/heldout.py [PER_TYPE]
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
from stdnum.br import cnpj, cpf
from stdnum.ca import sin
from stdnum.ch import ssn as ch_ssn
from stdnum.cn import ric
from stdnum.es import dni, nie
from stdnum.fi import hetu
from stdnum.fr import nir, siren, siret
from stdnum.in_ import aadhaar
from stdnum.it import codicefiscale
from stdnum.kr import rrn
from stdnum.mx import curp
from stdnum.nl import bsn
from stdnum.no import fodselsnummer
from stdnum.pl import pesel
from stdnum.se import personnummer
from stdnum.us import ein, itin, rtn, ssn

# type, Faker locale, Faker method, validity check, request language, labels
SOURCES = [
    ("nl_bsn", "nl_NL", "ssn", bsn.is_valid, "nl", ["BSN", "Burgerservicenummer"]),
    ("fi_hetu", "fi_FI", "ssn", hetu.is_valid, "fi", ["Henkilötunnus", "Hetu"]),
    ("pl_pesel", "pl_PL", "pesel", pesel.is_valid, "pl", ["PESEL", "Nr PESEL"]),
    ("se_personnummer", "sv_SE", "ssn", personnummer.is_valid, "sv", ["Personnummer"]),
    ("es_dni", "es_ES", "nif", dni.is_valid, "es", ["DNI", "Documento Nacional de Identidad"]),
    ("es_nie", "es_ES", "nie", nie.is_valid, "es", ["NIE"]),
    ("it_fiscal_code", "it_IT", "ssn", codicefiscale.is_valid, "it", ["Codice fiscale", "CF"]),
    ("br_cpf", "pt_BR", "cpf", cpf.is_valid, "pt-BR", ["CPF", "CPF nº"]),
    ("br_cnpj", "pt_BR", "cnpj", cnpj.is_valid, "pt-BR", ["CNPJ"]),
    ("fr_nir", "fr_FR", "ssn", nir.is_valid, "fr", ["Numéro de sécurité sociale", "N° de sécurité sociale"]),
    ("fr_siren", "fr_FR", "siren", siren.is_valid, "fr", ["SIREN"]),
    ("fr_siret", "fr_FR", "siret", siret.is_valid, "fr", ["SIRET"]),
    ("no_fodselsnummer", "no_NO", "ssn", fodselsnummer.is_valid, "nb", ["Fødselsnummer"]),
    ("ca_sin", "en_CA", "ssn", sin.is_valid, "en-CA", ["SIN", "Social Insurance Number"]),
    ("in_aadhaar", "en_IN", "aadhaar_id", aadhaar.is_valid, "en-IN", ["Aadhaar", "Aadhaar No."]),
    ("cn_resident_id", "zh_CN", "ssn", ric.is_valid, "zh", ["身份证号码"]),
    ("kr_rrn", "ko_KR", "ssn", rrn.is_valid, "ko", ["주민등록번호"]),
    ("mx_curp", "es_MX", "curp", curp.is_valid, "es-MX", ["CURP"]),
    ("ch_ahv", "de_CH", "ssn", ch_ssn.is_valid, "de-CH", ["AHV-Nummer", "AHV-Nr."]),
    ("us_ssn", "en_US", "ssn", ssn.is_valid, "en", ["SSN", "Social Security No."]),
    ("us_itin", "en_US", "itin", itin.is_valid, "en", ["ITIN"]),
    ("us_ein", "en_US", "ein", ein.is_valid, "en", ["EIN", "Employer ID Number"]),
    ("aba_routing", "en_US", "aba", rtn.is_valid, "en", ["Routing No.", "ABA routing number"]),
    ("eu_vat", "de_DE", "vat_id", vatin.is_valid, "de", ["USt-IdNr."]),
    ("eu_vat", "it_IT", "vat_id", vatin.is_valid, "it", ["Partita IVA"]),
    ("eu_vat", "pt_PT", "vat_id", vatin.is_valid, "pt", ["NIF"]),
    ("iban", "de_DE", "iban", std_iban.is_valid, "de", ["IBAN"]),
    ("iban", "fr_FR", "iban", std_iban.is_valid, "fr", ["IBAN"]),
    ("iban", "es_ES", "iban", std_iban.is_valid, "es", ["IBAN"]),
    ("credit_card", "en_US", "credit_card_number", luhn.is_valid, "en", ["Card number", "Visa"]),
    ("email", "de_DE", "email", lambda v: "@" in v, "de", ["E-Mail"]),
    ("email", "fr_FR", "email", lambda v: "@" in v, "fr", ["Courriel"]),
    ("ip_address", "en_US", "ipv4_public", lambda v: True, "en", ["from"]),
    ("ip_address", "en_US", "ipv6", lambda v: v.count(":") >= 2, "en", ["from"]),
    ("url", "nl_NL", "url", lambda v: True, "nl", ["Website"]),
]
PHONES = [
    ("de_DE", "DE", "de", "Tel."),
    ("fr_FR", "FR", "fr", "Tél."),
    ("es_ES", "ES", "es", "Teléfono"),
    ("it_IT", "IT", "it", "Telefono"),
    ("nl_NL", "NL", "nl", "Telefoon"),
    ("pt_PT", "PT", "pt", "Telefone"),
    ("en_GB", "GB", "en-GB", "Phone"),
    ("en_US", "US", "en", "Phone"),
    ("pl_PL", "PL", "pl", "Tel."),
    ("sv_SE", "SE", "sv", "Telefon"),
    ("en_AU", "AU", "en-AU", "Phone"),
    ("pt_BR", "BR", "pt-BR", "Telefone"),
]


def main():
    per_type = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    random.seed(int(sys.argv[2]) if len(sys.argv) > 2 else 4242)
    Faker.seed(int(sys.argv[2]) if len(sys.argv) > 2 else 4242)
    records = []

    def add(lang, locale_faker, label, value, entity_type):
        before = f"{locale_faker.sentence()} {label}: "
        after = f". {locale_faker.sentence()}"
        text = before + value + after
        start = len(before)  # Python str indices are code points, as the corpus format wants
        records.append(
            {
                "id": f"hf-{len(records)}",
                "lang": lang,
                "domain": "heldout",
                "negative": False,
                "text": text,
                "entities": [{"type": entity_type, "start": start, "end": start + len(value)}],
            }
        )

    for entity_type, locale, method, valid, lang, labels in SOURCES:
        fake = Faker(locale)
        made = tries = 0
        while made < per_type and tries < 500:
            tries += 1
            value = str(getattr(fake, method)())
            try:
                ok = bool(valid(value))
            except Exception:
                ok = False
            if not ok:
                continue
            add(lang, fake, random.choice(labels), value, entity_type)
            made += 1
    for locale, region, lang, label in PHONES:
        fake = Faker(locale)
        made = tries = 0
        while made < per_type and tries < 500:
            tries += 1
            value = fake.phone_number()
            try:
                number = phonenumbers.parse(value, region)
            except phonenumbers.NumberParseException:
                continue
            if not phonenumbers.is_valid_number(number) or "x" in value.lower():
                continue
            add(lang, fake, label, value, "phone")
            made += 1
    out = Path(__file__).resolve().parents[2] / "data" / "heldout-faker.jsonl"
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    print(f"{out.name}: {len(records)} records")


if __name__ == "__main__":
    main()
