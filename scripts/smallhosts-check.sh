#!/bin/sh
# Small hosts (issue 19): btfstream with no memory flag inside memory
# cgroups, compared with unlimited runs. Needs root and a writable memory
# cgroup (v2 where /sys/fs/cgroup is cgroup2, else v1's memory hierarchy).
#
#   scripts/smallhosts-check.sh BTFSTREAM_BIN VMLINUX [VMLINUX...]
#
# For each VMLINUX: an unlimited run (--mem-limit 0), then a run with no
# memory flag in a 64 MiB cgroup: it must succeed with identical bytes.
# Then, against that vmlinux's BTF as base, xfs, nf_tables, sctp and
# virtio_net of its kernel (found under ../lib/modules/*/kernel) with
# kbuild's flags: unlimited one by one, then all four at once in one
# 256 MiB cgroup: all must succeed, identical. With PAHOLE set (pahole
# 1.32), pahole on the vmlinux in a 256 MiB cgroup is recorded, not
# judged. With BTFSTREAM_386 (a GOARCH=386 build) and BTFSTREAM_STATIC (a
# static amd64 build: go build -tags netgo,osusergo), each vmlinux is also
# encoded at -j4 under ulimit -v 1 GiB (386) and 800 MiB (static amd64,
# the smallest README.md documents): identical to the unlimited run.
# Prints one line per run: what, limit, budget, peak RSS, wall,
# identical. Exit 1 on any failure or difference.
set -u
BIN=$1
shift
OUT=${SMALLHOSTS_OUT:-$(mktemp -d /tmp/smallhosts-check.XXXXXX)}
F=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs
mkdir -p "$OUT" || exit 1
CG=smallhosts-check.$$
fail=0

# cgroup_make NAME BYTES: create a memory cgroup, print its directory.
cgroup_make() {
	if [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ]; then
		grep -qw memory /sys/fs/cgroup/cgroup.subtree_control ||
			echo +memory >/sys/fs/cgroup/cgroup.subtree_control
		d=/sys/fs/cgroup/$1
		mkdir -p "$d" && echo "$2" >"$d/memory.max" && echo 0 >"$d/memory.swap.max" 2>/dev/null
	else
		m=$(awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/mounts)
		d=$m/$1
		mkdir -p "$d" && echo "$2" >"$d/memory.limit_in_bytes"
	fi
	echo "$d"
}

# cgroup_run DIR CMD...: run CMD inside the cgroup.
cgroup_run() {
	d=$1
	shift
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$d" "$@"
}

# timed LABEL LIMIT CGDIR OUTFILE REFFILE CMD...: run and report one line.
timed() {
	label=$1 limit=$2 cgd=$3 out=$4 ref=$5
	shift 5
	t=$OUT/time.$(echo "$label" | tr -c 'A-Za-z0-9.\n' _)
	if [ -n "$cgd" ]; then
		cgroup_run "$cgd" /usr/bin/time -f '%e %M' -o "$t" "$@" 2>"$t.err"
	else
		/usr/bin/time -f '%e %M' -o "$t" "$@" 2>"$t.err"
	fi
	rc=$?
	budget=$(sed -n 's/.*, budget \([^,]*([^)]*)\).*/\1/p' "$t.err" | head -1)
	set -- $(tail -1 "$t" 2>/dev/null) 0 0
	same=-
	if [ -n "$ref" ]; then
		if [ $rc = 0 ] && cmp -s "$out" "$ref"; then same=yes; else same=NO; fi
	fi
	printf '%-28s %-6s rc=%-3s budget=%-52s peakRSS=%6.1fMiB wall=%6.1fs identical=%s\n' \
		"$label" "$limit" "$rc" "${budget:--}" "$(echo "$2" | awk '{ print $1/1024 }')" "$1" "$same"
	[ $rc = 0 ] || { sed 's/^/    /' "$t.err" | tail -3; }
}

for V in "$@"; do
	tag=$(basename "$V" | sed 's/^vmlinux-//')
	base=$OUT/$tag.unlimited.btf
	timed "$tag unlimited" none "" "$base" "" "$BIN" --summary -j1 --mem-limit 0 --btf_encode_detached "$base" "$V" || fail=1
	[ -s "$base" ] || { fail=1; continue; }
	d=$(cgroup_make "$CG.64" $((64 << 20))) || { echo "cannot make a memory cgroup"; exit 1; }
	timed "$tag cgroup" 64M "$d" "$OUT/$tag.cg64.btf" "$base" "$BIN" --summary --btf_encode_detached "$OUT/$tag.cg64.btf" "$V"
	[ "$same" = yes ] || fail=1
	rmdir "$d"
	for b in "${BTFSTREAM_386:-}:1024" "${BTFSTREAM_STATIC:-}:800"; do
		bin=${b%:*} mib=${b##*:}
		[ -n "$bin" ] || continue
		timed "$tag $(basename "$bin") -j4" "v${mib}M" "" "$OUT/$tag.ulimit.btf" "$base" \
			prlimit --as=$((mib << 20)) "$bin" --summary -j4 --btf_encode_detached "$OUT/$tag.ulimit.btf" "$V"
		[ "$same" = yes ] || fail=1
	done
	if [ -n "${PAHOLE:-}" ]; then
		d=$(cgroup_make "$CG.p256" $((256 << 20)))
		timed "$tag pahole(recorded)" 256M "$d" "$OUT/$tag.pahole.btf" "" "$PAHOLE" -J -j1 \
			--btf_features=$F,reproducible_build --lang_exclude=rust --btf_encode_detached "$OUT/$tag.pahole.btf" "$V"
		rmdir "$d"
	fi
	mods=$(dirname "$V")/../lib/modules/$tag/kernel
	set --
	for m in fs/xfs/xfs.ko net/netfilter/nf_tables.ko net/sctp/sctp.ko drivers/net/virtio_net.ko; do
		[ -f "$mods/$m" ] || continue
		n=$(basename "$m" .ko)
		timed "$tag $n unlimited" none "" "$OUT/$tag.$n.ref.btf" "" "$BIN" -j1 --mem-limit 0 --btf_features=$F \
			--lang_exclude=rust --btf_encode_detached "$OUT/$tag.$n.ref.btf" --btf_base "$base" "$mods/$m" || fail=1
	done
	d=$(cgroup_make "$CG.256" $((256 << 20)))
	pids=
	for m in fs/xfs/xfs.ko net/netfilter/nf_tables.ko net/sctp/sctp.ko drivers/net/virtio_net.ko; do
		[ -f "$mods/$m" ] || continue
		n=$(basename "$m" .ko)
		(timed "$tag $n 4-at-once" 256M/4 "$d" "$OUT/$tag.$n.btf" "$OUT/$tag.$n.ref.btf" "$BIN" --summary -j1 --btf_features=$F \
			--lang_exclude=rust --btf_encode_detached "$OUT/$tag.$n.btf" --btf_base "$base" "$mods/$m"
		[ "$same" = yes ]) &
		pids="$pids $!"
	done
	for p in $pids; do wait "$p" || fail=1; done
	if [ -f "$d/memory.max_usage_in_bytes" ]; then
		echo "    4-at-once cgroup peak: $(($(cat "$d/memory.max_usage_in_bytes") >> 20)) MiB"
	elif [ -f "$d/memory.peak" ]; then
		echo "    4-at-once cgroup peak: $(($(cat "$d/memory.peak") >> 20)) MiB"
	fi
	rmdir "$d"
done
[ -n "${SMALLHOSTS_OUT:-}" ] || rm -rf "$OUT"
[ $fail = 0 ] && echo "smallhosts-check: ok" || echo "smallhosts-check: FAILED"
exit $fail
