#!/bin/sh
# Rebuilds lld-empty-btf.elf, the committed fixture of TestWriteSectionLLDEmptyBTF
# (Debian 12: apt-get install clang lld; clang 14.0.6, ld.lld 14.0.6 made
# the committed file). The result has .BTF PROGBITS, flags A, size 0, at
# an address inside the read-only LOAD segment, followed by .BTF_ids.
set -eu
cd "$(dirname "$0")"
clang -g -O1 -c -o /tmp/lld-empty-btf.$$.o lld-empty-btf.c
ld.lld -T lld-empty-btf.lds -o lld-empty-btf.elf /tmp/lld-empty-btf.$$.o
rm -f /tmp/lld-empty-btf.$$.o
readelf -lSW lld-empty-btf.elf | grep -E ' \.BTF|LOAD'
