#!/usr/bin/env bash
# Memory and time to sync of one `daemonscope serve` watching N generated clusters (issue 25,
# item 1): N `daemonscope sim --generate nodes=NODES,...` processes behind one kubeconfig, one
# `serve --context sim-1 ... --context sim-N`. Prints the seconds from serve's start until
# /readyz says every cluster is ready (`ready` for a single one), and serve's RSS then (VmRSS) and its peak (VmHWM).
#
#   end2end/bench/fleet-sync.sh [N=10] [SPEC=nodes=500,seed=]   (the seed gets the sim's index)
#   SETTLE=60 end2end/bench/fleet-sync.sh   (wait 60 s after the sims answer, before serve starts)
#
# BIN (default target/debug/daemonscope) picks the binary. Every process started here is
# stopped by its own PID on exit.
set -euo pipefail
N=${1:-10}
SPEC=${2:-nodes=500,seed=}
BIN=${BIN:-target/debug/daemonscope}
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

{
  echo "apiVersion: v1"
  echo "kind: Config"
  echo "users: [{name: sim, user: {}}]"
  echo "current-context: sim-1"
} > "$WORK/kubeconfig"
CLUSTERS="" CONTEXTS="" ARGS=()
for i in $(seq 1 "$N"); do
  port=$(free_port)
  "$BIN" sim --generate "${SPEC}${i}" --listen "127.0.0.1:$port" > "$WORK/sim-$i.log" 2>&1 &
  PIDS+=($!)
  CLUSTERS+="- {name: sim-$i, cluster: {server: \"http://127.0.0.1:$port\"}}"$'\n'
  CONTEXTS+="- {name: sim-$i, context: {cluster: sim-$i, user: sim}}"$'\n'
  ARGS+=(--context "sim-$i")
  for _ in $(seq 1 600); do
    curl -sf "http://127.0.0.1:$port/version" > /dev/null && break
    sleep 0.2
  done
done
printf 'clusters:\n%scontexts:\n%s' "$CLUSTERS" "$CONTEXTS" >> "$WORK/kubeconfig"
sleep "${SETTLE:-2}"  # let the sims' controllers settle their first pods (SETTLE seconds)
port=$(free_port)
start=$(date +%s.%N)
"$BIN" serve --kubeconfig "$WORK/kubeconfig" "${ARGS[@]}" --listen "127.0.0.1:$port" > "$WORK/serve.log" 2>&1 &
SERVE=$!
PIDS+=($SERVE)
for _ in $(seq 1 3000); do
  body=$(curl -s "http://127.0.0.1:$port/readyz" || true)
  case "$body" in "$N of $N clusters ready"* | ready*) break ;; esac
  sleep 0.1
done
end=$(date +%s.%N)
case "$body" in "$N of $N clusters ready"* | ready*) ;; *) echo "not ready: $body" >&2; exit 1 ;; esac
echo "clusters: $N x ($SPEC<i>)"
echo "sync: $(python3 -c "print(round($end - $start, 1))") s (serve start to /readyz '$N of $N clusters ready')"
grep -E 'VmRSS|VmHWM' "/proc/$SERVE/status"
# serve's own CPU time until then (utime + stime, in clock ticks): busy, or waiting on the sims?
ticks=$(getconf CLK_TCK)
echo "serve CPU until ready: $(awk -v t="$ticks" '{print ($14 + $15) / t}' "/proc/$SERVE/stat") s"
sleep 10
echo "10 s later:"
grep -E 'VmRSS' "/proc/$SERVE/status"
curl -s -o /dev/null -w "fleet page: %{time_total} s, %{size_download} bytes\n" "http://127.0.0.1:$port/fleet"
