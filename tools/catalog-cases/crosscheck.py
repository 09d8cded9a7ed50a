#!/usr/bin/env python3
"""Cross-check Veil's check-digit validators against python-stdnum (an independent implementation).

For each identifier type: random bodies of the right shape, every possible check character
appended, and the verdicts of stdnum and of our validator (server/src/domain/detect/validators.ts,
called through validate.mjs) compared one by one. Prints agreement per type and the first
disagreements. Usage: .venv-presidio/bin/python tools/catalog-cases/crosscheck.py [N]
(needs python-stdnum; `make compare-presidio` installs it in .venv-presidio).
"""

import json
import random
import string
import subprocess
import sys

from stdnum import imei, luhn, vatin, verhoeff  # noqa: F401
from stdnum.au import abn, acn, tfn
from stdnum.be import nn as be_nn
from stdnum.br import cnpj, cpf
from stdnum.ca import sin
from stdnum.ch import ssn as ch_ssn
from stdnum.cn import ric
from stdnum.de import idnr
from stdnum.dk import cpr
from stdnum.es import dni, nie
from stdnum.fi import hetu
from stdnum.fr import nir, siren, siret
from stdnum.gb import nhs
from stdnum.ie import pps
from stdnum.in_ import aadhaar, pan
from stdnum.it import codicefiscale
from stdnum.jp import in_ as jp_in
from stdnum.kr import rrn
from stdnum.mx import curp
from stdnum.nl import bsn
from stdnum.no import fodselsnummer
from stdnum.pl import pesel
from stdnum.pt import nif
from stdnum.se import personnummer
from stdnum.us import ein, itin, rtn

DIG = string.digits
UP = string.ascii_uppercase


def rd(n):
    return "".join(random.choice(DIG) for _ in range(n))


def date6(order="ymd", year_lo=1930, year_hi=2024):
    y = random.randint(year_lo, year_hi)
    m = random.randint(1, 12)
    d = random.randint(1, 28)
    yy, mm, dd = f"{y % 100:02d}", f"{m:02d}", f"{d:02d}"
    return {"ymd": yy + mm + dd, "dmy": dd + mm + yy}[order], y


def pesel_body():
    body, y = date6("ymd")
    if y >= 2000:
        body = body[:2] + f"{int(body[2:4]) + 20:02d}" + body[4:]
    return body + rd(4)


def hetu_body():
    body, y = date6("dmy")
    sign = "-" if y < 2000 else "A"
    return body + sign + rd(3)


def cf_body():
    months = "ABCDEHLMPRST"
    return (
        "".join(random.choice(UP) for _ in range(6))
        + rd(2)
        + random.choice(months)
        + f"{random.choice([random.randint(1, 28), random.randint(41, 68)]):02d}"
        + random.choice(UP)
        + rd(3)
    )


def curp_body():
    body, y = date6("ymd")
    states = [
        "AS",
        "BC",
        "BS",
        "CC",
        "CL",
        "CM",
        "CS",
        "CH",
        "DF",
        "DG",
        "GT",
        "GR",
        "HG",
        "JC",
        "MC",
        "MN",
        "MS",
        "NT",
        "NL",
        "OC",
        "PL",
        "QT",
        "QR",
        "SP",
        "SL",
        "SR",
        "TC",
        "TS",
        "TL",
        "VZ",
        "YN",
        "ZS",
    ]
    cons = "BCDFGHJKLMNPQRSTVWXYZ"
    return (
        "".join(random.choice(UP) for _ in range(4))
        + body
        + random.choice("HM")
        + random.choice(states)
        + "".join(random.choice(cons) for _ in range(3))
        + (random.choice(DIG) if y < 2000 else random.choice(UP))
    )


def rrn_body():
    body, y = date6("ymd")
    g = random.choice("12") if y < 2000 else random.choice("34")
    return body + g + rd(5)


def ric_body():
    y = random.randint(1940, 2020)
    return (
        random.choice(["110101", "110105", "310101", "440305", "320102", "510104"])
        + f"{y}{random.randint(1, 12):02d}{random.randint(1, 28):02d}"
        + rd(3)
    )


def no_body():
    body, _ = date6("dmy", 1940, 1999)
    return body + random.choice("01234") + rd(2)


def se_body():
    body, _ = date6("ymd")
    return body + rd(3)


def be_body():
    body, _ = date6("ymd", 1940, 1999)
    return body + rd(3)


def cpr_body():
    body, _ = date6("dmy", 1940, 1999)
    return body + rd(3)


def nir_body():
    return random.choice("12") + rd(2) + f"{random.randint(1, 12):02d}" + f"{random.randint(1, 95):02d}" + rd(6)


def vat(cc):
    return lambda v: vatin.is_valid(cc + v)


# Where we deliberately differ from stdnum, our verdict may only be stricter ("subset": ABA
# Federal Reserve prefixes; Slovak VAT without birth numbers) or looser ("superset": IRS ITIN
# groups 50-65 added in 2011, Finnish
# temporary ids 900-999, Chinese region codes we do not tabulate); everything else must agree.
RELATION = {
    "aba_routing": "subset",
    "eu_vat_SK": "subset",
    "us_itin": "superset",
    "fi_hetu": "superset",
    "cn_resident_id": "superset",
}

# type: (our validator, stdnum check, body generator, check alphabet)
CASES = {
    "aba_routing": (
        "abaRoutingValid",
        rtn.is_valid,
        lambda: random.choice(["0", "1", "2", "3", "6", "7"]) + rd(7),
        DIG,
    ),
    "us_itin": ("usItinValid", itin.is_valid, lambda: "9" + rd(7), DIG),
    "us_ein": ("usEinValid", ein.is_valid, lambda: rd(8), DIG),
    "uk_nhs": ("nhsValid", nhs.is_valid, lambda: rd(9), DIG),
    "de_tax_id": (
        "deTaxIdValid",
        idnr.is_valid,
        lambda: str(random.randint(1, 9)) + "".join(random.sample(DIG, 9)),
        DIG,
    ),
    "fr_nir": ("frNirValid", nir.is_valid, nir_body, [f"{k:02d}" for k in range(1, 98)]),
    "fr_siren": ("sirenValid", siren.is_valid, lambda: rd(8), DIG),
    "fr_siret": ("siretValid", siret.is_valid, lambda: rd(13), DIG),
    "es_dni": ("esDniValid", dni.is_valid, lambda: rd(8), UP),
    "es_nie": ("esNieValid", nie.is_valid, lambda: random.choice("XYZ") + rd(7), UP),
    "it_fiscal_code": ("itFiscalCodeValid", codicefiscale.is_valid, cf_body, UP),
    "nl_bsn": ("nlBsnValid", bsn.is_valid, lambda: rd(8), DIG),
    "be_national_number": ("beNationalNumberValid", be_nn.is_valid, be_body, [f"{k:02d}" for k in range(0, 100)]),
    "pl_pesel": ("plPeselValid", pesel.is_valid, pesel_body, DIG),
    "se_personnummer": ("sePersonnummerValid", personnummer.is_valid, se_body, DIG),
    "fi_hetu": ("fiHetuValid", hetu.is_valid, hetu_body, "0123456789ABCDEFHJKLMNPRSTUVWXY"),
    "dk_cpr": ("dkCprValid", cpr.is_valid, cpr_body, DIG),
    "no_fodselsnummer": ("noFodselsnummerValid", fodselsnummer.is_valid, no_body, [f"{k:02d}" for k in range(0, 100)]),
    "ch_ahv": ("chAhvValid", ch_ssn.is_valid, lambda: "756" + rd(9), DIG),
    "in_aadhaar": ("aadhaarValid", aadhaar.is_valid, lambda: str(random.randint(2, 9)) + rd(10), DIG),
    "in_pan": (
        "inPanValid",
        pan.is_valid,
        lambda: "".join(random.choice(UP) for _ in range(3)) + random.choice("ABCFGHJLPT") + random.choice(UP) + rd(4),
        UP,
    ),
    "au_tfn": ("auTfnValid", tfn.is_valid, lambda: rd(8), DIG),
    "au_abn": ("auAbnValid", abn.is_valid, lambda: str(random.randint(1, 9)) + rd(9), DIG),
    "au_acn": ("auAcnValid", acn.is_valid, lambda: rd(8), DIG),
    "br_cpf": ("brCpfValid", cpf.is_valid, lambda: rd(9), [f"{k:02d}" for k in range(100)]),
    "br_cnpj": ("brCnpjValid", cnpj.is_valid, lambda: rd(8) + "0001", [f"{k:02d}" for k in range(100)]),
    "ca_sin": ("caSinValid", sin.is_valid, lambda: str(random.choice([1, 2, 3, 4, 5, 6, 7, 9])) + rd(7), DIG),
    "mx_curp": ("mxCurpValid", curp.is_valid, curp_body, DIG),
    "kr_rrn": ("krRrnValid", rrn.is_valid, rrn_body, DIG),
    "cn_resident_id": ("cnResidentIdValid", ric.is_valid, ric_body, DIG + "X"),
    "jp_my_number": ("jpMyNumberValid", jp_in.is_valid, lambda: rd(11), DIG),
    "imei": ("imeiValid", imei.is_valid, lambda: random.choice(["35", "01", "86", "99", "49"]) + rd(12), DIG),
    "pt_nif": ("ptNifValid", nif.is_valid, lambda: random.choice("1235689") + rd(7), DIG),
    "ie_pps": ("iePpsValid", pps.is_valid, lambda: rd(7), UP),
}
for cc, gen in {
    "AT": lambda: "U" + rd(7),
    "BE": lambda: "0" + rd(8),
    "DE": lambda: str(random.randint(1, 9)) + rd(7),
    "DK": lambda: str(random.randint(1, 9)) + rd(6),
    "EL": lambda: rd(8),
    "FI": lambda: rd(7),
    "FR": lambda: rd(2) + rd(8),
    "HR": lambda: rd(10),
    "HU": lambda: rd(7),
    "IT": lambda: rd(7) + f"{random.randint(1, 100):03d}",
    "LU": lambda: rd(7),
    "PL": lambda: rd(9),
    "PT": lambda: random.choice("1235689") + rd(7),
    "SE": lambda: rd(9),
    "SI": lambda: str(random.randint(1, 9)) + rd(6),
    "SK": lambda: str(random.randint(1, 9)) + rd(8),
    "GB": lambda: rd(8),
    "ES": lambda: rd(8),
    "NL": lambda: rd(8),
}.items():
    suffix = {"SE": "01", "NL": "B01"}.get(cc, "")
    CASES[f"eu_vat_{cc}"] = (f"vat:{cc}", vat(cc), gen, [c + suffix for c in (UP if cc == "ES" else DIG)])


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    random.seed(7)
    queries, meta = [], []
    for name, (fn, check, body, alphabet) in CASES.items():
        for _ in range(n):
            b = body()
            for c in alphabet:
                value = b + c
                try:
                    ref = bool(check(value))
                except Exception:
                    ref = False
                if fn.startswith("vat:"):
                    queries.append({"fn": "vatValid", "value": fn[4:] + value})
                else:
                    queries.append({"fn": fn, "value": value})
                meta.append((name, value, ref))
    proc = subprocess.run(
        ["npx", "tsx", "tools/catalog-cases/validate.mjs"],
        input="\n".join(json.dumps(q) for q in queries),
        capture_output=True,
        text=True,
        check=True,
    )
    ours = [json.loads(line) for line in proc.stdout.split("\n") if line.strip()]
    assert len(ours) == len(meta), (len(ours), len(meta))
    stats, bad = {}, {}
    for (name, value, ref), mine in zip(meta, ours, strict=True):
        s = stats.setdefault(name, [0, 0, 0])  # agree, valid by stdnum, disagreements
        relation = RELATION.get(name, "equal")
        if ref == mine or (relation == "subset" and ref and not mine) or (relation == "superset" and mine and not ref):
            s[0] += 1
        else:
            s[2] += 1
            bad.setdefault(name, []).append((value, ref, mine))
        s[1] += ref
    total_bad = 0
    for name, (agree, valid, disagree) in stats.items():
        total_bad += disagree
        print(f"{name:22} agree {agree:6}  stdnum-valid {valid:5}  disagree {disagree}")
        for value, ref, mine in bad.get(name, [])[:4]:
            print(f"    {value}: stdnum={ref} veil={mine}")
    sys.exit(1 if total_bad else 0)


if __name__ == "__main__":
    main()
