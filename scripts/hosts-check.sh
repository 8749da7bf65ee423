#!/bin/sh
# hosts-check.sh: the encoder's output does not depend on the host. One
# btfstream source built for amd64, 386 (run natively) and arm (GOARM=7,
# run under qemu-arm) encodes each vmlinux given and a module beside it
# (xfs.ko, against that vmlinux) at -j2 with kbuild's features; every
# output must be byte-identical to amd64's.
#
#   scripts/hosts-check.sh VMLINUX...
#
# scripts/test.sh gives it the 6.12 and 7.2 cloud-amd64 kernels. Per
# kernel about 90 s on 2 cores (the arm vmlinux encode under qemu takes
# ~60 s of it).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -gt 0 ] || { echo "usage: hosts-check.sh VMLINUX..." >&2; exit 2; }
command -v qemu-arm > /dev/null || { echo "hosts-check: qemu-arm is missing" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
F=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs
cd "$root"
GOARCH=amd64 go build -o "$tmp/amd64" ./cmd/btfstream
GOARCH=386 go build -o "$tmp/386" ./cmd/btfstream
GOARCH=arm GOARM=7 go build -o "$tmp/arm" ./cmd/btfstream
fail=0
for v in "$@"; do
  k=$(basename "$v")
  k=${k#vmlinux-}
  mod=$(find "$(dirname "$v")/../lib/modules" -name xfs.ko 2>/dev/null | head -1)
  [ -n "$mod" ] || { echo "hosts-check: no xfs.ko beside $v" >&2; fail=1; continue; }
  for host in amd64 386 arm; do
    run="$tmp/$host"
    [ "$host" = arm ] && run="qemu-arm $tmp/$host"
    for what in vmlinux module; do
      out=$tmp/$what.$host
      start=$(date +%s)
      if [ "$what" = vmlinux ]; then
        $run -J -j2 -q --btf_features=$F --lang_exclude=rust --btf_encode_detached "$out" "$v" || { echo "hosts-check: $host failed on $v" >&2; fail=1; continue; }
      else
        $run -J -j2 -q --btf_features=$F --lang_exclude=rust --btf_base "$v" --btf_encode_detached "$out" "$mod" || { echo "hosts-check: $host failed on $mod" >&2; fail=1; continue; }
      fi
      sum=$(md5sum < "$out" | cut -d' ' -f1)
      verdict=
      if [ "$host" != amd64 ]; then
        if cmp -s "$tmp/$what.amd64" "$out"; then verdict="identical to amd64"; else verdict="DIFFERS from amd64"; fail=1; fi
      fi
      echo "hosts-check: $k $host $what: $(stat -c %s "$out") bytes, md5 $sum, $(( $(date +%s) - start ))s $verdict"
    done
  done
  rm -f "$tmp"/vmlinux.* "$tmp"/module.*
done
[ $fail = 0 ] && echo "hosts-check: every host wrote the same bytes for $# kernel(s)"
exit $fail
