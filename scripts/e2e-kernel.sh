#!/bin/sh
# e2e-kernel.sh: run the end-to-end tests (package e2e) against a real
# kernel fetched by kernel-dbg.sh.
#
#   scripts/e2e-kernel.sh [FLAVOR] [-- GO_TEST_FLAGS...]
#
# The tests encode the vmlinux with btfstream and compare it with the
# kernel's own .BTF and, when present, pahole 1.31's output
# (BTFSTREAM_REF131, default /tmp/ref/amd64-pahole131.btf), and rewrite
# .BTF in a copy of the vmlinux (BTFSTREAM_ELF_WRITE=1, ~350 MB in $TMPDIR;
# set it to an empty string to skip). The cached kernel is never modified.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
flavor=cloud-amd64
[ $# -gt 0 ] && [ "$1" != "--" ] && { flavor=$1; shift; }
[ $# -gt 0 ] && [ "$1" = "--" ] && shift

BTFSTREAM_KERNEL=$(sh "$root/../shared/testdata/kernel-dbg.sh" "$flavor")
export BTFSTREAM_KERNEL
export BTFSTREAM_ELF_WRITE=${BTFSTREAM_ELF_WRITE-1}
echo "kernel: $BTFSTREAM_KERNEL" >&2
cd "$root"
exec go test -count=1 -timeout 60m -v "$@" ./e2e/
