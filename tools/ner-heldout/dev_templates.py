#!/usr/bin/env python3
"""More records on the DEV templates of data/heldout-presidio-synth.jsonl, with fresh values.

The held-out corpus (presidio_synth.py) splits Presidio's generator templates by id: `template_id
% 5 == 0` is the dev split (404 records, inspected for sessions, so its values are worn out), every
other template is the held-out test split. This writes new samples of the generator with another
seed and keeps ONLY dev-template samples: samples drawn from a test template are dropped in memory
before anything is converted or written, so no test template's wording is ever seen. What a larger
dev set adds is fresh values (names, companies, towns, addresses) in the dev templates' frames:
an error analysis by class that the 404 worn records can no longer give. Values from this file are
never copied into a word list (the gazetteers stay free of the generator's own lists).

Same labels as the corpus (`to_veil`, newlines unescaped). Throw-away venv as presidio_synth.py's
docstring says. Usage:
  /tmp/pe/bin/python tools/ner-heldout/dev_templates.py --count 2000 --seed 1201 --out /tmp/devt1201.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from presidio_synth import to_veil, unescape_newlines


def main() -> None:
    from presidio_evaluator.data_generator import PresidioSentenceFaker

    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=2000, help="dev-template records to write")
    parser.add_argument("--seed", type=int, default=1201)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    if args.seed == 42:
        raise SystemExit("seed 42 is the held-out corpus's own seed; pick another")
    random.seed(args.seed)
    faker = PresidioSentenceFaker("en_US", lower_case_ratio=0.05, random_seed=args.seed)
    lines: list[str] = []
    while len(lines) < args.count:
        for sample in faker.generate_new_fake_sentences(args.count * 5):
            if sample.template_id % 5 != 0:
                continue  # a test template: dropped unread
            spans = [(s.entity_type, s.start_position, s.end_position) for s in sample.spans]
            text, spans = unescape_newlines(sample.full_text, spans)
            entities, ignored = to_veil(text, spans)
            record = {
                "id": f"dt{args.seed}-{len(lines)}",
                "lang": "en",
                "domain": "presidio-synth-dev-templates",
                "split": "dev",
                "template": sample.template_id,
                "negative": not entities,
                "text": text,
                "entities": entities,
                "ignored": ignored,
            }
            lines.append(json.dumps(record, ensure_ascii=False) + "\n")
            if len(lines) == args.count:
                break
    Path(args.out).write_text("".join(lines), encoding="utf-8")
    print(f"{args.out}: {len(lines)} dev-template records (seed {args.seed})")


if __name__ == "__main__":
    main()
