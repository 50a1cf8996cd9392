#!/usr/bin/env bash
# What one browser's matrix window feed costs while a big generated cluster rolls out (issue 27
# item 6: patches a second and bytes): `serve --demo --generate SPEC`, then READS reads of
# `/api/view?` (the matrix's first window, as a browser's first visit asks it) of SECONDS each,
# every read's message count (its first the whole window) and bytes.
#
#   cargo build --release --features ssr --bin daemonscope && tools/feed-rate.sh
#   SPEC=nodes=5000,daemonsets=30,seed=1 WAIT=60 READS=3 tools/feed-rate.sh
set -euo pipefail
BIN=${BIN:-$(dirname "$0")/../target/release/daemonscope}
SPEC=${SPEC:-nodes=5000,daemonsets=30,seed=1}
WAIT=${WAIT:-60}
READS=${READS:-3}
SECONDS_PER_READ=${SECONDS_PER_READ:-10}
PORT=${PORT:-7445}
dir=$(mktemp -d)
"$BIN" serve --demo --generate "$SPEC" --listen "127.0.0.1:$PORT" >"$dir/serve.log" 2>&1 &
dash=$!
trap 'kill $dash 2>/dev/null || true; rm -rf "$dir"' EXIT
start=$(date +%s)
until curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null; do sleep 0.5; done
echo "ready after $(( $(date +%s) - start )) s; reading after ${WAIT} s more (the rollouts start 30 s in)"
sleep "$WAIT"
for i in $(seq 1 "$READS"); do
  timeout "$SECONDS_PER_READ" curl -sN "http://127.0.0.1:$PORT/api/view?" >"$dir/read-$i" || true
  messages=$(grep -c '^data:' "$dir/read-$i" || true)
  bytes=$(wc -c <"$dir/read-$i")
  counts=$(curl -s "http://127.0.0.1:$PORT/metrics" | awk '
    /^daemonscope_daemonset_desired\{/ {d += $NF} /^daemonscope_daemonset_ready\{/ {r += $NF}
    /^daemonscope_daemonset_updated\{/ {u += $NF}
    END {printf "desired %d, ready %d, updated %d", d, r, u}')
  echo "read $i (t=$(( $(date +%s) - start )) s): $messages messages, $(( bytes / 1024 )) KiB in ${SECONDS_PER_READ} s; pods $counts"
done
