#!/bin/sh
# bench/memtable.sh: peak RSS, wall time and spilled bytes of btfstream -J
# at several --mem-limit values and job counts, each output compared byte
# for byte with an unlimited run of the same job count, and pahole 1.31 on
# the same file for scale.
#
#	bench/memtable.sh [FILE [OUTDIR]]
#
# FILE defaults to the newest cached Debian cloud-amd64 vmlinux (run
# /work/shared/testdata/kernel-dbg.sh to fetch one). Environment: LIMITS
# (default "24M 32M 40M 46M 64M 1G none"; "none" is --mem-limit 0), JOBS
# (default "1 2"), RUNS (runs per cell, default 1; the peak RSS and wall
# time reported are the medians), PAHOLE (default
# /work/shared/reference/pahole-1.31/pahole; empty: skip), BTFSTREAM (a
# prebuilt binary; default: built from this checkout).
#
# Peak RSS is the kernel's: wait4's ru_maxrss through GNU time (%M). A
# limit below the file's floor is refused before encoding; its row says so
# with the floor. "jobs" is how many of the -j jobs the limit held. Cells
# run one at a time, alternating job counts; the input is never modified
# (always --btf_encode_detached). Writes OUTDIR/memtable.tsv and one plot
# per job count, OUTDIR/memtable-jN.png (peak RSS against the limit, with
# the limit and limit+5% lines); OUTDIR defaults to /tmp/memtable.
set -eu
cd "$(dirname "$0")/.."
cache=${HOME}/.cache/btfstream-testdata
file=${1:-$(ls -t "$cache"/linux-image-*-cloud-amd64-dbg/usr/lib/debug/boot/vmlinux-* 2>/dev/null | head -1)}
[ -n "$file" ] && [ -f "$file" ] || { echo "memtable: no vmlinux (give FILE or run kernel-dbg.sh)" >&2; exit 2; }
out=${2:-/tmp/memtable}
limits=${LIMITS:-24M 32M 40M 46M 64M 1G none}
jobs=${JOBS:-1 2}
runs=${RUNS:-1}
pahole=${PAHOLE-/work/shared/reference/pahole-1.31/pahole}
feats=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
bin=${BTFSTREAM:-}
if [ -z "$bin" ]; then
	go build -o "$work/btfstream" ./cmd/btfstream
	bin=$work/btfstream
fi
go build -o "$work/memplot" ./bench/memplot

median() { sort -n | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

# run NAME LIMIT JOBS: one encoding; prints "rss_kib wall_s spilled_bytes jobs_ran",
# or "refused FLOOR".
run() {
	lim=$2
	[ "$lim" = none ] && lim=0
	if ! /usr/bin/time -f '%M %e' -o "$work/$1.time" "$bin" -J -j"$3" --btf_features=$feats --lang_exclude=rust \
		--mem-limit "$lim" --summary --btf_encode_detached "$work/$1.btf" "$file" 2>"$work/$1.log"; then
		floor=$(sed -n 's/.*use --mem-limit \([0-9A-Z.]*\) or more.*/\1/p' "$work/$1.log")
		[ -n "$floor" ] || { cat "$work/$1.log" >&2; return 1; }
		echo "refused $floor"
		return 0
	fi
	ran=$(sed -n 's/.*, \([0-9]*\) of [0-9]* jobs.*/\1/p' "$work/$1.log")
	echo "$(tail -1 "$work/$1.time") $(sed -n 's/.*spilled \([0-9]*\) bytes.*/\1/p' "$work/$1.log") ${ran:-$3}"
}

{
	printf 'file\t%s\n' "$file"
	printf 'floor\t%s (btfstream --mem-floor)\n' "$("$bin" --mem-floor "$file")"
	printf 'runs\t%s per cell (medians)\n' "$runs"
	printf 'jobs\tlimit\tpeak_rss_mib\twithin_5pct\twall_s\tx_unlimited\tspilled_bytes\tidentical\tjobs_ran\n'
} >"$out/memtable.tsv"
for j in $jobs; do
	set -- $(run "ref$j" none "$j")
	base_wall=$2
	: >"$work/points$j"
	for l in $limits; do
		rm -f "$work/rss" "$work/wall"
		res=""
		for r in $(seq "$runs"); do
			res=$(run "j$j-$l" "$l" "$j")
			case $res in refused*) break ;; esac
			set -- $res
			echo "$1" >>"$work/rss"
			echo "$2" >>"$work/wall"
			spilled=$3 ran=$4
		done
		case $res in
		refused*)
			printf '%s\t%s\trefused: floor %s\t-\t-\t-\t-\t-\t-\n' "$j" "$l" "${res#refused }" >>"$out/memtable.tsv"
			continue
			;;
		esac
		rss=$(median <"$work/rss")
		wall=$(median <"$work/wall")
		ident=no
		cmp -s "$work/ref$j.btf" "$work/j$j-$l.btf" && ident=yes
		within=-
		if [ "$l" != none ]; then
			lim_kib=$(echo "$l" | awk '/G$/{print $0*1048576; next} /M$/{print $0*1024; next} /K$/{print $0+0; next} {print int($0/1024)}')
			within=no
			[ "$(echo "$rss <= $lim_kib * 1.05" | bc)" = 1 ] && within=yes
			echo "$lim_kib $rss" >>"$work/points$j"
		fi
		printf '%s\t%s\t%.1f\t%s\t%s\t%.2f\t%s\t%s\t%s\n' "$j" "$l" "$(echo "$rss/1024" | bc -l)" "$within" "$wall" \
			"$(echo "$wall/$base_wall" | bc -l)" "$spilled" "$ident" "$ran" >>"$out/memtable.tsv"
	done
	# The unlimited runs of each job count are the same bytes, too.
	if [ "$j" != "$(echo $jobs | cut -d' ' -f1)" ]; then
		cmp -s "$work/ref$j.btf" "$work/ref$(echo $jobs | cut -d' ' -f1).btf" ||
			printf '%s\tnone\tOUTPUT DIFFERS FROM -j%s\n' "$j" "$(echo $jobs | cut -d' ' -f1)" >>"$out/memtable.tsv"
	fi
	[ -s "$work/points$j" ] && "$work/memplot" -o "$out/memtable-j$j.png" <"$work/points$j"
done
if [ -n "$pahole" ] && [ -x "$pahole" ]; then
	for j in $jobs; do
		/usr/bin/time -f '%M %e' -o "$work/pahole.time" "$pahole" -J -j"$j" --btf_features=$feats,reproducible_build \
			--lang_exclude=rust --btf_encode_detached "$work/pahole.btf" "$file" >/dev/null 2>&1
		set -- $(tail -1 "$work/pahole.time")
		printf 'pahole-1.31\t-j%s\t%.1f\t-\t%s\t-\t-\t-\t-\n' "$j" "$(echo "$1/1024" | bc -l)" "$2" >>"$out/memtable.tsv"
	done
fi
cat "$out/memtable.tsv"
ls "$out"/memtable-j*.png 2>/dev/null | sed 's/^/plot: /'
