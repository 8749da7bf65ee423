#!/bin/sh
# encode-kernel.sh: the main job on a real kernel. Fetches a Debian kernel
# with DWARF (by default unstable's Linux 7.2), encodes its BTF with
# btfstream the way kbuild runs pahole, runs the reference pahole 1.32 on
# the same file with the same flags, and ends with a one-line verdict:
# equal or differs.
#
#   scripts/encode-kernel.sh [--release sid|trixie|bookworm] [FLAVOR [OUT]] [-- BTFSTREAM_FLAGS...]
#
# The release defaults to sid (Linux 7.2); trixie has 6.12, bookworm 6.1.
# FLAVOR is a kernel-dbg.sh flavour (cloud-amd64, default; armmp). OUT is
# the raw BTF btfstream writes (default ./vmlinux.btf; the reference's goes
# beside it as OUT.pahole; both are in .gitignore). The cached kernel is
# only read. Installs what it needs first (scripts/setup.sh: Go and GNU
# time; root or sudo). The reference, shared/reference/pahole-1.32,
# brings its own libraries.
#
# Prints btfstream's summary line (types by kind, functions, bytes, time,
# peak RSS), pahole's time and peak RSS, `btfstream diff` of the two (the
# types per kind side by side), and the verdict. Exit status 0 if equal.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/setup.sh"
release=sid
if [ $# -gt 1 ] && [ "$1" = --release ]; then release=$2; shift 2; fi
flavor=cloud-amd64
out=./vmlinux.btf
[ $# -gt 0 ] && [ "$1" != "--" ] && { flavor=$1; shift; }
[ $# -gt 0 ] && [ "$1" != "--" ] && { out=$1; shift; }
[ $# -gt 0 ] && [ "$1" = "--" ] && shift

apt_install time || { echo "encode-kernel.sh: cannot install time" >&2; exit 1; }
ensure_go || exit 1
pahole=${BTFSTREAM_PAHOLE:-$(shared_dir)/reference/pahole-1.32/pahole}
"$pahole" --version 2>/dev/null | grep -qx v1.32 ||
  { echo "verdict: error: $pahole does not run or is not pahole v1.32"; exit 2; }

vmlinux=$(fetch_kernel --release "$release" "$flavor")
echo "kernel: $vmlinux" >&2

bin=${BTFSTREAM_BIN:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$bin" ]; then
  bin=$tmp/btfstream
  (cd "$root" && CGO_ENABLED=0 go build -o "$bin" ./cmd/btfstream)
fi

# scripts/Makefile.btf of Linux 6.12 to 7.2 for pahole >= 1.26 (what the
# tests' gate uses; 7.2 adds attributes and layout); pahole also gets
# reproducible_build (set when KBUILD_BUILD_TIMESTAMP is, as in Debian).
features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs
echo "btfstream -J -j1 --btf_features=$features --lang_exclude=rust:"
"$bin" -J -j1 --btf_features=$features --lang_exclude=rust \
  --btf_encode_detached "$out" --summary "$@" "$vmlinux" ||
  { echo "verdict: error: btfstream failed on $vmlinux"; exit 2; }

echo "reference $pahole -J -j1 (same features, +reproducible_build):"
/usr/bin/time -f "  pahole 1.32: %e s, peak RSS %M KiB" \
  "$pahole" -J -j1 --btf_features=$features,reproducible_build --lang_exclude=rust \
  --btf_encode_detached "$out.pahole" "$vmlinux" >/dev/null ||
  { echo "verdict: error: the reference pahole failed on $vmlinux"; exit 2; }

echo "btfstream diff (A = pahole 1.32, B = btfstream):"
rc=0
"$bin" diff "$out.pahole" "$out" || rc=$?
case $rc in
  0) echo "verdict: equal: btfstream's BTF of $(basename "$vmlinux") is the same type graph as pahole 1.32's" ;;
  1) echo "verdict: differs: btfstream's BTF of $(basename "$vmlinux") is not pahole 1.32's (types only one side has are listed above)" ;;
  *) echo "verdict: error: btfstream diff failed (exit $rc)" ;;
esac
exit "$rc"
