#!/bin/sh
# Side-by-side: btfstream's decode-only pass (bench/decodestat, -j1) against
# the whole `pahole -J` run (-j1), wall time and peak RSS for each, on the
# same vmlinux. pahole runs on a COPY with --btf_encode_detached so the
# cached kernel's .BTF is never touched.
#
#   sh bench/decode_vs_pahole.sh [VMLINUX]
set -eu
cd "$(dirname "$0")/.."
V=${1:-${BTFSTREAM_KERNEL:-$(ls ~/.cache/btfstream-testdata/*cloud-amd64*/usr/lib/debug/boot/vmlinux-* | head -1)}}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
go build -o "$TMP/decodestat" ./bench/decodestat
cp "$V" "$TMP/vmlinux"
# Warm the page cache so neither side pays for the first read.
cat "$TMP/vmlinux" > /dev/null

measure() { # label cmd...: prints label wall_s peak_rss_kb (GNU time, wait4 rusage)
	label=$1; shift
	/usr/bin/time -f "%e %M" -o "$TMP/t" "$@" > "$TMP/out" 2>&1 || { cat "$TMP/out"; exit 1; }
	set -- $(cat "$TMP/t")
	printf '%-28s wall %6.2f s   peak RSS %7.1f MB\n' "$label" "$1" "$(echo "$2/1024" | bc -l)"
	echo "$1 $2" > "$TMP/$label"
}
measure pahole-J-j1 pahole -J --btf_encode_detached "$TMP/x.btf" "$TMP/vmlinux"
measure btfstream-decode-j1 "$TMP/decodestat" -j 1 "$TMP/vmlinux"
cat "$TMP/out"
set -- $(cat "$TMP/pahole-J-j1") $(cat "$TMP/btfstream-decode-j1")
echo "decode/pahole wall: $(echo "scale=3; $3/$1" | bc) (target <= 0.40); decode peak RSS: $(echo "scale=1; $4/1024" | bc) MB (target <= 48)"
