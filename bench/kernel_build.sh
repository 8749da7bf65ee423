#!/bin/bash
# A kernel build's BTF, pahole (1.32) against btfstream, side by side
# (issue 18): vmlinux at -j1 and -j2 and every module, alternating, with
# kbuild's flags; prints totals, per-module ratios, the vmlinux rows and
# how many outputs are not equal to pahole's. See bench/kernelbuild's doc
# comment for what is measured and how. Not in CI: a full 7.2 run takes
# ~10 CPU-minutes per tool.
#
#   [JOBS=1] [R=3] [OUT=dir] bash bench/kernel_build.sh [-tool NAME=PATH]... [other flags] [VMLINUX]
#
# e.g. bash bench/kernel_build.sh -tool before=/work/before-bs -tool after=/tmp/x/btfstream
# Without -tool, ./cmd/btfstream is built and measured as "btfstream".
# Wall ratios need JOBS=1 on a quiet host; CPU and peak RSS hold anywhere.
set -eu
cd "$(dirname "$0")/.."
bin=$(mktemp -d /tmp/kernelbuild-bin.XXXXXX)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/kernelbuild" ./bench/kernelbuild
args=(-jobs "${JOBS:-1}" -r "${R:-3}")
[ -z "${OUT:-}" ] || args+=(-out "$OUT")
"$bin/kernelbuild" "${args[@]}" "$@"
