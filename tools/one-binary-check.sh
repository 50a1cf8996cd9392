#!/usr/bin/env bash
# The one-binary property (issue 23 item 1), for real: a binary built with `embed-site`, copied
# alone into an empty directory, says its version and commit, serves the built-in demo, and
# answers the page, the JS, the WASM, the CSS and the favicon with the right content types,
# gzip and ETag revalidation; and a binary without the feature, in that directory, refuses to
# serve in one line instead of serving pages that never come alive.
#
# usage: tools/one-binary-check.sh EMBEDDED_BINARY PLAIN_BINARY SITE_DIR
# (`make test-one-binary` builds the first, and runs this after `make build`.)
set -euo pipefail

embedded=$(realpath "$1")
plain=$(realpath "$2")
site=$(realpath "$3")
dir=$(mktemp -d "${TMPDIR:-/tmp}/daemonscope-one-binary.XXXXXX")
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "one-binary check: $*" >&2; [ -f "$dir/serve.log" ] && tail -20 "$dir/serve.log" >&2; exit 1; }

cp "$embedded" "$dir/daemonscope"
cd "$dir"

version=$(./daemonscope --version)
[[ "$version" =~ ^daemonscope\ [0-9]+\.[0-9]+\.[0-9]+\ \(commit\ ([0-9a-f]{7,}|unknown)\)$ ]] ||
  fail "--version says '$version'"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
./daemonscope serve --demo --listen "127.0.0.1:$port" > serve.log 2>&1 &
pid=$!
for _ in $(seq 1 120); do
  curl -sf "$base/readyz" > /dev/null && break
  kill -0 "$pid" 2>/dev/null || fail "serve --demo exited"
  sleep 0.5
done
curl -sf "$base/readyz" > /dev/null || fail "not ready after 60 s"

# path, content type, file in the site it must equal ("" for the page)
check() {
  local path=$1 type=$2 file=$3 headers got
  headers=$(curl -s -o "$dir/body" -D - -H 'Accept-Encoding: gzip' --compressed "$base$path")
  got=$(grep -i '^content-type:' <<<"$headers" | tr -d '\r' | cut -d' ' -f2-)
  grep -q '^HTTP/1.1 200' <<<"$headers" || fail "$path: $(head -1 <<<"$headers")"
  [[ "$got" == "$type"* ]] || fail "$path: content-type '$got', wanted $type"
  grep -qi '^x-content-type-options: nosniff' <<<"$headers" || fail "$path: no nosniff"
  if [ -n "$file" ]; then
    cmp -s "$dir/body" "$site/$file" || fail "$path: not the bytes of $site/$file"
    grep -qi '^content-encoding: gzip' <<<"$headers" || fail "$path: not gzipped"
    local etag
    etag=$(grep -i '^etag:' <<<"$headers" | tr -d '\r' | cut -d' ' -f2-)
    [ -n "$etag" ] || fail "$path: no ETag"
    [ "$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $etag" "$base$path")" = 304 ] ||
      fail "$path: If-None-Match $etag is not a 304"
  fi
  echo "  $path: 200 $got"
}
check / "text/html" ""
grep -q 'data-testid' "$dir/body" || fail "/: not the dashboard's page"
check /node/worker-1 "text/html" ""
check /pkg/daemonscope.js "text/javascript" pkg/daemonscope.js
check /pkg/daemonscope_bg.wasm "application/wasm" pkg/daemonscope_bg.wasm
check /pkg/daemonscope.css "text/css" pkg/daemonscope.css
check /favicon.svg "image/svg+xml" favicon.svg
[ "$(curl -s -o /dev/null -w '%{http_code}' "$base/pkg/nothing.js")" = 404 ] || fail "/pkg/nothing.js is not a 404"
kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""

# Without the feature, the same empty directory: one line, a non-zero exit, no panic.
cp "$plain" ./daemonscope
set +e
./daemonscope serve --demo --listen 127.0.0.1:0 > /dev/null 2> refused.log
status=$?
set -e
[ "$status" -ne 0 ] || fail "a binary without its site served"
[ "$(wc -l < refused.log)" -eq 1 ] || fail "refusal is not one line: $(cat refused.log)"
grep -q 'no site at target/site' refused.log || fail "refusal does not say why: $(cat refused.log)"
echo "  without embed-site: $(cat refused.log)"
echo "one-binary check passed: $version, $(stat -c %s "$embedded") bytes, served from an empty directory"
