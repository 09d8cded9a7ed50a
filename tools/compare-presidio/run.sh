#!/usr/bin/env bash
# `make compare-presidio`: create .venv-presidio (gitignored), install the pinned Presidio
# analyzer from PyPI, and compare it with Veil on the labeled corpora (tools/compare-presidio/compare.py).
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV=.venv-presidio
PRESIDIO_VERSION=2.2.366
if [[ ! -x "$VENV/bin/python" ]]; then
  python3 -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c "import presidio_analyzer, stdnum, faker" 2>/dev/null || \
   [[ "$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("presidio-analyzer"))')" != "$PRESIDIO_VERSION" ]]; then
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "presidio-analyzer==$PRESIDIO_VERSION" "python-stdnum==2.2" "faker==40.54.0"
fi
corpora=(data/dev-corpus.jsonl data/catalog-cases.jsonl data/hard-negatives.jsonl data/heldout-faker.jsonl)
"$VENV/bin/python" tools/compare-presidio/compare.py "${corpora[@]}" "$@"
