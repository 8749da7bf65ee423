#!/bin/sh
# bench/memab.sh: two btfstream binaries side by side under --mem-limit.
# For each cell (file, base, limit, -j) it runs A and B alternately RUNS
# times and prints the medians of wall, user+sys and peak RSS (GNU time
# %e %U %S %M) of each and B/A, and the range of each's RSS; every limited output is compared with the
# same binary's unlimited -j1 output of that file, and B's with A's.
#
#	A=OLD-BIN B=NEW-BIN bench/memab.sh [CELLS-FILE]
#
# CELLS-FILE has one cell a line: "NAME FILE BASE LIMIT JOBS" (BASE "-"
# for none; LIMIT "floor" for what the binary's --mem-floor quotes, which
# must be the same for A and B). Lines starting with # are skipped.
# Without it, the cells of issue 18's check: the 6.12 and 6.1 cloud
# vmlinux at their floor, 40M and 64M, -j1 and -j2; the 7.2 one at its
# floor (-j1, -j2) and 64M; xfs, nf_tables and tcp_bbr of 7.2 over
# BASE_BTF (default /work/ref/v72.p132.btf) at their floor and 64M (the
# kernels as shared/testdata/kernel-dbg.sh caches them; missing ones are
# left out). RUNS (default 3). Output: a TSV table on stdout; the quoted
# floors of both binaries per file come first. Writes scratch outputs
# under a temporary directory, removed at exit. Wall is noisy on a shared
# host: read user+sys and RSS first, and note the load (printed).
set -eu
: "${A:?A=old binary}" "${B:?B=new binary}"
runs=${RUNS:-3}
feats=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
median() { sort -n | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
baseflag() { [ "$1" = - ] || printf -- '--btf_base %s' "$1"; }

# enc BIN OUT FILE BASE LIMIT JOBS TIMEFILE
enc() {
	/usr/bin/time -f '%e %U %S %M' -o "$7" "$1" -J -j"$6" --btf_features=$feats --lang_exclude=rust \
		--mem-limit "$5" $(baseflag "$4") --btf_encode_detached "$2" "$3" 2>"$work/log" ||
		{ cat "$work/log" >&2; echo "memab: $1 failed on $3 at $5 -j$6" >&2; exit 1; }
}

# defaultCells prints issue 18's cells for the kernels that are cached.
defaultCells() {
	cache=${HOME}/.cache/btfstream-testdata
	v612=$cache/linux-image-6.12.117+deb13-cloud-amd64-dbg/usr/lib/debug/boot/vmlinux-6.12.117+deb13-cloud-amd64
	v61=$cache/linux-image-6.1.0-50-cloud-amd64-dbg/usr/lib/debug/boot/vmlinux-6.1.0-50-cloud-amd64
	k72=$cache/linux-image-7.2.13+deb14-cloud-amd64-dbg/usr/lib/debug
	v72=$k72/boot/vmlinux-7.2.13+deb14-cloud-amd64
	mods=$k72/lib/modules/7.2.13+deb14-cloud-amd64/kernel
	base=${BASE_BTF:-/work/ref/v72.p132.btf}
	for v in v612:"$v612" v61:"$v61"; do
		[ -f "${v#*:}" ] || continue
		for l in floor 40M 64M; do
			for j in 1 2; do echo "${v%%:*} ${v#*:} - $l $j"; done
		done
	done
	if [ -f "$v72" ]; then
		printf 'v72 %s - floor 1\nv72 %s - floor 2\nv72 %s - 64M 1\n' "$v72" "$v72" "$v72"
	fi
	[ -f "$base" ] || return 0
	for m in fs/xfs/xfs.ko net/netfilter/nf_tables.ko net/ipv4/tcp_bbr.ko; do
		[ -f "$mods/$m" ] || continue
		for l in floor 64M; do echo "$(basename "$m" .ko) $mods/$m $base $l 1"; done
	done
}

if [ -n "${1:-}" ]; then
	grep -v '^#' "$1" | grep -v '^ *$' >"$work/cells"
else
	defaultCells >"$work/cells"
fi
printf 'load\t%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
printf 'cell\tlimit\tj\twall_A\twall_B\tB/A\tcpu_A\tcpu_B\tB/A\trss_A_MiB\trss_B_MiB\tB/A\tident\trss_A_range\trss_B_range\n'
n=0
while read -r name file base limit jobs; do
	n=$((n + 1))
	key=$(printf '%s' "$file$base" | md5sum | cut -c1-12)
	if [ ! -f "$work/$key.A.btf" ]; then
		fa=$("$A" --mem-floor $(baseflag "$base") "$file")
		fb=$("$B" --mem-floor $(baseflag "$base") "$file")
		printf 'floor\t%s\tA %s\tB %s\n' "$name" "$fa" "$fb"
		echo "$fa" >"$work/$key.floor"
		enc "$A" "$work/$key.A.btf" "$file" "$base" 0 1 "$work/t"
		enc "$B" "$work/$key.B.btf" "$file" "$base" 0 1 "$work/t"
		cmp -s "$work/$key.A.btf" "$work/$key.B.btf" || printf 'DIFF\t%s\tunlimited A and B outputs differ\n' "$name"
	fi
	[ "$limit" = floor ] && limit=$(cat "$work/$key.floor")
	: >"$work/A.t"
	: >"$work/B.t"
	ident=yes
	for r in $(seq "$runs"); do
		for s in A B; do
			eval bin=\$$s
			enc "$bin" "$work/out.btf" "$file" "$base" "$limit" "$jobs" "$work/t"
			tail -1 "$work/t" >>"$work/$s.t"
			cmp -s "$work/out.btf" "$work/$key.A.btf" || ident=no
		done
	done
	for s in A B; do
		awk '{print $1}' "$work/$s.t" | median >"$work/$s.wall"
		awk '{print $2+$3}' "$work/$s.t" | median >"$work/$s.cpu"
		awk '{print $4/1024}' "$work/$s.t" | median >"$work/$s.rss"
	done
	wa=$(cat "$work/A.wall") wb=$(cat "$work/B.wall") ca=$(cat "$work/A.cpu") cb=$(cat "$work/B.cpu")
	ra=$(cat "$work/A.rss") rb=$(cat "$work/B.rss")
	range() { awk '{v=$4/1024; if (NR==1 || v<lo) lo=v; if (NR==1 || v>hi) hi=v} END {printf "%.1f-%.1f", lo, hi}' "$1"; }
	printf '%s\t%s\t%s\t%.2f\t%.2f\t%.3f\t%.2f\t%.2f\t%.3f\t%.1f\t%.1f\t%.3f\t%s\t%s\t%s\n' "$name" "$limit" "$jobs" \
		"$wa" "$wb" "$(echo "$wb/$wa" | bc -l)" "$ca" "$cb" "$(echo "$cb/$ca" | bc -l)" \
		"$ra" "$rb" "$(echo "$rb/$ra" | bc -l)" "$ident" "$(range "$work/A.t")" "$(range "$work/B.t")"
done <"$work/cells"
printf 'load\t%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
