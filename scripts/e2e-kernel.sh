#!/bin/sh
# e2e-kernel.sh: run the end-to-end tests (package e2e) on the kernels
# scripts/test.sh uses, without the rest of the suite.
#
#   scripts/e2e-kernel.sh [-- GO_TEST_FLAGS...]
#
# Fetches sid's, trixie's and bookworm's cloud-amd64 kernels and, with
# BTFSTREAM_ARMMP=1, bookworm's armmp (shared/testdata/kernel-dbg.sh,
# cached), then runs go test -v ./e2e/ with BTFSTREAM_KERNELS naming them
# all and BTFSTREAM_KERNEL the sid one (Linux 7.2, whose own .BTF pahole
# 1.32 made). BTFSTREAM_ELF_WRITE=1 (default here) also rewrites .BTF in a
# copy of that vmlinux (~410 MB in $TMPDIR).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/setup.sh"
[ $# -gt 0 ] && [ "$1" = "--" ] && shift
ensure_go
k72=$(fetch_kernel --release sid cloud-amd64)
k612=$(fetch_kernel cloud-amd64)
k61=$(fetch_kernel --release bookworm cloud-amd64)
BTFSTREAM_KERNELS=$k72:$k612:$k61
if [ "${BTFSTREAM_ARMMP:-0}" != 0 ]; then
  BTFSTREAM_KERNELS=$BTFSTREAM_KERNELS:$(fetch_kernel --release bookworm armmp)
fi
BTFSTREAM_KERNEL=$k72
export BTFSTREAM_KERNELS BTFSTREAM_KERNEL
export BTFSTREAM_ELF_WRITE=${BTFSTREAM_ELF_WRITE-1}
echo "kernels: $BTFSTREAM_KERNELS" >&2
cd "$root"
exec go test -count=1 -timeout 30m -v "$@" ./e2e/
