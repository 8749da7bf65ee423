#!/bin/bash
# Regenerates cmd/btfstream/default.pgo, the CPU profile that `go build`
# uses for profile-guided optimization of the btfstream binary (Go's
# default -pgo=auto reads default.pgo in the main package's directory;
# tests and the bench commands are built without it). The profile merges
# RUNS encodes of the cloud vmlinux at -j1 with kbuild's features
# (bench/encodeprof, built without PGO). Regenerate it after changes that
# move the hot paths; a stale profile only optimizes less.
#
#   RUNS=3 bash bench/pgo.sh [VMLINUX]
#
# VMLINUX defaults to $BTFSTREAM_KERNEL, else the newest cloud-amd64
# vmlinux of the test cache (the 6.12 one).
set -eu
cd "$(dirname "$0")/.."
V=${1:-${BTFSTREAM_KERNEL:-$(ls ~/.cache/btfstream-testdata/*cloud-amd64*/usr/lib/debug/boot/vmlinux-* | sort -V | tail -1)}}
RUNS=${RUNS:-3}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
go build -pgo=off -o "$TMP/encodeprof" ./bench/encodeprof
for i in $(seq "$RUNS"); do
	"$TMP/encodeprof" -j 1 -cpuprofile "$TMP/cpu$i.prof" "$V"
done
go tool pprof -proto "$TMP"/cpu*.prof > "$TMP/merged.pgo"
mv "$TMP/merged.pgo" cmd/btfstream/default.pgo
echo "cmd/btfstream/default.pgo: $(wc -c < cmd/btfstream/default.pgo) bytes from $RUNS runs on $V"
