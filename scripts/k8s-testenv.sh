#!/usr/bin/env bash
# A real Kubernetes control plane for Veil's real-cluster test suites, built from the Go module
# proxy only (no container registry, no GitHub release downloads): etcd, kube-apiserver,
# kube-controller-manager (garbage collection, Deployments -> ReplicaSets -> Pods, ServiceAccount
# tokens), kube-scheduler and kwok (a fake node whose pods report Running; there is no kubelet).
#
#   scripts/k8s-testenv.sh build        build once; binaries cached under
#                                       ${XDG_CACHE_HOME:-$HOME/.cache}/veil/k8s/<version>-<goarch>/
#   scripts/k8s-testenv.sh start        start on 127.0.0.1 (TLS, client certs, RBAC, default
#                                       admission + OwnerReferencesPermissionEnforcement)
#   scripts/k8s-testenv.sh stop         stop what start started (by PID) and wipe etcd's data
#   scripts/k8s-testenv.sh status       print whether it runs and the admin kubeconfig
#   scripts/k8s-testenv.sh run CMD...   build (if needed), start, run CMD with VEIL_E2E_KUBECONFIG
#                                       set, stop (also when CMD fails).
#                                       Where Go or the module proxy is missing, CMD runs without a
#                                       cluster and the real-cluster suites skip; the reason is
#                                       printed loudly.
#
# Exit status 3 from build: Go or the module proxy is not available (the reason is on stderr).
# Environment: VEIL_K8S_NO_BUILD=1 (run skips instead of building), VEIL_K8S_VERSION (v1.34.4),
# VEIL_KWOK_VERSION (v0.8.0), VEIL_K8S_CACHE (cache directory for this version), VEIL_K8S_RUN
# (run directory, default .cache/k8s-run in the checkout),
# VEIL_K8S_API_PORT (default: the first of 16443, 16543, ... whose block of ports is free; etcd,
# the controller manager and the scheduler use the ports after it, and kwok's pod IPs come from
# 127.0.<10 + block>.0/24, so two checkouts on one machine do not collide).
#
# Why each step is the way it is:
# - k8s.io/kubernetes cannot be `go install`ed: it requires its 29 staging modules at v0.0.0. A
#   scratch module requires it and replaces each staging module with its published v0.<minor>
#   twin. etcd's own main package cannot be installed either; a one-line main calling
#   etcdmain.Main in the same module builds the etcd version Kubernetes pins (3.6.x for 1.34).
# - The version is stamped with -ldflags -X, else the server reports v0.0.0-master and Helm's
#   kubeVersion checks fail.
# - kwok needs a stage file (the default stages ship inside its module) and a Node object; the
#   node.kubernetes.io/not-ready taint that admission adds is removed because the node lifecycle
#   controller that would remove it is off. Pod IPs come from a loopback range.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
K8S_VERSION="${VEIL_K8S_VERSION:-v1.34.4}"
KWOK_VERSION="${VEIL_KWOK_VERSION:-v0.8.0}"
case "$(uname -m)" in
  x86_64 | amd64) goarch=amd64 ;;
  aarch64 | arm64) goarch=arm64 ;;
  *) goarch="$(uname -m)" ;;
esac
CACHE="${VEIL_K8S_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/veil/k8s/$K8S_VERSION-$goarch}"
BIN="$CACHE/bin"
RUN="${VEIL_K8S_RUN:-$root/.cache/k8s-run}"
# The port of a running control plane is recorded in $RUN/api-port; start picks one when unset.
API_PORT="${VEIL_K8S_API_PORT:-$(cat "$RUN/api-port" 2>/dev/null || echo 16443)}"
set_ports() {
  ETCD_PORT=$((API_PORT + 10))
  KCM_PORT=$((API_PORT + 1))
  SCHED_PORT=$((API_PORT + 2))
  POD_OCTET=$((10 + (API_PORT - 16443) / 100 % 200))
}
set_ports
BINARIES=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok)
# The stamp names everything the cached binaries depend on; a different version builds afresh.
STAMP_TEXT="kubernetes=$K8S_VERSION kwok=$KWOK_VERSION goarch=$goarch"

log() { echo "k8s-testenv: $*" >&2; }
die() {
  log "$*"
  exit 1
}
now() { date +%s; }

built() {
  [[ -f "$BIN/.complete" && "$(cat "$BIN/.complete")" == "$STAMP_TEXT" ]] || return 1
  local b
  for b in "${BINARIES[@]}"; do [[ -x "$BIN/$b" ]] || return 1; done
  [[ -f "$CACHE/kwok-stages.yaml" ]]
}

# Runs "$@" and prints a line every 30 s while it runs: a cold build takes many minutes and a CI
# log that stays silent that long looks hung.
with_progress() {
  local what="$1"
  shift
  local started
  started="$(now)"
  "$@" &
  local pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    for _ in $(seq 1 30); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 1
    done
    kill -0 "$pid" 2>/dev/null && log "  still building $what ($(($(now) - started))s)"
  done
  wait "$pid"
}

# Exit 3 with the reason when Go or the proxy cannot be used: `run` then skips the suites loudly.
require_go() {
  if ! command -v go >/dev/null 2>&1; then
    log "Go is not installed (need go >= 1.24 to build the control plane from the module proxy)"
    exit 3
  fi
  local v
  v="$(go env GOVERSION 2>/dev/null || true)"
  v="${v#go}"
  local major="${v%%.*}" minor
  minor="${v#*.}"
  minor="${minor%%.*}"
  if [[ -z "$v" || "$major" -lt 1 || ("$major" -eq 1 && "$minor" -lt 24) ]]; then
    log "Go ${v:-unknown} is too old (need >= 1.24)"
    exit 3
  fi
  local proxy
  proxy="$(go env GOPROXY)"
  proxy="${proxy%%,*}"
  proxy="${proxy%%|*}"
  if [[ "$proxy" == off ]]; then
    log "GOPROXY=off: the module proxy is needed to fetch Kubernetes and etcd"
    exit 3
  fi
  if [[ "$proxy" == http* ]] && ! curl -sfo /dev/null --max-time 20 "$proxy/k8s.io/kubernetes/@v/$K8S_VERSION.info"; then
    log "the Go module proxy $proxy does not answer for k8s.io/kubernetes@$K8S_VERSION"
    exit 3
  fi
}

cmd_build() {
  if built; then
    log "cached: $BIN ($STAMP_TEXT)"
    return 0
  fi
  require_go
  local t0
  t0="$(now)"
  local src="$CACHE/src"
  rm -rf "$BIN" "$src"
  mkdir -p "$BIN" "$src/cmd/etcd"
  log "building Kubernetes $K8S_VERSION, etcd and kwok $KWOK_VERSION into $BIN"
  log "a cold build takes 15-20 min on 2 cores (Go module and build caches make later builds faster)"
  (
    cd "$src"
    go mod init veil.dev/k8s-testenv >/dev/null 2>&1
    go mod edit -go=1.24.0 -godebug=default=go1.24 -require="k8s.io/kubernetes@$K8S_VERSION"
    log "downloading k8s.io/kubernetes@$K8S_VERSION"
    local info
    info="$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION")"
    local gomod
    gomod="$(printf '%s' "$info" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')"
    [[ -f "$gomod" ]] || die "go mod download did not name k8s.io/kubernetes's go.mod"
    local staging="v0.${K8S_VERSION#v1.}" m
    for m in $(awk '/^\tk8s.io\/[a-z0-9-]+ v0.0.0$/ {print $1}' "$gomod"); do
      go mod edit -replace="$m=$m@$staging"
    done
    cat >cmd/etcd/main.go <<'GO'
// etcd at the version Kubernetes pins, built from the module proxy (same entry point as etcd's main).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
    cat >tools.go <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
GO
    log "resolving modules (go mod tidy)"
    with_progress "module graph" go mod tidy
    local minor="${K8S_VERSION#v1.}" ldx="" pkg
    minor="${minor%%.*}"
    for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
      ldx="$ldx -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
    done
    local t started
    for t in etcd kube-apiserver kube-controller-manager kube-scheduler; do
      started="$(now)"
      log "building $t"
      if [[ "$t" == etcd ]]; then
        with_progress "$t" go build -trimpath -ldflags="-s -w" -o "$BIN/etcd" ./cmd/etcd
      else
        with_progress "$t" go build -trimpath -ldflags="-s -w $ldx" -o "$BIN/$t" "k8s.io/kubernetes/cmd/$t"
      fi
      log "built $t in $(($(now) - started))s ($(du -m "$BIN/$t" | cut -f1) MB)"
    done
  )
  local started
  started="$(now)"
  log "building kwok $KWOK_VERSION"
  GOBIN="$BIN" GOFLAGS=-mod=mod with_progress kwok go install -trimpath -ldflags="-s -w" "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
  log "built kwok in $(($(now) - started))s ($(du -m "$BIN/kwok" | cut -f1) MB)"
  local stages
  stages="$(go env GOMODCACHE)/sigs.k8s.io/kwok@$KWOK_VERSION/kustomize/stage"
  local f
  for f in node/fast/node-initialize.yaml node/heartbeat-with-lease/node-heartbeat-with-lease.yaml \
    pod/fast/pod-ready.yaml pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do
    echo "---"
    cat "$stages/$f"
  done >"$CACHE/kwok-stages.yaml"
  rm -rf "$src"
  echo "$STAMP_TEXT" >"$BIN/.complete"
  log "build done in $(($(now) - t0))s: $(du -sm "$BIN" | cut -f1) MB in $BIN"
}

# Self-signed PKI: a CA for serving and client certificates, a front-proxy CA (the aggregation
# layer; keeps the controller manager quiet), and the service-account signing key pair.
pki() {
  local d="$RUN/pki"
  mkdir -p "$d"
  (
    cd "$d"
    [[ -f ca.crt ]] || {
      openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -sha256 -days 3650 -subj "/CN=veil-test-ca" -out ca.crt 2>/dev/null
      openssl req -x509 -newkey rsa:2048 -nodes -keyout front-proxy-ca.key -sha256 -days 3650 -subj "/CN=veil-test-front-proxy-ca" -out front-proxy-ca.crt 2>/dev/null
    }
    printf '%s\n' basicConstraints=CA:FALSE keyUsage=critical,digitalSignature,keyEncipherment extendedKeyUsage=serverAuth \
      subjectAltName=IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local >server.ext
    printf '%s\n' basicConstraints=CA:FALSE keyUsage=critical,digitalSignature,keyEncipherment extendedKeyUsage=clientAuth >client.ext
    issue() { # name subject ca ext
      [[ -f "$1.crt" ]] && return 0
      openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -subj "$2" -out "$1.csr" 2>/dev/null
      openssl x509 -req -in "$1.csr" -CA "$3.crt" -CAkey "$3.key" -CAcreateserial -days 3650 -sha256 -extfile "$4" -out "$1.crt" 2>/dev/null
      rm -f "$1.csr"
    }
    issue apiserver /CN=kube-apiserver ca server.ext
    issue admin /CN=veil-test-admin/O=system:masters ca client.ext
    issue kcm /CN=system:kube-controller-manager ca client.ext
    issue scheduler /CN=system:kube-scheduler ca client.ext
    issue kwok /CN=kwok-controller/O=system:masters ca client.ext
    issue front-proxy-client /CN=front-proxy-client front-proxy-ca client.ext
    [[ -f sa.key ]] || {
      openssl genrsa -out sa.key 2048 2>/dev/null
      openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
    }
  )
}

# A kubeconfig with embedded certificates, written directly (kubectl is not needed to start).
kubeconfig() { # name cert
  local p="$RUN/pki"
  cat >"$RUN/$1.kubeconfig" <<YAML
apiVersion: v1
kind: Config
clusters:
  - name: veil-test
    cluster:
      server: https://127.0.0.1:$API_PORT
      certificate-authority-data: $(base64 -w0 "$p/ca.crt")
users:
  - name: $1
    user:
      client-certificate-data: $(base64 -w0 "$p/$2.crt")
      client-key-data: $(base64 -w0 "$p/$2.key")
contexts:
  - name: veil-test
    context: {cluster: veil-test, user: $1}
current-context: veil-test
YAML
  chmod 0600 "$RUN/$1.kubeconfig"
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

spawn() { # name command...
  local name="$1"
  shift
  "$@" >"$RUN/logs/$name.log" 2>&1 &
  echo "$name $!" >>"$RUN/pids"
}

api() { # path -> HTTP status, as the admin
  local p="$RUN/pki"
  curl -s -o "${2:-/dev/null}" -w '%{http_code}' --cacert "$p/ca.crt" --cert "$p/admin.crt" --key "$p/admin.key" "https://127.0.0.1:$API_PORT$1" || true
}

wait_for() { # what tries command...
  local what="$1" tries="$2"
  shift 2
  for _ in $(seq 1 "$tries"); do
    "$@" && return 0
    sleep 0.1
  done
  die "$what did not come up; logs in $RUN/logs"
}

cmd_start() {
  built || die "not built: run '$0 build' first"
  if [[ -f "$RUN/pids" ]]; then
    log "a previous control plane is recorded in $RUN/pids; stopping it first"
    cmd_stop
  fi
  block_free() {
    local port
    for port in "$API_PORT" "$KCM_PORT" "$SCHED_PORT" "$ETCD_PORT" $((ETCD_PORT + 1)) $((ETCD_PORT + 2)); do
      port_free "$port" || return 1
    done
  }
  if [[ -z "${VEIL_K8S_API_PORT:-}" ]]; then
    API_PORT=16443
    set_ports
    until block_free; do
      API_PORT=$((API_PORT + 100))
      set_ports
      [[ $API_PORT -lt 18443 ]] || die "no free block of ports from 16443 to 18443 on 127.0.0.1"
    done
  else
    block_free || die "a port of the block at VEIL_K8S_API_PORT=$API_PORT on 127.0.0.1 is taken"
  fi
  local t0
  t0="$(date +%s.%N)"
  # Whatever fails from here on, nothing started stays running.
  trap 'status=$?; [[ $status -eq 0 ]] || cmd_stop; exit $status' EXIT
  rm -rf "$RUN/etcd" "$RUN/logs"
  mkdir -p "$RUN/logs" "$RUN/etcd"
  : >"$RUN/pids"
  echo "$API_PORT" >"$RUN/api-port"
  pki
  local p="$RUN/pki"
  kubeconfig admin admin
  kubeconfig kcm kcm
  kubeconfig scheduler scheduler
  kubeconfig kwok kwok

  # fsync off: the data is thrown away at stop, and fsync dominates etcd latency on shared disks.
  spawn etcd "$BIN/etcd" --name veil-test --data-dir "$RUN/etcd" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$((ETCD_PORT + 1))" --initial-advertise-peer-urls "http://127.0.0.1:$((ETCD_PORT + 1))" \
    --initial-cluster "veil-test=http://127.0.0.1:$((ETCD_PORT + 1))" \
    --listen-metrics-urls "http://127.0.0.1:$((ETCD_PORT + 2))" \
    --unsafe-no-fsync --log-level=warn
  wait_for etcd 200 curl -sf -o /dev/null "http://127.0.0.1:$ETCD_PORT/health"

  spawn kube-apiserver "$BIN/kube-apiserver" \
    --etcd-servers "http://127.0.0.1:$ETCD_PORT" \
    --bind-address 127.0.0.1 --secure-port "$API_PORT" --advertise-address 127.0.0.1 \
    --endpoint-reconciler-type none \
    --cert-dir "$RUN/apiserver-certs" \
    --tls-cert-file "$p/apiserver.crt" --tls-private-key-file "$p/apiserver.key" \
    --client-ca-file "$p/ca.crt" \
    --requestheader-client-ca-file "$p/front-proxy-ca.crt" --requestheader-allowed-names front-proxy-client \
    --requestheader-username-headers X-Remote-User --requestheader-group-headers X-Remote-Group \
    --requestheader-extra-headers-prefix X-Remote-Extra- \
    --proxy-client-cert-file "$p/front-proxy-client.crt" --proxy-client-key-file "$p/front-proxy-client.key" \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$p/sa.pub" --service-account-signing-key-file "$p/sa.key" \
    --api-audiences https://kubernetes.default.svc.cluster.local \
    --service-cluster-ip-range 10.0.0.0/24 \
    --authorization-mode Node,RBAC \
    --enable-admission-plugins OwnerReferencesPermissionEnforcement \
    --allow-privileged=false --profiling=false --v=1
  apiserver_ready() { [[ "$(api /readyz)" == 200 ]]; }
  wait_for kube-apiserver 900 apiserver_ready
  local t_api
  t_api="$(date +%s.%N)"

  spawn kube-controller-manager "$BIN/kube-controller-manager" \
    --kubeconfig "$RUN/kcm.kubeconfig" --authentication-kubeconfig "$RUN/kcm.kubeconfig" \
    --authorization-kubeconfig "$RUN/kcm.kubeconfig" \
    --bind-address 127.0.0.1 --secure-port "$KCM_PORT" \
    --root-ca-file "$p/ca.crt" --service-account-private-key-file "$p/sa.key" \
    --use-service-account-credentials=true \
    --cluster-signing-cert-file "$p/ca.crt" --cluster-signing-key-file "$p/ca.key" \
    --service-cluster-ip-range 10.0.0.0/24 --leader-elect=false \
    --controllers '*,-nodeipam,-nodelifecycle,-cloud-node-lifecycle,-route,-service-lb-controller,-attachdetach,-persistentvolume-expander' \
    --v=1
  spawn kube-scheduler "$BIN/kube-scheduler" --kubeconfig "$RUN/scheduler.kubeconfig" \
    --authentication-kubeconfig "$RUN/scheduler.kubeconfig" --authorization-kubeconfig "$RUN/scheduler.kubeconfig" \
    --bind-address 127.0.0.1 --secure-port "$SCHED_PORT" --leader-elect=false --v=1
  spawn kwok "$BIN/kwok" --kubeconfig "$RUN/kwok.kubeconfig" -c "$CACHE/kwok-stages.yaml" \
    --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
    --cidr="127.0.$POD_OCTET.0/24" --node-ip=127.0.0.1

  # The fake node. Admission taints it not-ready; nothing else would lift the taint here.
  local node='{"apiVersion":"v1","kind":"Node","metadata":{"name":"kwok-node-0","annotations":{"kwok.x-k8s.io/node":"fake"},"labels":{"kubernetes.io/hostname":"kwok-node-0","kubernetes.io/os":"linux","type":"kwok"}},"status":{"allocatable":{"cpu":"32","memory":"256Gi","pods":"110"},"capacity":{"cpu":"32","memory":"256Gi","pods":"110"}}}'
  curl -sf -o /dev/null --cacert "$p/ca.crt" --cert "$p/admin.crt" --key "$p/admin.key" \
    -H 'Content-Type: application/json' -d "$node" "https://127.0.0.1:$API_PORT/api/v1/nodes" ||
    die "could not create the kwok node"
  local untaint='[{"op":"test","path":"/spec/taints","value":[{"key":"node.kubernetes.io/not-ready","effect":"NoSchedule"}]},{"op":"remove","path":"/spec/taints"}]'
  untainted() {
    curl -sf -o /dev/null --cacert "$p/ca.crt" --cert "$p/admin.crt" --key "$p/admin.key" -X PATCH \
      -H 'Content-Type: application/json-patch+json' -d "$untaint" "https://127.0.0.1:$API_PORT/api/v1/nodes/kwok-node-0"
  }
  wait_for "the kwok node's taint" 100 untainted
  ready_node() {
    api /api/v1/nodes/kwok-node-0 "$RUN/node.json" >/dev/null
    grep -q '"type": *"Ready",[^}]*"status": *"True"' "$RUN/node.json" 2>/dev/null ||
      tr -d '\n ' <"$RUN/node.json" | grep -q '"type":"Ready","status":"True"'
  }
  wait_for "kwok (node Ready)" 300 ready_node
  rm -f "$RUN/node.json"
  # The default ServiceAccount appears once the controller manager runs: pods need it.
  default_sa() { [[ "$(api /api/v1/namespaces/default/serviceaccounts/default)" == 200 ]]; }
  wait_for "the controller manager (default ServiceAccount)" 300 default_sa
  printf 'k8s-testenv: kube-apiserver ready after %.1fs, everything after %.1fs\n' \
    "$(echo "$t_api - $t0" | bc)" "$(echo "$(date +%s.%N) - $t0" | bc)" >&2
  trap - EXIT
  echo "KUBECONFIG=$RUN/admin.kubeconfig"
}

cmd_stop() {
  [[ -f "$RUN/pids" ]] || {
    log "nothing recorded in $RUN/pids"
    return 0
  }
  local name pid
  tac "$RUN/pids" | while read -r name pid; do
    kill -0 "$pid" 2>/dev/null || continue
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
    log "stopped $name ($pid)"
  done
  rm -rf "$RUN/pids" "$RUN/etcd" "$RUN/apiserver-certs" "$RUN/api-port"
}

cmd_status() {
  if [[ -f "$RUN/pids" ]] && [[ "$(api /readyz)" == 200 ]]; then
    echo "running: KUBECONFIG=$RUN/admin.kubeconfig"
  else
    echo "not running"
    return 1
  fi
}

cmd_run() {
  [[ $# -gt 0 ]] || die "usage: $0 run CMD..."
  local status=0
  # A subshell: cmd_build exits 3 (no Go, no proxy) and that must not end this script.
  # VEIL_K8S_NO_BUILD=1 skips instead of building when nothing is cached (a cold build takes
  # 20-40 min on 2 cores, more than a CI run may spend); `make k8s-build` fills the cache.
  if [[ "${VEIL_K8S_NO_BUILD:-}" == 1 ]] && ! built; then
    log "VEIL_K8S_NO_BUILD=1 and no control plane is cached in $BIN (make k8s-build builds it)"
    status=3
  else
    (cmd_build) || status=$?
  fi
  if [[ $status -eq 3 ]]; then
    log "################################################################################"
    log "SKIPPING the real-cluster suites: no control plane could be built (reason above)."
    log "################################################################################"
    exec "$@"
  fi
  [[ $status -eq 0 ]] || die "the control plane build failed (exit $status)"
  # cmd_start stops what it started when it fails; once it is up, stopping is ours, whatever CMD does.
  cmd_start >/dev/null
  trap 'cmd_stop' EXIT
  trap 'exit 130' INT TERM
  log "control plane up: KUBECONFIG=$RUN/admin.kubeconfig"
  status=0
  VEIL_E2E_KUBECONFIG="$RUN/admin.kubeconfig" "$@" || status=$?
  return "$status"
}

case "${1:-}" in
  build) cmd_build ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  run)
    shift
    cmd_run "$@"
    ;;
  *)
    sed -n '2,23p' "$0"
    exit 2
    ;;
esac
