#!/usr/bin/env python3
"""Generate data/heldout-presidio-synth.jsonl: Presidio's own synthetic PII sentences, fixed split.

Source: presidio-evaluator 0.3.2 (MIT, Microsoft) from PyPI: its 210 sentence templates, its
FakeNameGenerator.com person records (CC BY-SA 3.0 US, attribution in the wheel's README) and its
Faker providers, sampled by its own `PresidioSentenceFaker` (en_US, 5 % lower-cased names, seed 42).
Nothing here comes from Veil's code or word lists, and no system output is used for the labels.

Split (fixed before any system was run on it): a record's split is decided by its template,
`template_id % 5 == 0` -> "dev" (may be inspected while developing), every other template ->
"test" (held out: only aggregate figures are looked at). Templates never cross splits, so looking
at dev errors teaches nothing about the test sentences' wording.

Labeling conventions, mapped from Presidio's types to Veil's:
- PERSON -> person, ORGANIZATION -> organization, EMAIL_ADDRESS -> email, PHONE_NUMBER -> phone,
  CREDIT_CARD -> credit_card, IBAN_CODE -> iban, IP_ADDRESS -> ip_address, US_SSN -> us_ssn,
  DOMAIN_NAME -> url.
- GPE (city, state, country) and STREET_ADDRESS are locations. Presidio cuts one postal address
  into fragments (`637`, `Strojírenská 1006`, `Suite 026`, `Svratka`, `Czech Republic 45098`);
  Veil's convention (and the dev corpus's) is one span per postal address, so a run of fragments
  separated only by spaces, commas and line breaks that holds a STREET_ADDRESS part is merged into
  one `location` span (ZIP codes in it included). Without a street part, each city, state or
  country stays its own span ("Lyon, France" is two), and a ZIP_CODE alone is ignored.
- Types Veil has no counterpart for (TITLE, NRP, AGE, US_DRIVER_LICENSE, DATE_TIME, lone
  ZIP_CODE) go to `ignored`: a prediction overlapping an ignored span is neither a true nor a
  false positive (scoring.py).
- The templates write line breaks as the two characters backslash-n; they are turned into real
  line breaks (offsets remapped), as a user's text would have them.

Usage (a throw-away venv: presidio-evaluator pulls transformers, pandas, scikit-learn):
  python3 -m venv /tmp/pe && /tmp/pe/bin/pip install presidio-evaluator==0.3.2 faker==40.63.0
  /tmp/pe/bin/python tools/ner-heldout/presidio_synth.py [--count 2000] [--seed 42]
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path

TYPE_MAP = {
    "PERSON": "person",
    "ORGANIZATION": "organization",
    "EMAIL_ADDRESS": "email",
    "PHONE_NUMBER": "phone",
    "CREDIT_CARD": "credit_card",
    "IBAN_CODE": "iban",
    "IP_ADDRESS": "ip_address",
    "US_SSN": "us_ssn",
    "DOMAIN_NAME": "url",
}
LOCATION_PARTS = {"GPE", "STREET_ADDRESS"}
JOINER = re.compile(r"[\s,]*")


def unescape_newlines(text: str, spans: list[tuple[str, int, int]]) -> tuple[str, list[tuple[str, int, int]]]:
    """Replace literal backslash-n with a line break and move the spans with it."""
    out: list[str] = []
    old_to_new: list[int] = []
    i = 0
    while i < len(text):
        old_to_new.append(len(out))
        if text.startswith("\\n", i):
            old_to_new.append(len(out))
            out.append("\n")
            i += 2
            continue
        out.append(text[i])
        i += 1
    old_to_new.append(len(out))
    return "".join(out), [(kind, old_to_new[start], old_to_new[end]) for kind, start, end in spans]


def to_veil(text: str, spans: list[tuple[str, int, int]]) -> tuple[list[dict], list[dict]]:
    """(entities, ignored) in Veil's conventions (module docstring)."""
    entities: list[dict] = []
    ignored: list[dict] = []
    parts = sorted((s for s in spans if s[0] in LOCATION_PARTS or s[0] == "ZIP_CODE"), key=lambda s: s[1])
    runs: list[list[tuple[str, int, int]]] = []
    for part in parts:
        if runs and JOINER.fullmatch(text, runs[-1][-1][2], part[1]) and part[1] >= runs[-1][-1][2]:
            runs[-1].append(part)
        else:
            runs.append([part])
    for run in runs:
        start, end = run[0][1], max(p[2] for p in run)
        if any(p[0] == "STREET_ADDRESS" for p in run):
            entities.append({"type": "location", "start": start, "end": end})
            continue
        for kind, part_start, part_end in run:
            if kind == "ZIP_CODE":
                ignored.append({"start": part_start, "end": part_end})
            else:
                entities.append({"type": "location", "start": part_start, "end": part_end})
    for kind, start, end in spans:
        if kind in TYPE_MAP:
            entities.append({"type": TYPE_MAP[kind], "start": start, "end": end})
        elif kind not in LOCATION_PARTS and kind != "ZIP_CODE":
            ignored.append({"start": start, "end": end})
    entities.sort(key=lambda e: (e["start"], e["end"]))
    ignored.sort(key=lambda e: (e["start"], e["end"]))
    return entities, ignored


def main() -> None:
    from presidio_evaluator.data_generator import PresidioSentenceFaker

    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--out", default=str(Path(__file__).resolve().parents[2] / "data/heldout-presidio-synth.jsonl"))
    args = parser.parse_args()
    random.seed(args.seed)
    faker = PresidioSentenceFaker("en_US", lower_case_ratio=0.05, random_seed=args.seed)
    samples = faker.generate_new_fake_sentences(args.count)
    lines = []
    for index, sample in enumerate(samples):
        spans = [(s.entity_type, s.start_position, s.end_position) for s in sample.spans]
        text, spans = unescape_newlines(sample.full_text, spans)
        entities, ignored = to_veil(text, spans)
        record = {
            "id": f"ps-{index}",
            "lang": "en",
            "domain": "presidio-synth",
            "split": "dev" if sample.template_id % 5 == 0 else "test",
            "template": sample.template_id,
            "negative": not entities,
            "text": text,
            "entities": entities,
            "ignored": ignored,
        }
        lines.append(json.dumps(record, ensure_ascii=False) + "\n")
    Path(args.out).write_text("".join(lines), encoding="utf-8")
    print(f"{args.out}: {len(lines)} records")


if __name__ == "__main__":
    main()
