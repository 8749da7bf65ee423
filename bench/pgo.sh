#!/bin/bash
# Regenerates cmd/btfstream/default.pgo, the CPU profile that `go build`
# uses for profile-guided optimization of the btfstream binary (Go's
# default -pgo=auto reads default.pgo in the main package's directory;
# tests and the bench commands are built without it). The profile merges
# RUNS encodes of the cloud vmlinux at -j1 with kbuild's features and,
# when the kernel's modules are in the cache (kernel-dbg.sh --modules),
# repeated encodes of a few modules over that vmlinux's BTF, base load
# included: a kernel build runs the encoder once per module, so their
# fixed cost is as hot as the vmlinux path (bench/encodeprof, built
# without PGO). Regenerate it after changes that move the hot paths; a
# stale profile only optimizes less.
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
ROOT=${V%/boot/*}
MODS=$(find "$ROOT/lib/modules" \( -name tcp_bbr.ko -o -name virtio_net.ko -o -name xfs.ko \) 2>/dev/null | sort)
if [ -n "$MODS" ]; then
	go build -pgo=off -o "$TMP/btfstream" ./cmd/btfstream
	"$TMP/btfstream" -J -j2 --btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs \
		--lang_exclude=rust --btf_encode_detached "$TMP/vmlinux.btf" "$V"
	for m in $MODS; do
		n=20
		case $m in */xfs.ko) n=$RUNS ;; esac
		"$TMP/encodeprof" -j 1 -n "$n" -base "$TMP/vmlinux.btf" -cpuprofile "$TMP/cpu-$(basename "$m").prof" "$m"
	done
fi
go tool pprof -proto "$TMP"/cpu*.prof > "$TMP/merged.pgo"
mv "$TMP/merged.pgo" cmd/btfstream/default.pgo
echo "cmd/btfstream/default.pgo: $(wc -c < cmd/btfstream/default.pgo) bytes from $RUNS runs on $V${MODS:+ and modules $(echo $MODS | xargs -n1 basename | tr '\n' ' ')}"
