#!/usr/bin/env bash
# A Python virtual environment from hash-pinned locks, built once per content and reused:
#   scripts/py-venv.sh VENV PYTHON LOCK... [--editable DIR]
# The locked packages are installed (PyPI wheels only, --require-hashes) into a venv under
# ${XDG_CACHE_HOME:-~/.cache}/veil/venv/, named by a key over this script's version, the Python
# (resolved path and full version) and the bytes of every lock: another clone, or the same clone
# after `make clean`, with the same locks reuses it, and a changed lock or Python gets a new one.
# A venv records its own path (scripts' #! lines, pyvenv.cfg), so it is built where it stays,
# under a lock (flock) against a concurrent build of the same key, and used only once its last
# step wrote .veil-complete (a build that died half way is removed and redone).
#
# VENV (in the checkout) is then:
# - without --editable: a symlink to the cached venv (VENV/bin/python, VENV/bin/<script> work);
# - with --editable DIR: a small venv of its own (no pip of its own) whose site-packages point at
#   the cached one (a .pth line), with DIR installed editable into it, so the package resolves to
#   this checkout's sources and the cache is never written by a checkout.
# Both end with `pip check`. Nothing else is cached: on a new machine the first run builds.
set -euo pipefail
VERSION=1
usage() { echo "usage: $0 VENV PYTHON LOCK... [--editable DIR]" >&2; exit 2; }
[ $# -ge 3 ] || usage
venv=$1 python=$2
shift 2
locks=() editable=""
while [ $# -gt 0 ]; do
  case $1 in
    --editable) [ $# -ge 2 ] || usage; editable=$2; shift 2 ;;
    *) locks+=("$1"); shift ;;
  esac
done
[ ${#locks[@]} -gt 0 ] || usage

python_path=$(readlink -f "$(command -v "$python")")
python_version=$("$python" -c 'import sys; print(sys.version)')
key=$({
  echo "py-venv $VERSION"
  echo "$python_path"
  echo "$python_version"
  for lock in "${locks[@]}"; do echo "--- $lock"; cat "$lock"; done
} | sha256sum | cut -c1-16)
root=${XDG_CACHE_HOME:-$HOME/.cache}/veil/venv
name=$(printf '%s' "$venv" | tr -c 'A-Za-z0-9_.-' '-' | sed 's/^[.-]*//')
cache=$root/$name-$key
mkdir -p "$root"

(
  flock 9
  if [ ! -f "$cache/.veil-complete" ]; then
    echo "py-venv: building $cache (${locks[*]})"
    rm -rf "$cache"
    "$python" -m venv "$cache"
    requirements=()
    for lock in "${locks[@]}"; do requirements+=(-r "$lock"); done
    "$cache/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes --only-binary :all: "${requirements[@]}"
    "$cache/bin/python" -m pip check >/dev/null
    touch "$cache/.veil-complete"
  else
    echo "py-venv: reusing $cache"
  fi
) 9>"$cache.lock"

rm -rf "$venv"
if [ -z "$editable" ]; then
  ln -s "$cache" "$venv"
else
  "$python" -m venv --without-pip "$venv"
  shared=$("$cache/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
  own=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
  # addsitedir also runs the .pth files there (setuptools' distutils-precedence.pth).
  printf 'import site; site.addsitedir(%s)\n' "'$shared'" >"$own/_veil_cached_venv.pth"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation --no-index -e "$editable"
fi
"$venv/bin/python" -m pip check
