#!/bin/sh
# test.sh: the whole test suite, as CI runs it (.ci/run calls this).
#
#   scripts/test.sh
#
# 1. Installs the Debian packages the tests use, if any is missing
#    (apt-get update once, then apt-get install; needs root or sudo).
# 2. Fetches the cloud-amd64 kernel with DWARF and .BTF through
#    ../shared/testdata/kernel-dbg.sh (cached in ~/.cache/btfstream-testdata)
#    unless BTFSTREAM_KERNEL already names a vmlinux; BTFSTREAM_KERNEL=none
#    skips the real-kernel tests.
# 3. Runs go test on amd64 with BTFSTREAM_KERNEL set (unit tests plus the
#    real-kernel tests of each package), then the unit tests on 386 and,
#    under qemu-arm, on 32-bit ARM (Go test binaries are static, so qemu
#    needs no QEMU_LD_PREFIX), and last the end-to-end package ./e2e (which
#    encodes the whole kernel) with its own timeout, BTFSTREAM_E2E_TIMEOUT
#    (default 45m), so that the run fits CI's 90 minutes.
# Runs every step even after a failure; exits non-zero if any failed.
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1

# command:package pairs. No gcc-multilib: it conflicts with the cross
# compilers, and the fixtures (no #include, -c) build with -m32 without it.
tools="bpftool:bpftool pahole:dwarves qemu-arm:qemu-user clang:clang
llvm-dwarfdump:llvm gcc:gcc
arm-linux-gnueabihf-gcc:gcc-arm-linux-gnueabihf
s390x-linux-gnu-gcc:gcc-s390x-linux-gnu readelf:binutils as:binutils
dpkg-deb:dpkg"
PATH=$PATH:/usr/sbin:/sbin
missing=
for pair in $tools; do
  cmd=${pair%%:*} pkg=${pair#*:}
  command -v "$cmd" >/dev/null 2>&1 && continue
  case " $missing " in *" $pkg "*) ;; *) missing="$missing $pkg" ;; esac
done
if [ -n "$missing" ]; then
  echo "test.sh: installing$missing" >&2
  sudo=
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq >&2 &&
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >&2 ||
    echo "test.sh: apt-get failed; tests that need$missing will skip" >&2
fi

failed=
step() {
  name=$1; shift
  echo "=== $name: $*"
  start=$(date +%s)
  if "$@"; then rc=0; else rc=$?; failed="$failed $name"; fi
  echo "=== $name: exit $rc in $(( $(date +%s) - start ))s"
}

kernel=${BTFSTREAM_KERNEL:-}
if [ -z "$kernel" ]; then
  kernel=$(sh "$root/../shared/testdata/kernel-dbg.sh") || {
    echo "test.sh: could not fetch the test kernel" >&2
    failed="$failed kernel-fetch"
    kernel=none
  }
fi
[ "$kernel" = none ] || echo "kernel: $kernel"

pkgs=$(go list ./... | grep -v '/e2e$')
if [ "$kernel" = none ]; then
  step amd64 env -u BTFSTREAM_KERNEL go test -count=1 -timeout 30m $pkgs
else
  step amd64 env BTFSTREAM_KERNEL="$kernel" go test -count=1 -timeout 30m $pkgs
fi
step 386 env -u BTFSTREAM_KERNEL GOARCH=386 go test -count=1 -timeout 20m ./...
step arm env -u BTFSTREAM_KERNEL GOARCH=arm GOARM=7 go test -count=1 -short -timeout 20m -exec qemu-arm ./...
if [ "$kernel" != none ]; then
  step e2e env BTFSTREAM_KERNEL="$kernel" go test -count=1 -timeout "${BTFSTREAM_E2E_TIMEOUT:-45m}" ./e2e/
fi

if [ -n "$failed" ]; then
  echo "test.sh: FAILED:$failed"
  exit 1
fi
echo "test.sh: all steps passed"
