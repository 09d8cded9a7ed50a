#!/usr/bin/env bash
# `make guard-corpus`: rebuild the output-guard corpora (data/guard-ordinary.jsonl from the
# hand-written answers, templates, node_modules READMEs and ner/.venv docstrings; data/guard-leaks.jsonl
# from Faker, python-stdnum and phonenumbers in .venv-guard-corpus, gitignored). Deterministic.
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV=.venv-guard-corpus
if [[ ! -x "$VENV/bin/python" ]]; then
  python3 -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c "import faker, stdnum, phonenumbers" 2>/dev/null; then
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "faker==40.54.0" "python-stdnum==2.2" "phonenumbers==9.0.43"
fi
python3 tools/guard-corpus/ordinary.py
"$VENV/bin/python" tools/guard-corpus/leaks.py
