#!/usr/bin/env bash
# Builds daemonscope's OCI image without a container engine: the files go into one layer (a
# plain tar), crane (go-containerregistry) appends it to the empty image and sets the config
# (entrypoint, user 65532, working directory), through crane's own in-memory registry on
# loopback, which is how crane edits an image.
#
#   image.sh OUT BIN [SITE]
#
# OUT/oci/            the image as an OCI image layout (podman/skopeo/containerd read it)
# OUT/daemonscope.tar the same image as a tarball (`docker load`, `crane push`)
# OUT/files.txt       the image's file list, from the image itself (crane export)
# BIN is the server binary (stripped of debug info on the way in); SITE, when given, is the
# site directory (target/site) the binary serves from its working directory; a binary built
# with the site embedded needs none. The binary is linked dynamically against glibc: the image
# holds exactly the shared objects `ldd` names for it (and the dynamic loader), copied from
# this machine, and nothing else: no shell, no package manager, no CA bundle (the in-cluster
# client trusts the service account's CA).
#
# Tools: crane from .tools/ship/bin (`make ship`); IMAGE_REF names the image (default
# ghcr.io/daemonscope/daemonscope:VERSION).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
CRANE=${CRANE:-$root/.tools/ship/bin/crane}
OUT=${1:?usage: image.sh OUT BIN [SITE]}
BIN=${2:?usage: image.sh OUT BIN [SITE]}
SITE=${3:-}
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -1)
IMAGE_REF=${IMAGE_REF:-ghcr.io/daemonscope/daemonscope:$VERSION}

die() { echo "image.sh: $*" >&2; exit 1; }
[ -x "$CRANE" ] || die "no crane at $CRANE: run 'make ship'"
[ -x "$BIN" ] || die "no binary at $BIN"

start=$(date +%s%3N)
work=$(mktemp -d)
registry_pid=
cleanup() {
  [ -n "$registry_pid" ] && kill "$registry_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

fs=$work/rootfs
mkdir -p "$fs/app" "$fs/etc"
strip --strip-debug -o "$fs/app/daemonscope" "$BIN"
chmod 0755 "$fs/app/daemonscope"
if [ -n "$SITE" ]; then
  mkdir -p "$fs/app/target"
  cp -r "$SITE" "$fs/app/target/site"
fi
# The shared objects the binary loads (ldd: "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6")
# and the loader its PT_INTERP names, at the paths the loader looks them up.
while read -r lib; do
  mkdir -p "$fs$(dirname "$lib")"
  cp -L "$lib" "$fs$lib"
done < <(ldd "$BIN" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}')
# A name for the user the image runs as (distroless' "nonroot"), for tools that print it.
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$fs/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' >"$fs/etc/group"
# Owned by root and not writable by the user the image runs as; reproducible (no times).
(cd "$fs" && find . -mindepth 1 | sed 's|^\./||' | LC_ALL=C sort) >"$work/list"
tar -C "$fs" --owner=0 --group=0 --numeric-owner --mtime=@0 --no-recursion -cf "$work/layer.tar" -T "$work/list"

# crane's registry on a free loopback port (crane edits images in a registry).
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$CRANE" registry serve --address "127.0.0.1:$port" >"$work/registry.log" 2>&1 &
registry_pid=$!
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$port/v2/" >/dev/null 2>&1 && break
  sleep 0.1
done
ref=127.0.0.1:$port/daemonscope:$VERSION
"$CRANE" append --insecure --oci-empty-base -f "$work/layer.tar" -t "$ref" >/dev/null 2>"$work/crane.log" ||
  { cat "$work/crane.log" >&2; die "crane append failed"; }
"$CRANE" mutate --insecure "$ref" -t "$ref" \
  --entrypoint /app/daemonscope --cmd serve,--listen,0.0.0.0:3000 \
  --user 65532:65532 --workdir /app --exposed-ports 3000/tcp --set-platform linux/amd64 \
  -l org.opencontainers.image.title=daemonscope -l "org.opencontainers.image.version=$VERSION" \
  >/dev/null 2>"$work/crane.log" || { cat "$work/crane.log" >&2; die "crane mutate failed"; }

rm -rf "$OUT/oci" "$OUT/daemonscope.tar"
mkdir -p "$OUT"
"$CRANE" pull --insecure --format oci "$ref" "$OUT/oci" 2>"$work/crane.log" ||
  { cat "$work/crane.log" >&2; die "crane pull failed"; }
# The tarball carries the published name, so that `docker load` tags it as such.
"$CRANE" pull --insecure "$ref" "$work/image.tar" 2>"$work/crane.log" ||
  { cat "$work/crane.log" >&2; die "crane pull failed"; }
"$CRANE" export - - <"$work/image.tar" | tar -t | LC_ALL=C sort >"$OUT/files.txt"
mv "$work/image.tar" "$OUT/daemonscope.tar"
"$CRANE" config --insecure "$ref" >"$OUT/config.json"
echo "$IMAGE_REF" >"$OUT/name"

end=$(date +%s%3N)
size=$(stat -c %s "$OUT/daemonscope.tar")
echo "image.sh: $IMAGE_REF from $BIN in $((end - start)) ms: $size bytes ($((size / 1024 / 1024)) MiB compressed), $(grep -vc '/$' "$OUT/files.txt") files; OCI layout $OUT/oci, tarball $OUT/daemonscope.tar"
