#!/usr/bin/env bash
# `make schemathesis`: contract-fuzz the real server against its OpenAPI document. Starts
# `veil serve` (dev mode, sealed sessions, SQLite stores in a temporary directory) on a free
# loopback port, runs schemathesis (PyPI, hash-pinned in tools/schemathesis/requirements.lock,
# in .venv-schemathesis, a link to a venv cached per lock: scripts/py-venv.sh) on docs/openapi.json with a bounded number of examples per
# operation and the checks not_a_server_error and response_schema_conformance, then checks that
# the server survived (still running, /livez answers, no fatal log line): crash detection.
# SCHEMATHESIS_EXAMPLES (default 8) bounds the fuzzing examples per operation; SCHEMATHESIS_SEED
# makes a run reproducible (default: a fixed seed, so CI runs are comparable).
set -euo pipefail
cd "$(dirname "$0")/.."
python=${NER_PYTHON:-python3}
venv=.venv-schemathesis
lock=tools/schemathesis/requirements.lock
if [ ! -f "$venv/.veil-installed" ] || [ "$lock" -nt "$venv/.veil-installed" ]; then
  # Built once per lock and Python under ~/.cache/veil/venv/ and linked here (scripts/py-venv.sh).
  echo "schemathesis: the pinned version in $venv"
  scripts/py-venv.sh "$venv" "$python" "$lock"
  touch "$venv/.veil-installed"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/veil-schemathesis.XXXXXX")
server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

secret=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
: >"$work/server.log"
VEIL_LOG_FORMAT=json VEIL_SERVER__WORKERS=1 VEIL_SESSION_SECRET="$secret" \
  VEIL_STORAGE__SQLITE_PATH="$work/veil.db" VEIL_REPLAY_BACKEND=sqlite VEIL_REVOCATION_BACKEND=sqlite VEIL_IDEMPOTENCY__BACKEND=sqlite \
  node server/bin/veil.js serve --host 127.0.0.1 --port 0 >"$work/server.log" 2>&1 &
server_pid=$!
url=""
for _ in $(seq 1 200); do
  url=$(node -e "
    const lines = require('node:fs').readFileSync(process.argv[1], 'utf8').split('\n');
    for (const line of lines) { try { const entry = JSON.parse(line); if (entry.url) { process.stdout.write(entry.url); break; } } catch {} }" "$work/server.log")
  [ -n "$url" ] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log"; echo "schemathesis: the server did not start"; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "schemathesis: the server did not report its address"; exit 1; }
echo "schemathesis: fuzzing $url with docs/openapi.json"

status=0
"$venv/bin/schemathesis" run docs/openapi.json --url "$url" \
  --checks not_a_server_error,response_schema_conformance \
  --max-examples "${SCHEMATHESIS_EXAMPLES:-8}" --seed "${SCHEMATHESIS_SEED:-20261126}" \
  --request-timeout 30 --workers 2 --no-color "$@" || status=$?

# Crash detection: the process must still be serving and must not have logged a fatal error.
if ! kill -0 "$server_pid" 2>/dev/null; then echo "schemathesis: the server process died during the run"; tail -20 "$work/server.log"; exit 1; fi
if ! node -e "fetch(process.argv[1] + '/livez').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))" "$url"; then
  echo "schemathesis: the server stopped answering /livez"; exit 1
fi
if grep -q '"level":60' "$work/server.log"; then echo "schemathesis: the server logged a fatal error"; grep '"level":60' "$work/server.log" | head -5; exit 1; fi
echo "schemathesis: server alive after the run"
exit "$status"
