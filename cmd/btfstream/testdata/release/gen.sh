#!/bin/sh
# Regenerates the kernel-release test's inputs (committed; needs objcopy):
# a "vmlinux" with BTF and a linux_banner in .rodata, and two "modules"
# whose .modinfo vermagic names the same and another kernel release.
set -eu
cd "$(dirname "$0")"
T=$(mktemp -d)
printf 'Linux version 7.2.0-test (gcc) #1 SMP\n\0' >"$T/rodata"
printf 'license=GPL\0vermagic=6.12.0-test SMP preempt mod_unload modversions \0name=ext\0' >"$T/mod612"
printf 'license=GPL\0vermagic=7.2.0-test SMP preempt mod_unload \0' >"$T/mod72"
objcopy --add-section .rodata="$T/rodata" --set-section-flags .rodata=alloc,readonly,data ../corrupt/point-btf.o base-7.2.0-test.o
objcopy --add-section .modinfo="$T/mod612" --set-section-flags .modinfo=alloc,readonly,data ../corrupt/point.o mod-6.12.0-test.o
objcopy --add-section .modinfo="$T/mod72" --set-section-flags .modinfo=alloc,readonly,data ../corrupt/point.o mod-7.2.0-test.o
rm -r "$T"
