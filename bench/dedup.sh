#!/bin/sh
# bench/dedup.sh: btfstream dedup against libbpf's btf__dedup on N copies of
# a vmlinux BTF without VAR and DATASEC.
#
#	bench/dedup.sh [RAW_VMLINUX_BTF [COPIES [RUNS]]]
#
# RAW_VMLINUX_BTF defaults to /tmp/vmlinux.btf (objcopy -O binary
# --only-section=.BTF vmlinux). Builds everything into a temporary
# directory (nothing is committed), runs each mode RUNS times, one process
# at a time, and prints wall time (total_s, including reading the input)
# cpu time (user+sys) and peak RSS (VmHWM) per run. Every output is
# checked with `btfstream diff` against one stripped copy. batch streams
# the input through dedup.DedupStream; incr feeds AddBatch batches of at
# least DEDUP_PER (default 16384) types, cut where no forward reference
# crosses. No Go memory limit is set unless DEDUP_GOMEMLIMIT is given
# (bytes, or "raw" for the raw input size); it then applies to both modes.
set -eu
cd "$(dirname "$0")/.."
vmlinux=${1:-/tmp/vmlinux.btf}
copies=${2:-8}
runs=${3:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -o "$work/dedupbench" ./bench/dedupbench
go build -o "$work/btfstream" ./cmd/btfstream
cc -O2 -o "$work/dedup_libbpf" bench/dedup_libbpf.c -lbpf

"$work/dedupbench" mkinput -n "$copies" "$vmlinux" "$work/input.btf" "$work/stripped.btf" >"$work/mk.txt"
per=$(sed -n 's/types_per_copy=//p' "$work/mk.txt")
size=$(stat -c %s "$work/input.btf")
limit=${DEDUP_GOMEMLIMIT:-off}
[ "$limit" = raw ] && limit=$size
perbatch=${DEDUP_PER:-16384}
echo "input: $copies copies x $per types, raw $size bytes ($((size / 1024)) KiB); 1.5x = $((size * 3 / 2 / 1024)) KiB"
echo "libbpf: $(dpkg-query -W -f '${Version}' libbpf-dev 2>/dev/null || echo unknown); GOMEMLIMIT=$limit; incr batches >= $perbatch types"
uptime

check() {
	if "$work/btfstream" diff -q "$1" "$work/stripped.btf"; then
		echo "  diff vs original: equal"
	else
		echo "  diff vs original: DIFFERENT"
		exit 1
	fi
}

i=0
while [ "$i" -lt "$runs" ]; do
	i=$((i + 1))
	"$work/dedup_libbpf" "$work/input.btf" "$work/out-libbpf.btf"
	check "$work/out-libbpf.btf"
	GOMEMLIMIT=$limit "$work/dedupbench" batch "$work/input.btf" "$work/out-batch.btf"
	check "$work/out-batch.btf"
	GOMEMLIMIT=$limit "$work/dedupbench" incr -per "$perbatch" "$work/input.btf" "$work/out-incr.btf"
	check "$work/out-incr.btf"
	cmp -s "$work/out-batch.btf" "$work/out-incr.btf" && echo "  batch and incremental outputs: byte-identical"
done
