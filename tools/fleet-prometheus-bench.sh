#!/usr/bin/env bash
# The fleet read from Prometheus at fleet scale (issue 25 item 5): how long `/api/fleet` of
# `serve --fleet-prometheus` takes against a Prometheus holding CLUSTERS clusters' series.
#
# Not CLUSTERS live clusters: the demo's real /metrics is taken once, copied per cluster with
# `cluster`, `job` and `instance` labels (and an `up` series) over the last 10 minutes every
# 30 s, written as OpenMetrics, backfilled with `promtool tsdb create-blocks-from openmetrics`,
# and Prometheus is started on that TSDB. Then RUNS reads of /api/fleet (every fleet query,
# sent side by side, plus the JSON) are timed with curl: p50 and max.
#
# Usage: tools/fleet-prometheus-bench.sh [BIN]   (default target/debug/daemonscope)
#        CLUSTERS=50 RUNS=20 tools/fleet-prometheus-bench.sh
# Needs Debian's prometheus package (prometheus, promtool), python3 and curl. Only processes it
# started are stopped; its files are in a temporary directory, removed at the end.
set -euo pipefail

BIN=${1:-target/debug/daemonscope}
CLUSTERS=${CLUSTERS:-50}
RUNS=${RUNS:-20}
WORK=$(mktemp -d -t daemonscope-fleet-bench-XXXXXX)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_url() { # URL SECONDS
  local deadline=$((SECONDS + $2))
  until curl -sf -o /dev/null "$1"; do
    if ((SECONDS > deadline)); then echo "no answer from $1 after $2 s" >&2; exit 1; fi
    sleep 0.2
  done
}

# 1. One demo's /metrics, once its situations show (falco refused).
DEMO_PORT=$(free_port)
"$BIN" serve --demo --listen "127.0.0.1:$DEMO_PORT" >"$WORK/demo.log" 2>&1 &
PIDS+=($!)
wait_url "http://127.0.0.1:$DEMO_PORT/readyz" 60
for _ in $(seq 1 100); do
  curl -s "http://127.0.0.1:$DEMO_PORT/metrics" >"$WORK/demo.om"
  grep -q 'daemonscope_daemonset_creation_refused{daemonset="security/falco"' "$WORK/demo.om" && break
  sleep 0.2
done
kill "${PIDS[0]}"

# 2. CLUSTERS copies, labelled, over 10 minutes, as OpenMetrics.
python3 - "$WORK/demo.om" "$WORK/fleet.om" "$CLUSTERS" <<'EOF'
import sys, time, re
src, dst, clusters = sys.argv[1], sys.argv[2], int(sys.argv[3])
families, order = {}, []
for line in open(src):
    line = line.rstrip("\n")
    if not line or line == "# EOF":
        continue
    if line.startswith("# "):
        name = line.split(" ")[2]
        if name not in families:
            families[name] = {"meta": [], "samples": []}
            order.append(name)
        families[name]["meta"].append(line)
    else:
        families[order[-1]]["samples"].append(line)
now = int(time.time())
stamps = [now - 600 + 30 * i for i in range(21)]
written = 0
with open(dst, "w") as out:
    out.write("# HELP up Whether the target answered its last scrape.\n# TYPE up gauge\n")
    for c in range(clusters):
        for t in stamps:
            out.write(f'up{{cluster="c{c:03}",job="daemonscope",instance="ds.c{c:03}:3000"}} 1 {t}\n')
            written += 1
    for name in order:
        fam = families[name]
        out.write("\n".join(fam["meta"]) + "\n")
        for c in range(clusters):
            extra = f'cluster="c{c:03}",job="daemonscope",instance="ds.c{c:03}:3000"'
            for sample in fam["samples"]:
                m = re.match(r'^([^{ ]+)(\{(.*)\})? (\S+)$', sample)
                series, labels, value = m.group(1), m.group(3), m.group(4)
                labels = f"{labels},{extra}" if labels else extra
                for t in stamps:
                    out.write(f"{series}{{{labels}}} {value} {t}\n")
                    written += 1
    out.write("# EOF\n")
series = sum(len(f["samples"]) for f in families.values()) * clusters + clusters
print(f"generated {clusters} clusters: {series} series, {written} samples")
EOF
ls -l "$WORK/fleet.om" | awk '{print "OpenMetrics file: " $5 " bytes"}'

# 3. Backfill, then Prometheus on those blocks (its own port and storage).
start=$(date +%s.%N)
promtool tsdb create-blocks-from openmetrics "$WORK/fleet.om" "$WORK/tsdb" >"$WORK/promtool.log" 2>&1 ||
  { cat "$WORK/promtool.log" >&2; exit 1; }
echo "promtool backfill: $(python3 -c "print(round($(date +%s.%N) - $start, 1))") s"
PROM_PORT=$(free_port)
printf 'global:\n  scrape_interval: 1m\n' >"$WORK/prometheus.yml"
prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/tsdb" \
  --storage.tsdb.retention.time=100y --web.listen-address="127.0.0.1:$PROM_PORT" >"$WORK/prometheus.log" 2>&1 &
PIDS+=($!)
wait_url "http://127.0.0.1:$PROM_PORT/-/ready" 60

# 4. serve --fleet-prometheus, and the timed reads.
FLEET_PORT=$(free_port)
"$BIN" serve --demo --listen "127.0.0.1:$FLEET_PORT" \
  --fleet-prometheus "http://127.0.0.1:$PROM_PORT" >"$WORK/fleet.log" 2>&1 &
PIDS+=($!)
wait_url "http://127.0.0.1:$FLEET_PORT/readyz" 60
curl -s "http://127.0.0.1:$FLEET_PORT/api/fleet" >"$WORK/fleet.json"
python3 - "$WORK/fleet.json" "$CLUSTERS" <<'EOF'
import json, sys
fleet = json.load(open(sys.argv[1]))
clusters = fleet.get("clusters")
if clusters is None or len(clusters) != int(sys.argv[2]):
    sys.exit(f"/api/fleet did not list {sys.argv[2]} clusters: {str(fleet)[:300]}")
problems = sum(1 for d in fleet["daemonsets"] for p in d["placements"]
               if p["stalled"] or p["refused"])
print(f"/api/fleet: {len(clusters)} clusters, {len(fleet['daemonsets'])} DaemonSets, "
      f"{problems} stalled or refused placements")
EOF
for _ in $(seq 1 "$RUNS"); do
  curl -s -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$FLEET_PORT/api/fleet"
done >"$WORK/times"
python3 - "$WORK/times" <<'EOF'
import sys, statistics
t = sorted(float(x) * 1000 for x in open(sys.argv[1]))
print(f"/api/fleet over {len(t)} runs: p50 {statistics.median(t):.0f} ms, max {t[-1]:.0f} ms, min {t[0]:.0f} ms")
EOF
