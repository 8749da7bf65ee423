#!/bin/bash
# Side by side: `btfstream -J` against `pahole -J` (1.31) on the same
# vmlinux, both -j1 and with the same BTF features, alternating runs (the
# host may be shared, so each tool runs RUNS times and the table shows the
# minimum and the median). Wall time, user+sys CPU and peak RSS come from
# GNU time (wait4 rusage). Both write detached BTF: the kernel file is
# never modified. btfstream's output is checked equal to pahole's as a
# type graph (btfstream diff), and its -j2 output byte-identical to -j1.
#
#   PAHOLE=/opt/pahole-1.31/bin/pahole RUNS=3 bash bench/encode_vs_pahole.sh [VMLINUX]
#
# BTFSTREAM=path uses an existing btfstream binary instead of building one.
set -eu
cd "$(dirname "$0")/.."
V=${1:-${BTFSTREAM_KERNEL:-$(ls ~/.cache/btfstream-testdata/*cloud-amd64*/usr/lib/debug/boot/vmlinux-* | head -1)}}
PAHOLE=${PAHOLE:-pahole}
RUNS=${RUNS:-3}
F=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
BS=${BTFSTREAM:-}
if [ -z "$BS" ]; then
	go build -o "$TMP/btfstream" ./cmd/btfstream
	BS=$TMP/btfstream
fi
cat "$V" > /dev/null # warm the page cache

run() { # name cmd...: appends "wall cpu rss_kb" to $TMP/res-name (not $TMP/name: the built binary is $TMP/btfstream)
	name=$1; shift
	/usr/bin/time -f "%e %U %S %M" -o "$TMP/t" "$@" > "$TMP/log" 2>&1 || { cat "$TMP/log"; exit 1; }
	awk '{printf "%.2f %.2f %d\n", $1, $2+$3, $4}' "$TMP/t" >> "$TMP/res-$name"
}
for i in $(seq "$RUNS"); do
	run pahole "$PAHOLE" -J -j1 --btf_features=$F,reproducible_build --lang_exclude=rust --btf_encode_detached "$TMP/p.btf" "$V"
	run btfstream "$BS" -j1 --btf_features=$F --lang_exclude=rust --btf_encode_detached "$TMP/b.btf" "$V"
done
run btfstream-j2 "$BS" -j2 --btf_features=$F --lang_exclude=rust --btf_encode_detached "$TMP/b2.btf" "$V"

stat() { # file column: min and median
	sort -n -k"$2" "$1" | awk -v c="$2" '{v[NR]=$c} END {printf "%.2f %.2f", v[1], v[int((NR+1)/2)]}'
}
printf '%-14s %4s %18s %18s %12s\n' tool runs "wall s (min med)" "user+sys s (min med)" "max RSS MB"
for n in pahole btfstream btfstream-j2; do
	set -- $(stat "$TMP/res-$n" 1) $(stat "$TMP/res-$n" 2)
	rss=$(sort -n -k3 "$TMP/res-$n" | tail -1 | awk '{printf "%.0f", $3/1024}')
	printf '%-14s %4d %8s %9s %9s %9s %12s\n' "$n" "$(wc -l < "$TMP/res-$n")" "$1" "$2" "$3" "$4" "$rss"
done
set -- $(stat "$TMP/res-pahole" 1) $(stat "$TMP/res-btfstream" 1) $(stat "$TMP/res-pahole" 2) $(stat "$TMP/res-btfstream" 2)
echo "btfstream/pahole -j1: wall min $(echo "scale=2; $3/$1" | bc), wall median $(echo "scale=2; $4/$2" | bc), cpu min $(echo "scale=2; $7/$5" | bc), cpu median $(echo "scale=2; $8/$6" | bc)"
echo "graph vs pahole: $("$BS" diff "$TMP/b.btf" "$TMP/p.btf" | tail -1)"
cmp -s "$TMP/b.btf" "$TMP/b2.btf" && echo "-j2 output: byte-identical to -j1" || { echo "-j2 output DIFFERS from -j1"; exit 1; }
