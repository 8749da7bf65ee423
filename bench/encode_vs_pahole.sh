#!/bin/bash
# Side by side: `btfstream -J` against `pahole -J` (1.31) on the same
# vmlinux with kbuild's BTF features, at -j1 and -j2, alternating runs (the
# host may be shared, so every configuration runs RUNS times, interleaved,
# and the table shows medians and their ratios). Wall time, user+sys CPU
# and peak RSS come from GNU time (wait4 rusage). Both write detached BTF:
# the kernel file is never modified. btfstream's output is checked equal
# to pahole's as a type graph (btfstream diff), and byte-identical across
# -j. With MEMLIMIT (e.g. 64M), one more row runs btfstream -j4
# --mem-limit MEMLIMIT and reports its peak RSS against the limit.
#
#   RUNS=5 MEMLIMIT=64M bash bench/encode_vs_pahole.sh [VMLINUX]
#
# VMLINUX defaults to $BTFSTREAM_KERNEL, else the newest cloud-amd64
# vmlinux of the test cache (the 6.12 one).
# PAHOLE defaults to the reference build (/work/shared/reference/
# pahole-1.31/pahole, else pahole on PATH); BTFSTREAM=path uses an
# existing btfstream binary instead of building one.
set -eu
cd "$(dirname "$0")/.."
V=${1:-${BTFSTREAM_KERNEL:-$(ls ~/.cache/btfstream-testdata/*cloud-amd64*/usr/lib/debug/boot/vmlinux-* | sort -V | tail -1)}}
REF=/work/shared/reference/pahole-1.31/pahole
[ -x "$REF" ] || REF=pahole
PAHOLE=${PAHOLE:-$REF}
RUNS=${RUNS:-3}
MEMLIMIT=${MEMLIMIT:-}
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
pahole() { run "pahole-j$1" "$PAHOLE" -J -j"$1" --btf_features=$F,reproducible_build --lang_exclude=rust --btf_encode_detached "$TMP/p$1.btf" "$V"; }
ours() { run "btfstream-j$1" "$BS" -J -j"$1" --btf_features=$F --lang_exclude=rust --btf_encode_detached "$TMP/b$1.btf" "$V"; }
for i in $(seq "$RUNS"); do
	pahole 1
	ours 1
	pahole 2
	ours 2
	if [ -n "$MEMLIMIT" ]; then
		run btfstream-limit "$BS" -J -j4 --mem-limit "$MEMLIMIT" --btf_features=$F --lang_exclude=rust --btf_encode_detached "$TMP/bl.btf" "$V"
	fi
done

med() { # file column: the median
	sort -n -k"$2" "$1" | awk -v c="$2" '{v[NR]=$c} END {printf "%.2f", v[int((NR+1)/2)]}'
}
ratio() { echo "scale=2; $1/$2" | bc | sed 's/^\./0./'; }
echo "host: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $RUNS alternating runs each; medians"
printf '%-22s %10s %10s %8s\n' "" btfstream "pahole" ratio
for j in 1 2; do
	b=$(med "$TMP/res-btfstream-j$j" 1) p=$(med "$TMP/res-pahole-j$j" 1)
	printf '%-22s %10s %10s %8s\n' "-j$j wall s" "$b" "$p" "$(ratio "$b" "$p")"
	b=$(med "$TMP/res-btfstream-j$j" 2) p=$(med "$TMP/res-pahole-j$j" 2)
	printf '%-22s %10s %10s %8s\n' "-j$j user+sys s" "$b" "$p" "$(ratio "$b" "$p")"
done
b1=$(med "$TMP/res-btfstream-j1" 1) b2=$(med "$TMP/res-btfstream-j2" 1)
p1=$(med "$TMP/res-pahole-j1" 1) p2=$(med "$TMP/res-pahole-j2" 1)
printf '%-22s %9sx %9sx\n' "own -j2 speed-up" "$(ratio "$b1" "$b2")" "$(ratio "$p1" "$p2")"
b=$(sort -n -k3 "$TMP/res-btfstream-j2" | tail -1 | awk '{printf "%.0f", $3/1024}')
p=$(sort -n -k3 "$TMP/res-pahole-j2" | tail -1 | awk '{printf "%.0f", $3/1024}')
printf '%-22s %10s %10s %8s\n' "-j2 peak RSS MiB (max)" "$b" "$p" "$(ratio "$b" "$p")"
if [ -n "$MEMLIMIT" ]; then
	rss=$(sort -n -k3 "$TMP/res-btfstream-limit" | tail -1 | awk '{printf "%.1f", $3/1024}')
	printf '%-22s %10s MiB (limit %s), wall %s s\n' "-j4 --mem-limit" "$rss" "$MEMLIMIT" "$(med "$TMP/res-btfstream-limit" 1)"
	cmp -s "$TMP/b1.btf" "$TMP/bl.btf" && echo "-j4 --mem-limit $MEMLIMIT output: byte-identical to -j1" || { echo "-j4 --mem-limit output DIFFERS from -j1"; exit 1; }
fi
echo "graph vs pahole: $("$BS" diff "$TMP/b1.btf" "$TMP/p1.btf" | tail -1)"
cmp -s "$TMP/b1.btf" "$TMP/b2.btf" && echo "-j2 output: byte-identical to -j1" || { echo "-j2 output DIFFERS from -j1"; exit 1; }
