#!/bin/sh
# regen.sh: rebuild the committed encoder fixtures and their expected BTF
# from the reference pahole.
#
#   stream/testdata/encode/regen.sh          (from anywhere; needs the tools below)
#
# For each target it compiles the C sources of this folder (no #include, so
# no C library is needed) into golden/TARGET/NAME.o, runs the reference
# pahole 1.32 on each object and keeps its raw BTF (NAME.VARIANT.btf) and
# bpftool's raw dump of it (NAME.VARIANT.dump). The Go test
# (TestEncodeGolden) encodes each committed object and compares its dump with
# NAME.VARIANT.dump; it needs none of these tools.
#
# Targets and compilers (Debian 12 packages gcc, gcc-multilib-less -m32,
# gcc-arm-linux-gnueabihf, gcc-s390x-linux-gnu, clang; clang only for
# tags.c, whose btf_type_tag/btf_decl_tag attributes GCC 12 lacks):
#   amd64  gcc                       clang
#   i386   gcc -m32                  clang -m32
#   arm    arm-linux-gnueabihf-gcc   clang --target=arm-linux-gnueabihf
#   s390x  s390x-linux-gnu-gcc       clang --target=s390x-linux-gnu
# multi.o is multi_a.c and multi_b.c linked with -r: two units in one file.
# strong.o is strong_a.c and strong_b.c linked into an executable (no C
# library, entry a_entry), as vmlinux is: only there do functions' addresses
# meet their symbols' (pahole 1.32's strong definitions, .isra/.constprop
# clones, true_signature).
# gnu_annot.s and dwarf_misc.s are DWARF written by hand (what each tests is
# at their top), assembled for amd64 only.
#
# Variants (the --btf_features given to pahole; the test maps the same
# names to the same lists):
#   kbuild      kbuild's list (Linux 6.12 scripts/Makefile.btf)
#   global_var  kbuild's list plus global_var (a VAR for every global)
#   true_signature  kbuild's list plus true_signature (pahole 1.32)
# pahole also gets reproducible_build, as Debian's builds pass it; btfstream's
# output never depends on -j.
#
# Environment: PAHOLE (default shared/reference/pahole-1.32/pahole, where
# shared/ is BTFSTREAM_SHARED or the first of ../shared and ../../shared from
# the repository root: a clone or a worktree beside it), BPFTOOL (default
# bpftool).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
shared=${BTFSTREAM_SHARED:-}
[ -n "$shared" ] || for d in "$root/../shared" "$root/../../shared"; do
  [ -d "$d/reference" ] && { shared=$d; break; }
done
pahole=${PAHOLE:-$shared/reference/pahole-1.32/pahole}
bpftool=${BPFTOOL:-bpftool}
PATH=$PATH:/usr/sbin:/sbin

"$pahole" --version | grep -qx 'v1.32' || { echo "regen.sh: $pahole is not pahole v1.32" >&2; exit 1; }
command -v "$bpftool" >/dev/null || { echo "regen.sh: bpftool not found (apt-get install bpftool)" >&2; exit 1; }

kbuild=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs
features() {
  case $1 in
    kbuild) echo "$kbuild" ;;
    global_var) echo "$kbuild,global_var" ;;
    true_signature) echo "$kbuild,true_signature" ;;
  esac
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$here/golden
rm -rf "$out"
mkdir -p "$out"
versions=$out/VERSIONS
{
  echo "Made by regen.sh. Tools:"
  "$pahole" --version | sed 's/^/pahole /'
  "$bpftool" version | head -n 1
} > "$versions"

# cc_obj OBJ SRC.c CC... : compile SRC.c into $tmp/SRC.o from this folder, with
# paths mapped so that the objects do not depend on the checkout's location.
cc_obj() {
  (o=$1 c=$2; shift 2; cd "$here" && "$@" -g -O2 -fdebug-prefix-map="$here"=/src -c -o "$o" "$c")
}

encode() { # OBJ NAME TARGETDIR VARIANT...
  (o=$1 n=$2 d=$3; shift 3
  cp "$o" "$d/$n.o"
  for v in "$@"; do
    "$pahole" -J -j1 --btf_features="$(features "$v"),reproducible_build" --lang_exclude=rust \
      --btf_encode_detached "$d/$n.$v.btf" "$d/$n.o" >/dev/null
    "$bpftool" btf dump file "$d/$n.$v.btf" format raw > "$d/$n.$v.dump"
  done)
}

for target in amd64 i386 arm s390x; do
  case $target in
    amd64) gcc="gcc" clang="clang" ;;
    i386) gcc="gcc -m32" clang="clang -m32" ;;
    arm) gcc="arm-linux-gnueabihf-gcc" clang="clang --target=arm-linux-gnueabihf" ;;
    s390x) gcc="s390x-linux-gnu-gcc" clang="clang --target=s390x-linux-gnu" ;;
  esac
  dir=$out/$target
  mkdir -p "$dir"
  # shellcheck disable=SC2086 # $gcc and $clang are command lines
  {
    echo "$target: $(${gcc%% *} --version | head -n 1) [$gcc]"
    echo "$target: $(${clang%% *} --version | head -n 1) [$clang]"
  } >> "$versions"
  for src in types funcs layout arrays; do
    cc_obj "$tmp/$src.o" "$src.c" $gcc
    encode "$tmp/$src.o" "$src" "$dir" kbuild global_var
  done
  cc_obj "$tmp/tags.o" tags.c $clang
  encode "$tmp/tags.o" tags "$dir" kbuild
  cc_obj "$tmp/multi_a.o" multi_a.c $gcc
  cc_obj "$tmp/multi_b.o" multi_b.c $gcc
  $gcc -r -nostdlib -o "$tmp/multi.o" "$tmp/multi_a.o" "$tmp/multi_b.o"
  encode "$tmp/multi.o" multi "$dir" kbuild global_var
  cc_obj "$tmp/strong_a.o" strong_a.c $gcc
  cc_obj "$tmp/strong_b.o" strong_b.c $gcc
  $gcc -nostdlib -static -Wl,-e,a_entry -Wl,--build-id=none -o "$tmp/strong.o" "$tmp/strong_a.o" "$tmp/strong_b.o"
  encode "$tmp/strong.o" strong "$dir" kbuild true_signature
  if [ "$target" = amd64 ]; then
    # DWARF no compiler here writes (GCC 16's annotations, LLVM's merged
    # globals, ...), written by hand for x86_64.
    for src in gnu_annot dwarf_misc; do
      (cd "$here" && gcc -c -o "$tmp/$src.o" "$src.s")
      encode "$tmp/$src.o" "$src" "$dir" kbuild global_var
    done
    # No pahole for these: it loops on the first, reads the second as one unit.
    for src in annot_cycle foreign_ref; do
      (cd "$here" && gcc -c -o "$dir/$src.o" "$src.s")
    done
    # No pahole output for stale.o either (units A, B, A, D: see stale_a.c).
    cc_obj "$tmp/stale_a.o" stale_a.c $gcc -DSTALE_HOLDER=g_a -DSTALE_OTHER=o_a
    cc_obj "$tmp/stale_b.o" stale_b.c $gcc
    cc_obj "$tmp/stale_c.o" stale_a.c $gcc -DSTALE_HOLDER=g_c -DSTALE_OTHER=o_c
    cc_obj "$tmp/stale_d.o" stale_d.c $gcc
    $gcc -r -nostdlib -o "$dir/stale.o" "$tmp/stale_a.o" "$tmp/stale_b.o" "$tmp/stale_c.o" "$tmp/stale_d.o"
  fi
done
echo "regen.sh: wrote $(find "$out" -name '*.o' | wc -l) objects and $(find "$out" -name '*.dump' | wc -l) dumps under $out" >&2
