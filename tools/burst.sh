#!/usr/bin/env bash
# How far behind the dashboard falls while a 5,000-node cluster makes all its daemon pods at
# once: `daemonscope sim --generate SPEC` and `daemonscope serve` against it, as two processes
# (as with a real cluster), sampled every 5 s: the DaemonSets' own status on the API server
# (pods scheduled, ready) against the dashboard's /metrics (ready, missing).
#
#   cargo build --release --features ssr --bin daemonscope && tools/burst.sh
#   SPEC=nodes=5000,daemonsets=30,seed=1,rollouts=0 SAMPLES=12 tools/burst.sh
set -euo pipefail
BIN=${BIN:-$(dirname "$0")/../target/release/daemonscope}
SPEC=${SPEC:-nodes=5000,daemonsets=3,seed=1,pools=5,rollouts=0}
SAMPLES=${SAMPLES:-8}
dir=$(mktemp -d)
"$BIN" sim --generate "$SPEC" --listen 127.0.0.1:7443 --write-kubeconfig "$dir/kc" >"$dir/sim.log" 2>&1 &
sim=$!
trap 'kill $sim ${dash:-} 2>/dev/null || true' EXIT
until curl -sf "http://127.0.0.1:7443/api/v1/nodes?limit=1" >/dev/null; do sleep 0.2; done
"$BIN" serve --kubeconfig "$dir/kc" --listen 127.0.0.1:7444 >"$dir/serve.log" 2>&1 &
dash=$!
start=$(date +%s)
for _ in $(seq 1 "$SAMPLES"); do
  api=$(curl -s http://127.0.0.1:7443/apis/apps/v1/daemonsets | python3 -c "
import json, sys
items = json.load(sys.stdin)['items']
print(sum(d.get('status', {}).get('currentNumberScheduled', 0) for d in items),
      sum(d.get('status', {}).get('numberReady', 0) for d in items))")
  seen=$(curl -s http://127.0.0.1:7444/metrics | python3 -c "
import sys
ready = missing = 0
for line in sys.stdin:
    if line.startswith('daemonscope_daemonset_ready{'): ready += float(line.split()[-1])
    if line.startswith('daemonscope_daemonset_missing{'): missing += float(line.split()[-1])
print(int(ready), int(missing))")
  echo "t=$(($(date +%s) - start))s api(scheduled, ready)=$api dashboard(ready, missing)=$seen"
  sleep 5
done
