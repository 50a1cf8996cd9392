#!/usr/bin/env bash
# Copies the freshly split and bound browser files from STAGING into PKG, only those whose bytes
# changed, and removes PKG's WASM files the new split no longer has. Why: `make build` binds the
# WASM on every run, and a rewritten file with the same bytes still has a new mtime, which makes
# the `embed-site` build (rust-embed includes PKG's files) recompile the crate for nothing on
# every `make test` (~20 s). Files of PKG that the bind does not write (daemonscope.css) are left.
set -euo pipefail
staging=$1 pkg=$2
mkdir -p "$pkg"
for path in "$staging"/*; do
  name=$(basename "$path")
  if ! cmp -s "$path" "$pkg/$name"; then
    cp "$path" "$pkg/$name"
  fi
done
for path in "$pkg"/*.wasm "$pkg"/__wasm_split* "$pkg"/daemonscope.js; do
  [ -e "$path" ] || continue
  [ -e "$staging/$(basename "$path")" ] || rm -f "$path"
done
