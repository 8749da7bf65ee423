#!/bin/sh
# Regenerates the corrupt-input test's inputs (committed; needs gcc, clang
# and a built btfstream, BTFSTREAM=path/to/btfstream). Paths in the DWARF are
# made relative so the objects do not depend on where they were built.
set -eu
cd "$(dirname "$0")"
B=${BTFSTREAM:-btfstream}
for f in point ext; do
	gcc -g -O1 -c -fno-asynchronous-unwind-tables -fdebug-prefix-map="$PWD"=. -o $f.o $f.c
done
clang -g -O1 -c -fdebug-prefix-map="$PWD"=. -o tagged.o tagged.c
cp point.o point-btf.o
"$B" -q point-btf.o
"$B" -q --btf_encode_detached point.btf point.o
"$B" -q --btf_base point.btf --btf_encode_detached ext.btf ext.o
rm ext.o
ls -l point.o point-btf.o point.btf ext.btf tagged.o
