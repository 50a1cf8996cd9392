#!/usr/bin/env bash
# A real Kubernetes control plane on loopback, for tests: etcd, kube-apiserver,
# kube-controller-manager (the DaemonSet, garbage-collector, node-lifecycle, taint-eviction and
# pod-GC controllers), kube-scheduler, and kwok in place of kubelets (node leases, node and pod
# status). The way controller-runtime's envtest does it: generated certificates, a static token,
# free loopback ports, one directory that holds everything.
#
#   cluster.sh up DIR           start everything, wait until ready; writes DIR/kubeconfig (admin),
#                               DIR/env (ports, token), DIR/pids; prints the startup time
#   cluster.sh down DIR         stop only the processes this script started (DIR/pids)
#   cluster.sh stop-apiserver DIR / start-apiserver DIR
#                               stop / restart kube-apiserver alone (same port, same data)
#   cluster.sh stop-etcd DIR / start-etcd DIR
#                               stop / restart etcd alone (same ports, same data): kube-apiserver
#                               keeps running without its storage, as in an etcd outage
#
# KWOK_FAILING_IMAGES (space separated): pods with these images crash-loop (never ready).
# EXTRA_CONTROLLERS (comma separated): more kube-controller-manager controllers, e.g.
# deployment-controller,replicaset-controller for a test that installs a Deployment.
#
# Binaries come from .tools/k8s/bin (`make k8s`); K8S_BIN overrides the folder.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BIN=${K8S_BIN:-$root/.tools/k8s/bin}

die() { echo "cluster.sh: $*" >&2; exit 1; }

# A free loopback port below the kernel's ephemeral range (32768 and up), so that no client
# connection can take it between this choice and the server's bind, nor while kube-apiserver is
# stopped and restarted on it; chosen at random so that concurrent clusters rarely collide, and
# a collision shows as a server that exits at once, which up() retries with other ports.
free_port() {
  python3 -c '
import random, socket
for _ in range(200):
    port = random.randrange(20000, 32000)
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
    except OSError:
        continue
    finally:
        s.close()
    print(port)
    break
else:
    raise SystemExit("no free port in 20000-32000")
'
}

now_ms() { date +%s%3N; }

# Waits until URL answers 200 (curl with the admin token over the generated CA), or fails.
wait_ok() {
  local what=$1 url=$2 timeout=${3:-90} start
  start=$(date +%s)
  until curl -sf --max-time 2 --cacert "$DIR/pki/ca.crt" -H "Authorization: Bearer $TOKEN" "$url" >/dev/null 2>&1; do
    if (($(date +%s) - start > timeout)) || ! alive "$what"; then
      echo "cluster.sh: $what did not become ready within ${timeout}s; last log lines:" >&2
      tail -n 30 "$DIR/logs/$what.log" >&2 || true
      return 1
    fi
    sleep 0.2
  done
}

# Whether the process NAME this script started is still running.
alive() {
  local pid
  pid=$(awk -v n="$1" '$1 == n {p = $2} END {print p}' "$DIR/pids")
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

# Starts a command in the background with its own log; records its PID in DIR/pids.
spawn() {
  local name=$1
  shift
  "$@" </dev/null >>"$DIR/logs/$name.log" 2>&1 &
  echo "$name $!" >>"$DIR/pids"
}

pki() {
  local p=$DIR/pki
  mkdir -p "$p"
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=daemonscope-test-ca" \
    -keyout "$p/ca.key" -out "$p/ca.crt" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj "/CN=kube-apiserver" \
    -keyout "$p/apiserver.key" -out "$p/apiserver.csr" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default.svc\n' >"$p/san.ext"
  openssl x509 -req -in "$p/apiserver.csr" -CA "$p/ca.crt" -CAkey "$p/ca.key" -CAcreateserial \
    -days 2 -extfile "$p/san.ext" -out "$p/apiserver.crt" 2>/dev/null
  # Service-account token signing (TokenRequest: `kubectl create token`).
  openssl genrsa -out "$p/sa.key" 2048 2>/dev/null
  openssl rsa -in "$p/sa.key" -pubout -out "$p/sa.pub" 2>/dev/null
}

# kwok's stages with the failing images of KWOK_FAILING_IMAGES (space separated) and the delay
# before a bound pod reports Running (KWOK_READY_DELAY_MS, default 1000).
kwok_stages() {
  local cond="false" img
  for img in ${KWOK_FAILING_IMAGES:-}; do cond="$cond or .image == \"$img\""; done
  sed -e "s|__FAILING__|$cond|g" -e "s|__READY_DELAY_MS__|${KWOK_READY_DELAY_MS:-1000}|g" "$here/kwok-stages.yaml"
}

kubeconfig() { # FILE TOKEN
  cat >"$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: https://127.0.0.1:$APISERVER_PORT
    certificate-authority: $DIR/pki/ca.crt
users:
- name: admin
  user:
    token: $2
contexts:
- name: test
  context: {cluster: test, user: admin}
current-context: test
EOF
}

start_apiserver() {
  spawn kube-apiserver "$BIN/kube-apiserver" \
    --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$APISERVER_PORT" \
    --tls-cert-file="$DIR/pki/apiserver.crt" --tls-private-key-file="$DIR/pki/apiserver.key" \
    --client-ca-file="$DIR/pki/ca.crt" \
    --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
    --token-auth-file="$DIR/tokens.csv" \
    --authorization-mode=RBAC \
    --service-account-issuer=https://kubernetes.default.svc \
    --service-account-key-file="$DIR/pki/sa.pub" \
    --service-account-signing-key-file="$DIR/pki/sa.key" \
    --service-cluster-ip-range=10.96.0.0/16 --endpoint-reconciler-type=none \
    --disable-admission-plugins=ServiceAccount \
    --allow-privileged=true \
    --audit-policy-file="$DIR/audit-policy.yaml" --audit-log-path="$DIR/audit.log" \
    --audit-log-format=json --audit-log-mode=batch --audit-log-batch-max-wait=1s
}

# DIR/env and DIR/kubeconfig for the ports chosen.
write_env() {
  cat >"$DIR/env" <<EOF
ETCD_PORT=$ETCD_PORT
ETCD_PEER_PORT=$ETCD_PEER_PORT
APISERVER_PORT=$APISERVER_PORT
TOKEN=$TOKEN
SERVER=https://127.0.0.1:$APISERVER_PORT
EOF
  kubeconfig "$DIR/kubeconfig" "$TOKEN"
}

# etcd on two fresh ports; fails (for up() to retry) if it exits or is not healthy in 60 s.
start_etcd() {
  local t0
  t0=$(now_ms)
  ETCD_PORT=$(free_port)
  ETCD_PEER_PORT=$(free_port)
  rm -rf "$DIR/etcd"
  spawn_etcd
  until curl -sf --max-time 2 "http://127.0.0.1:$ETCD_PORT/health" >/dev/null 2>&1; do
    if (($(now_ms) - t0 > 60000)) || ! alive etcd; then
      tail -n 30 "$DIR/logs/etcd.log" >&2
      return 1
    fi
    sleep 0.1
  done
  write_env
}

# etcd on ETCD_PORT/ETCD_PEER_PORT over DIR/etcd (kept: a restart finds its data).
spawn_etcd() {
  spawn etcd "$BIN/etcd" --name test --data-dir "$DIR/etcd" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "test=http://127.0.0.1:$ETCD_PEER_PORT" \
    --unsafe-no-fsync --quota-backend-bytes=4294967296 --log-level=warn
}

up() {
  [ -x "$BIN/kube-apiserver" ] || die "no control plane in $BIN: run 'make k8s' first"
  mkdir -p "$DIR/logs"
  : >"$DIR/pids"
  local t0
  t0=$(now_ms)
  pki
  TOKEN=$(openssl rand -hex 16)
  APISERVER_PORT=$(free_port)
  printf '%s,admin,admin-uid,system:masters\n' "$TOKEN" >"$DIR/tokens.csv"
  cat >"$DIR/audit-policy.yaml" <<'EOF'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
EOF

  start_etcd || start_etcd || die "etcd did not start"

  start_apiserver
  if ! wait_ok kube-apiserver "https://127.0.0.1:$APISERVER_PORT/readyz"; then
    grep -q 'address already in use' "$DIR/logs/kube-apiserver.log" || die "kube-apiserver did not start"
    echo "cluster.sh: port $APISERVER_PORT was taken; trying another" >&2
    APISERVER_PORT=$(free_port)
    write_env
    start_apiserver
    wait_ok kube-apiserver "https://127.0.0.1:$APISERVER_PORT/readyz" || die "kube-apiserver did not start"
  fi

  # Controllers: exactly the ones a DaemonSet's life depends on. The node-monitor grace period
  # is long: a node kwok leaves alone (label daemonscope.dev/no-kubelet) keeps the status it was
  # created with (a kubelet reporting Ready=False) instead of turning Unknown/unreachable, and a
  # busy 2-core machine cannot make kwok's leases look late. The NoExecute taint queue's rate
  # (--node-eviction-rate, 0.1 nodes/s per zone by default) is raised: while kwok brings the
  # nodes up, the zones pass through disruption states whose rate limiter, swapped back to
  # 0.1/s, is drained first (RateLimitedTimedQueue.SwapLimiter), so a NotReady node's
  # not-ready:NoExecute taint came up to 10 s late. Which taint a node gets is unchanged.
  spawn kube-controller-manager "$BIN/kube-controller-manager" \
    --kubeconfig="$DIR/kubeconfig" --authentication-kubeconfig="$DIR/kubeconfig" \
    --authorization-kubeconfig="$DIR/kubeconfig" \
    --bind-address=127.0.0.1 --secure-port=0 --leader-elect=false \
    --controllers=daemonset-controller,garbage-collector-controller,node-lifecycle-controller,taint-eviction-controller,pod-garbage-collector-controller${EXTRA_CONTROLLERS:+,$EXTRA_CONTROLLERS} \
    --node-monitor-period=1s --node-monitor-grace-period=1h \
    --node-eviction-rate=100 --secondary-node-eviction-rate=100 \
    --service-account-private-key-file="$DIR/pki/sa.key" --root-ca-file="$DIR/pki/ca.crt" \
    --concurrent-daemonset-syncs=4 --kube-api-qps=500 --kube-api-burst=1000
  spawn kube-scheduler "$BIN/kube-scheduler" \
    --kubeconfig="$DIR/kubeconfig" --authentication-kubeconfig="$DIR/kubeconfig" \
    --authorization-kubeconfig="$DIR/kubeconfig" \
    --bind-address=127.0.0.1 --secure-port=0 --leader-elect=false \
    --kube-api-qps=500 --kube-api-burst=1000
  kwok_stages >"$DIR/kwok.yaml"
  # kwok: nodes without the label daemonscope.dev/no-kubelet get leases and Ready status; every
  # bound pod on them turns Running and Ready.
  spawn kwok "$BIN/kwok" --kubeconfig="$DIR/kubeconfig" \
    --manage-all-nodes=false --manage-nodes-with-label-selector='!daemonscope.dev/no-kubelet' \
    --node-lease-duration-seconds=40 --cidr=10.244.0.0/16 --node-ip=10.1.0.1 \
    --config="$DIR/kwok.yaml"

  # Ready when the scheduler and the controller manager hold their informers: the default
  # namespace exists and a DaemonSet could be acted on.
  wait_ok kube-apiserver "https://127.0.0.1:$APISERVER_PORT/api/v1/namespaces/default"
  local t1
  t1=$(now_ms)
  echo "STARTUP_MS=$((t1 - t0))" >>"$DIR/env"
  echo "cluster.sh: control plane up in $((t1 - t0)) ms at https://127.0.0.1:$APISERVER_PORT (kubeconfig $DIR/kubeconfig)"
}

down() {
  [ -f "$DIR/pids" ] || return 0
  local name pid
  # Reverse order: agents and controllers first, etcd last.
  tac "$DIR/pids" | while read -r name pid; do
    kill "$pid" 2>/dev/null || true
  done
  sleep 0.5
  tac "$DIR/pids" | while read -r name pid; do
    kill -9 "$pid" 2>/dev/null || true
  done
  : >"$DIR/pids"
}

# Kills one component (kube-apiserver, etcd) and returns once it has exited and its ports are
# free again, so that a restart right after it binds the same ports.
stop_component() {
  local what=$1 name pid
  grep "^$what " "$DIR/pids" | while read -r name pid; do
    kill -9 "$pid" 2>/dev/null || true
    for _ in $(seq 100); do # up to 5 s; a zombie counts as gone
      kill -0 "$pid" 2>/dev/null && [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ] || break
      sleep 0.05
    done
  done
  grep -v "^$what " "$DIR/pids" >"$DIR/pids.new" || true
  mv "$DIR/pids.new" "$DIR/pids"
}

# etcd again on its old ports and data; returns once it answers /health. kube-apiserver
# reconnects by itself.
restart_etcd() {
  local t0
  t0=$(now_ms)
  # shellcheck disable=SC1091
  . "$DIR/env"
  spawn_etcd
  until curl -sf --max-time 2 "http://127.0.0.1:$ETCD_PORT/health" >/dev/null 2>&1; do
    if (($(now_ms) - t0 > 60000)) || ! alive etcd; then
      tail -n 30 "$DIR/logs/etcd.log" >&2
      die "etcd did not come back"
    fi
    sleep 0.1
  done
}

restart_apiserver() {
  # shellcheck disable=SC1091
  . "$DIR/env"
  start_apiserver
  wait_ok kube-apiserver "https://127.0.0.1:$APISERVER_PORT/readyz"
}

cmd=${1:-}
DIR=${2:-}
[ -n "$cmd" ] && [ -n "$DIR" ] || die "usage: cluster.sh up|down|stop-apiserver|start-apiserver|stop-etcd|start-etcd DIR"
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
case $cmd in
up) up ;;
down) down ;;
stop-apiserver) stop_component kube-apiserver ;;
start-apiserver) restart_apiserver ;;
stop-etcd) stop_component etcd ;;
start-etcd) restart_etcd ;;
*) die "unknown command $cmd" ;;
esac
