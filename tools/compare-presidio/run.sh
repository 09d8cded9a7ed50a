#!/usr/bin/env bash
# `make compare-presidio`: create .venv-presidio (gitignored, venv.sh), install the pinned Presidio
# analyzer from PyPI, and compare it with Veil on the labeled corpora (tools/compare-presidio/compare.py),
# then on the held-out free-text corpora with Veil's NER sidecar (heldout_ner.py).
set -euo pipefail
cd "$(dirname "$0")/../.."
source tools/compare-presidio/venv.sh
corpora=(data/dev-corpus.jsonl data/catalog-cases.jsonl data/hard-negatives.jsonl data/heldout-faker.jsonl)
"$VENV/bin/python" tools/compare-presidio/compare.py "${corpora[@]}" "$@"
# Names, organizations, places and addresses in free text, held out (docs/detection.md).
"$VENV/bin/python" tools/compare-presidio/heldout_ner.py "$@"
