#!/usr/bin/env bash
# `make run`: start the NER sidecar and the Veil server in detector mode `both`, so names are
# detected out of the box. NER=0 runs the server alone (regex detectors only). The sidecar gets a
# fresh random shared secret per run and stops when the server does. PORT and HOST (else the
# server's VEIL_PORT and VEIL_HOST) choose where it listens.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=${PORT:-${VEIL_PORT:-3000}}
HOST=${HOST:-${VEIL_HOST:-}}
NER_PORT=${NER_PORT:-8001}
listen=(--port "$PORT")
if [ -n "$HOST" ]; then listen+=(--host "$HOST"); fi
if [ "${NER:-1}" = "0" ]; then
  exec node server/bin/veil.js serve "${listen[@]}"
fi
key=$(node -e "process.stdout.write(require('node:crypto').randomBytes(24).toString('hex'))")
# VEIL_NER_* only on the sidecar's command line: the server refuses unknown VEIL_* variables.
VEIL_NER_API_KEY=$key VEIL_NER_PORT=$NER_PORT ner/.venv/bin/python -m veil_ner &
ner_pid=$!
trap 'kill "$ner_pid" 2>/dev/null || true' EXIT INT TERM
node -e "
const url = 'http://127.0.0.1:${NER_PORT}/readyz';
const deadline = Date.now() + 120000;
(async () => {
  while (Date.now() < deadline) {
    try { if ((await fetch(url)).ok) return; } catch {}
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  console.error('veil-ner did not become ready; run with NER=0 for regex-only detection');
  process.exit(1);
})();"
VEIL_DETECTOR__MODE=both VEIL_DETECTOR__ADVANCED_URL=http://127.0.0.1:$NER_PORT VEIL_DETECTOR__API_KEY=$key \
  node server/bin/veil.js serve "${listen[@]}"
