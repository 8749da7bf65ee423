#!/bin/sh
# bench/memtable.sh: peak RSS, wall time and spilled bytes of btfstream -J
# at several --mem-limit values, each output compared byte for byte with
# an unlimited run, and pahole 1.31 on the same file for scale.
#
#	bench/memtable.sh [FILE [OUTDIR]]
#
# FILE defaults to the first line of /tmp/k-amd64.txt (Debian cloud-amd64
# vmlinux). Environment: LIMITS (default "1G 256M 128M 64M 48M"), JOBS
# (default 1), PAHOLE (default /opt/pahole-1.31/bin/pahole; empty: skip),
# BTFSTREAM (a prebuilt binary; default: built from this checkout).
# Peak RSS is the kernel's (wait4 rusage ru_maxrss via /usr/bin/time -v).
# Writes OUTDIR/memtable.tsv and OUTDIR/memtable.png (peak RSS against
# limit, with the limit and limit+5% lines); OUTDIR defaults to
# /tmp/memtable. Runs one process at a time; the input is never modified
# (always --btf_encode_detached).
set -eu
cd "$(dirname "$0")/.."
file=${1:-$(head -1 /tmp/k-amd64.txt)}
out=${2:-/tmp/memtable}
limits=${LIMITS:-1G 256M 128M 64M 48M}
jobs=${JOBS:-1}
pahole=${PAHOLE-/opt/pahole-1.31/bin/pahole}
feats=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs,reproducible_build
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
bin=${BTFSTREAM:-}
if [ -z "$bin" ]; then
	go build -o "$work/btfstream" ./cmd/btfstream
	bin=$work/btfstream
fi
go build -o "$work/memplot" ./bench/memplot

# run NAME LIMIT: one encoding; prints "rss_kib wall_s spilled_bytes".
run() {
	/usr/bin/time -v -o "$work/$1.time" "$bin" -J -j"$jobs" --btf_features=$feats --lang_exclude=rust \
		--mem-limit "$2" --summary --btf_encode_detached "$work/$1.btf" "$file" 2>"$work/$1.log" ||
		{ cat "$work/$1.log" >&2; return 1; }
	rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/$1.time")
	wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/$1.time" | awk -F: '{print ($1*60+$2)}')
	spilled=$(sed -n 's/.*spilled \([0-9]*\) bytes.*/\1/p' "$work/$1.log")
	echo "$rss $wall ${spilled:-0}"
}

printf 'file\t%s\njobs\t%s\n' "$file" "$jobs" >"$out/memtable.tsv"
set -- $(run unlimited 0)
base_rss=$1 base_wall=$2
printf 'limit\tpeak_rss_mib\twithin_limit_5pct\twall_s\tx_unlimited\tspilled_bytes\tidentical\n' >>"$out/memtable.tsv"
printf 'none\t%.1f\t-\t%s\t1.00\t%s\tref\n' "$(echo "$base_rss/1024" | bc -l)" "$base_wall" "$3" >>"$out/memtable.tsv"
for l in $limits; do
	set -- $(run "lim$l" "$l")
	rss=$1 wall=$2 spilled=$3
	ident=no
	cmp -s "$work/unlimited.btf" "$work/lim$l.btf" && ident=yes
	lim_kib=$(echo "$l" | awk '/G$/{print $0*1048576; next} /M$/{print $0*1024; next} /K$/{print $0+0; next} {print int($0/1024)}')
	within=no
	[ "$(echo "$rss <= $lim_kib * 1.05" | bc)" = 1 ] && within=yes
	printf '%s\t%.1f\t%s\t%s\t%.2f\t%s\t%s\n' "$l" "$(echo "$rss/1024" | bc -l)" "$within" "$wall" \
		"$(echo "$wall/$base_wall" | bc -l)" "$spilled" "$ident" >>"$out/memtable.tsv"
	echo "$lim_kib $rss" >>"$work/points"
done
if [ -n "$pahole" ] && [ -x "$pahole" ]; then
	/usr/bin/time -v -o "$work/pahole.time" "$pahole" -J -j"$jobs" --btf_features=$feats --lang_exclude=rust \
		--btf_encode_detached "$work/pahole.btf" "$file" >/dev/null 2>&1
	prss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/pahole.time")
	pwall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/pahole.time" | awk -F: '{print ($1*60+$2)}')
	printf 'pahole\t%.1f\t-\t%s\t%.2f\t-\t-\n' "$(echo "$prss/1024" | bc -l)" "$pwall" "$(echo "$pwall/$base_wall" | bc -l)" >>"$out/memtable.tsv"
	printf 'pahole_rss/btfstream_unlimited_rss\t%.2f\n' "$(echo "$prss/$base_rss" | bc -l)" >>"$out/memtable.tsv"
fi
"$work/memplot" -o "$out/memtable.png" <"$work/points"
cat "$out/memtable.tsv"
echo "plot: $out/memtable.png"
