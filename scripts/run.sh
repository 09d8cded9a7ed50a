#!/usr/bin/env bash
# `make run`: start the NER sidecar and the Veil server in detector mode `both`, so names are
# detected out of the box. NER=0 runs the server alone (regex detectors only). The sidecar gets a
# fresh random shared secret per run and stops when the server does. PORT and HOST (else the
# server's VEIL_PORT and VEIL_HOST) choose where it listens.
#
# State is durable: unless VEIL_CONFIG names a configuration (which then decides) or the
# variables below are set, revocations, replay counters and idempotency records live in one
# SQLite database under DATA_DIR (default .veil-data/, gitignored), so an erasure survives a
# restart or a crash; the session, digest and corpus secrets are generated once beside it
# (<database>.keys), so sealed blobs and revocation digests survive too. With shared stores the
# server runs one worker process per core under a primary that restarts a worker that dies.
set -euo pipefail
cd "$(dirname "$0")/.."
PORT=${PORT:-${VEIL_PORT:-3000}}
HOST=${HOST:-${VEIL_HOST:-}}
NER_PORT=${NER_PORT:-8001}
listen=(--port "$PORT")
if [ -n "$HOST" ]; then listen+=(--host "$HOST"); fi
if [ -z "${VEIL_CONFIG:-}" ]; then
  DATA_DIR=${DATA_DIR:-.veil-data}
  mkdir -p "$DATA_DIR"
  chmod 700 "$DATA_DIR"
  export VEIL_STORAGE__SQLITE_PATH=${VEIL_STORAGE__SQLITE_PATH:-$DATA_DIR/veil.db}
  export VEIL_REVOCATION_BACKEND=${VEIL_REVOCATION_BACKEND:-sqlite}
  export VEIL_REPLAY_BACKEND=${VEIL_REPLAY_BACKEND:-sqlite}
  export VEIL_IDEMPOTENCY__BACKEND=${VEIL_IDEMPOTENCY__BACKEND:-sqlite}
  echo "make run: revocations, replay counters and idempotency records are kept in $VEIL_STORAGE__SQLITE_PATH (durable across restarts)" >&2
fi
# Two malloc arenas, a young generation bounded at 32 MiB and optimizing compiles on the main
# thread, as in the server image (docs/operations.md "Malloc arenas", "Young generation",
# "Compiler memory").
export MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2}
if [ "${NER:-1}" = "0" ]; then
  exec node --max-semi-space-size=8 --no-concurrent-recompilation server/bin/veil.js serve "${listen[@]}"
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
  node --max-semi-space-size=8 --no-concurrent-recompilation server/bin/veil.js serve "${listen[@]}"
