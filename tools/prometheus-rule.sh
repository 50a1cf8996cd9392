#!/bin/sh
# Prints deploy/prometheus/prometheusrule.yaml: the plain rules file's groups as a
# monitoring.coreos.com/v1 PrometheusRule (the Prometheus Operator's form), so the two never
# drift. `make prometheus-rule` writes it; tests/it/alert_rules.rs fails when the file differs.
set -eu
rules="${1:-deploy/prometheus/daemonscope-rules.yaml}"
grep -q '^groups:' "$rules" || { echo "error: $rules has no top-level groups:" >&2; exit 1; }
cat <<'HEADER'
# Generated from deploy/prometheus/daemonscope-rules.yaml by tools/prometheus-rule.sh
# (`make prometheus-rule`): edit that file, not this one. Apply it in the namespace your
# Prometheus Operator watches; add the labels its ruleSelector asks for (kube-prometheus-stack:
# `release: <its release name>`).
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: daemonscope
  labels:
    app.kubernetes.io/name: daemonscope
spec:
HEADER
sed -n '/^groups:/,$p' "$rules" | sed 's/^\(.\)/  \1/'
