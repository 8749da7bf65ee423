#!/bin/sh
# encode-kernel.sh: fetch a Debian kernel with DWARF, encode its BTF with
# btfstream the way kbuild runs pahole, and compare the result with the
# kernel's own .BTF (made by Debian's build with pahole 1.30).
#
#   scripts/encode-kernel.sh [FLAVOR [OUT]] [-- BTFSTREAM_FLAGS...]
#
# FLAVOR is a kernel-dbg.sh flavour (cloud-amd64, default; armmp). OUT is
# the detached raw BTF to write (default ./vmlinux.btf). The cached kernel
# is only read: its .BTF is the reference. Prints btfstream's summary line
# (types by kind, functions, bytes, time, peak RSS), then `btfstream diff`
# of the kernel's .BTF against OUT.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
flavor=cloud-amd64
out=./vmlinux.btf
[ $# -gt 0 ] && [ "$1" != "--" ] && { flavor=$1; shift; }
[ $# -gt 0 ] && [ "$1" != "--" ] && { out=$1; shift; }
[ $# -gt 0 ] && [ "$1" = "--" ] && shift

vmlinux=$(sh "$root/../shared/testdata/kernel-dbg.sh" "$flavor")
echo "kernel: $vmlinux" >&2

bin=${BTFSTREAM_BIN:-}
if [ -z "$bin" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  bin=$tmp/btfstream
  (cd "$root" && go build -o "$bin" ./cmd/btfstream)
fi

# scripts/Makefile.btf of Linux 6.12 for pahole >= 1.26, plus
# reproducible_build (set when KBUILD_BUILD_TIMESTAMP is, as in Debian).
features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs,reproducible_build
"$bin" -J -j --btf_features=$features --lang_exclude=rust \
  --btf_encode_detached "$out" --summary "$@" "$vmlinux"

if readelf -SW "$vmlinux" | grep -q ' \.BTF '; then
  echo "btfstream diff <kernel's own .BTF (pahole 1.30)> $out:"
  rc=0
  "$bin" diff "$vmlinux" "$out" || rc=$?
  echo "diff exit status: $rc"
else
  echo "$vmlinux has no .BTF of its own; nothing to compare" >&2
fi
