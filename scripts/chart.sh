#!/usr/bin/env bash
# `make chart`: helm lint --strict and helm template of charts/veil with the default values and
# the variants the chart tests cover, with the helm that scripts/helm.sh provides. The rendered
# default manifests go to stdout's summary only (object counts); the tests assert on them.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
helm="$("$root/scripts/helm.sh")"
chart="$root/charts/veil"
"$helm" version --short
"$helm" lint --strict "$chart"
render() {
  echo "--- helm template $*"
  "$helm" template veil "$chart" --namespace veil --include-crds "$@" | grep -E '^kind: ' | sort | uniq -c
}
render
render --set redis.enabled=false --set redis.external.existingSecret=ext-redis
render --set server.replicas=3 --set networkPolicy.enabled=true
