#!/bin/bash
# Every module of a kernel, btfstream against pahole (1.32) over pahole's
# vmlinux BTF: each .ko is encoded by both tools as split BTF over the same
# base (-j1, kbuild's BTF features, detached outputs: the .ko files are
# never modified) and compared with `btfstream diff --base`, where a module
# type identical to a base type counts as that base type on both sides
# (pahole 1.32 built with libbpf 1.7 leaves such copies; btfstream folds
# them). Prints the module count, how many are equal, each differing
# module with the first lines of its diff, and checks that no btfstream
# output holds a type identical to a base type (with how many pahole's
# had: total here, per module in OUT/pahole_base_copies.txt).
#
#   [BASE=vmlinux.btf] [JOBS=1] [OUT=dir] [KEEP=1] bash bench/modules_vs_pahole.sh [VMLINUX]
#
# VMLINUX: a kernel from `kernel-dbg.sh --modules all` (default: the
# newest one in the test cache with modules extracted); its modules are
# DIR/usr/lib/debug/lib/modules/VERSION/kernel/**/*.ko. BASE: pahole's
# BTF of that vmlinux, if already made (else it is encoded once, with
# kbuild's flags, into OUT/vmlinux.btf). PAHOLE defaults to the 1.32
# reference build; BTFSTREAM=path uses an existing btfstream binary. JOBS
# modules run at once (each tool at -j1). OUT keeps, per module, the diff
# (diff/NAME.txt) and the times (times.txt: module, tool, wall s, user+sys
# s, peak RSS KiB); KEEP=1 keeps the BTF files too (p/ and b/). Exit
# status: 0 if every module is equal and btfstream's have no base copies.
set -eu
cd "$(dirname "$0")/.."
V=${1:-}
if [ -z "$V" ]; then
	for v in $(ls -d ~/.cache/btfstream-testdata/*cloud-amd64*/usr/lib/debug/boot/vmlinux-* | sort -V -r); do
		r=${v%/boot/*}
		if [ "$(find "$r/lib/modules" -name '*.ko' 2>/dev/null | head -100 | wc -l)" -ge 100 ]; then
			V=$v
			break
		fi
	done
fi
[ -n "$V" ] && [ -e "$V" ] || { echo "modules_vs_pahole: no kernel with all modules (kernel-dbg.sh --modules all)" >&2; exit 2; }
ROOT=${V%/boot/*}
VER=${V##*/vmlinux-}
MDIR=$ROOT/lib/modules/$VER/kernel
[ -d "$MDIR" ] || MDIR=$(ls -d "$ROOT"/lib/modules/*/kernel | head -1)
PAHOLE=${PAHOLE:-/work/shared/reference/pahole-1.32/pahole}
JOBS=${JOBS:-1}
OUT=${OUT:-$(mktemp -d /tmp/modules_vs_pahole.XXXXXX)}
F=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs
mkdir -p "$OUT/p" "$OUT/b" "$OUT/diff"
BS=${BTFSTREAM:-}
if [ -z "$BS" ]; then
	go build -o "$OUT/btfstream" ./cmd/btfstream
	BS=$OUT/btfstream
fi
start=$(date +%s)
if [ -z "${BASE:-}" ]; then
	BASE=$OUT/vmlinux.btf
	echo "encoding pahole's vmlinux BTF: $V"
	/usr/bin/time -f "vmlinux: %e s, %M KiB" "$PAHOLE" -J -j1 --btf_features=$F,reproducible_build --lang_exclude=rust \
		--btf_encode_detached "$BASE" "$V" > "$OUT/vmlinux.log" 2>&1 || { cat "$OUT/vmlinux.log"; exit 1; }
	tail -1 "$OUT/vmlinux.log"
fi
: > "$OUT/times.txt"
: > "$OUT/results.txt"

# one MODULE.ko: NAME status pahole_copies btfstream_copies into results.txt
one() {
	ko=$1
	name=${ko#"$MDIR"/}
	name=${name%.ko}
	name=${name//\//_}
	p=$OUT/p/$name.btf b=$OUT/b/$name.btf d=$OUT/diff/$name.txt
	status=equal
	if ! /usr/bin/time -f "$name pahole %e %U %S %M" -a -o "$OUT/times.txt" \
		"$PAHOLE" -J -j1 --btf_features=$F,reproducible_build --lang_exclude=rust --btf_encode_detached "$p" --btf_base "$BASE" "$ko" > "$d" 2>&1; then
		status=pahole-error
	elif ! /usr/bin/time -f "$name btfstream %e %U %S %M" -a -o "$OUT/times.txt" \
		"$BS" -J -j1 --btf_features=$F --lang_exclude=rust --btf_encode_detached "$b" --btf_base "$BASE" "$ko" > "$d" 2>&1; then
		status=btfstream-error
	else
		"$BS" diff --max 20 --base "$BASE" "$p" "$b" > "$d" 2>&1 && rc=0 || rc=$?
		case $rc in 0) ;; 1) status=differ ;; *) status=diff-error ;; esac
	fi
	# "base copies (...): A n (KINDS), B m (KINDS)"
	pc=$(sed -n 's/^base copies.*: A \([0-9]*\).*, B \([0-9]*\).*/\1/p' "$d")
	bc=$(sed -n 's/^base copies.*: A \([0-9]*\).*, B \([0-9]*\).*/\2/p' "$d")
	echo "$name $status ${pc:-0} ${bc:-0}" >> "$OUT/results.txt"
	[ -n "${KEEP:-}" ] || rm -f "$p" "$b"
}
export -f one
export OUT MDIR PAHOLE BS BASE F KEEP
find "$MDIR" -name '*.ko' | sort | xargs -P "$JOBS" -I{} bash -c 'one "$1"' _ {}
end=$(date +%s)

sort -o "$OUT/results.txt" "$OUT/results.txt"
total=$(wc -l < "$OUT/results.txt")
equal=$(awk '$2 == "equal"' "$OUT/results.txt" | wc -l)
echo "kernel: $V"
echo "base:   $BASE"
echo "modules: $total, equal: $equal, differ: $(awk '$2 == "differ"' "$OUT/results.txt" | wc -l), errors: $(awk '$2 ~ /error/' "$OUT/results.txt" | wc -l)"
awk '$2 != "equal" {print $1, $2}' "$OUT/results.txt" | while read -r name status; do
	echo "== $name: $status"
	# the diff minus its kind table (kind rows and the header/total lines)
	grep -v -E '^(kind|total|[A-Z_0-9]+) +[0-9A-Z]+ +[0-9B]+( \*)?$' "$OUT/diff/$name.txt" | cut -c1-240 | head -6
done
awk '{print $1, $3}' "$OUT/results.txt" > "$OUT/pahole_base_copies.txt"
pcopies=$(awk '{s += $3} END {print s + 0}' "$OUT/results.txt")
pmods=$(awk '$3 > 0' "$OUT/results.txt" | wc -l)
bcopies=$(awk '{s += $4} END {print s + 0}' "$OUT/results.txt")
echo "base copies in pahole's outputs: $pcopies in $pmods modules (per module: $OUT/pahole_base_copies.txt)"
if [ "$bcopies" -eq 0 ]; then
	echo "base copies in btfstream's outputs: none"
else
	echo "base copies in btfstream's outputs: $bcopies, in:"
	awk '$4 > 0 {print "  " $1, $4}' "$OUT/results.txt"
fi
awk '{w[$2] += $3; c[$2] += $4 + $5; if ($6 > m[$2]) m[$2] = $6} END {
	for (t in w) printf "%-9s wall %.0f s, CPU %.0f s, largest peak RSS %d MiB\n", t, w[t], c[t], m[t] / 1024 }' "$OUT/times.txt" | sort
echo "elapsed: $((end - start)) s with JOBS=$JOBS on $(nproc) CPUs (load average $(cut -d' ' -f1-3 /proc/loadavg)); results in $OUT"
[ "$equal" -eq "$total" ] && [ "$bcopies" -eq 0 ]
