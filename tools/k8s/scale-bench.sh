#!/usr/bin/env bash
# Scale on Kubernetes' own API server (issue 11 item 6): a generated cluster replayed into the
# test control plane, every daemon pod created by the real DaemonSet controller, scheduled by
# kube-scheduler and made Running by kwok; then, in one run against the same API server:
#   - `kubectl get pods -A -o json` (wall time, peak RSS), the reference a user knows;
#   - `daemonscope serve` (release build): time to /readyz (every watch synced), RSS then, and
#     the time of the first `/` page.
#
#   tools/k8s/scale-bench.sh [GENERATE_SPEC]      default nodes=1000,daemonsets=30,seed=1,rollouts=0
#
# Needs `make k8s`, `make release` (target/release/daemonscope) and the replay example
# (`cargo build --release --features ssr --example replay`).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
SPEC=${1:-nodes=1000,daemonsets=30,seed=1,rollouts=0}
KUBECTL=${KUBECTL:-$root/.tools/bin/kubectl}
DASH=${DAEMONSCOPE_BIN:-$root/target/release/daemonscope}
REPLAY=${REPLAY_BIN:-$root/target/release/examples/replay}
for bin in "$DASH" "$REPLAY" "$KUBECTL"; do
  [ -x "$bin" ] || { echo "scale-bench: $bin is missing (make release; cargo build --release --features ssr --example replay)" >&2; exit 1; }
done

dir=$(mktemp -d /tmp/daemonscope-scale-XXXXXX)
dash_pid=""
cleanup() {
  [ -n "$dash_pid" ] && kill "$dash_pid" 2>/dev/null || true
  tools/k8s/cluster.sh down "$dir" >/dev/null 2>&1 || true
}
trap cleanup EXIT

tools/k8s/cluster.sh up "$dir"
K="$KUBECTL --kubeconfig $dir/kubeconfig"
t0=$(date +%s)
"$REPLAY" --kubeconfig "$dir/kubeconfig" --generate "$SPEC"

# Converged: every DaemonSet has its desired pods (current == desired) and the counts have not
# changed for 15 s. Not "all ready": the generator makes a few nodes NotReady, and the daemon pods
# that tolerate them stay unready there, on a real cluster as in the sim.
last="" since=$(date +%s)
while :; do
  counts=$($K get ds -A -o jsonpath='{range .items[*]}{.status.desiredNumberScheduled} {.status.currentNumberScheduled} {.status.numberReady}{"\n"}{end}' |
    awk '{d += $1; c += $2; r += $3} END {print d, c, r}')
  [ "$counts" != "$last" ] && { last=$counts; since=$(date +%s); }
  read -r desired current ready <<<"$counts"
  if [ "${desired:-0}" -gt 0 ] && [ "$desired" = "$current" ] && (($(date +%s) - since >= 15)); then break; fi
  (($(date +%s) - t0 < 3600)) || { echo "scale-bench: no convergence within an hour ($counts)" >&2; exit 1; }
  sleep 5
done
converged=$(($(date +%s) - t0))
pods=$($K get pods -A --no-headers 2>/dev/null | wc -l)
nodes=$($K get nodes --no-headers | wc -l)
echo "cluster: $nodes nodes, $pods pods, $desired daemon pods desired, $ready ready; converged in ${converged} s (including the 15 s quiet window)"

# kubectl get pods -A -o json: wall time and peak RSS.
/usr/bin/time -f "%e %M" -o "$dir/kubectl.time" $K get pods -A -o json >"$dir/pods.json"
read -r kubectl_s kubectl_kb <"$dir/kubectl.time"
pods_bytes=$(stat -c %s "$dir/pods.json")

# daemonscope serve: time to ready, RSS, first page.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
start=$(date +%s%3N)
"$DASH" serve --kubeconfig "$dir/kubeconfig" --listen "127.0.0.1:$port" >"$dir/daemonscope.log" 2>&1 &
dash_pid=$!
until curl -sf "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; do
  kill -0 "$dash_pid" 2>/dev/null || { tail -20 "$dir/daemonscope.log" >&2; exit 1; }
  (($(date +%s%3N) - start < 600000)) || { echo "scale-bench: daemonscope not ready in 10 min" >&2; exit 1; }
  sleep 0.05
done
ready_ms=$(($(date +%s%3N) - start))
rss_ready_kb=$(awk '/^VmRSS/ {print $2}' "/proc/$dash_pid/status")
page_s=$(curl -s -o /dev/null -w '%{time_total}' "http://127.0.0.1:$port/")
sleep 2
rss_kb=$(awk '/^VmRSS/ {print $2}' "/proc/$dash_pid/status")
hwm_kb=$(awk '/^VmHWM/ {print $2}' "/proc/$dash_pid/status")

echo
echo "| $SPEC on kube-apiserver v1.37.2 ($nodes nodes, $pods pods) | time | memory |"
echo "|---|---|---|"
echo "| kubectl get pods -A -o json ($((pods_bytes / 1024 / 1024)) MiB of JSON) | ${kubectl_s} s | peak RSS $((kubectl_kb / 1024)) MiB |"
echo "| daemonscope serve: start to /readyz (all watches synced) | $((ready_ms)) ms | RSS $((rss_ready_kb / 1024)) MiB at ready |"
echo "| daemonscope serve: first / page | ${page_s} s | RSS $((rss_kb / 1024)) MiB after, peak $((hwm_kb / 1024)) MiB |"
