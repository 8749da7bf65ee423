#!/bin/sh
# test.sh: the whole test suite, as CI runs it (.ci/run calls this).
#
#   scripts/test.sh
#
# Steps (each timed; all run even after a failure; exit 1 if any failed):
#   setup    installs the Debian packages the tests use (apt-get; root or
#            sudo) and, if needed, Go (scripts/setup.sh)
#   kernels  fetches the kernels with DWARF through
#            shared/testdata/kernel-dbg.sh (cached in
#            ~/.cache/btfstream-testdata, 320-350 MB download
#            each): unstable's cloud-amd64 (Linux 7.2, GCC 16, its
#            .BTF made by Debian with pahole 1.32), trixie's cloud-amd64
#            (6.12, GCC 14) and bookworm's cloud-amd64 (6.1, GCC 12), and
#            bookworm's armmp (6.1, 32-bit ARM, no .BTF of its own).
#            Trixie's armmp is not used: the mirror's
#            trixie armhf index was stale for this whole session (size
#            mismatch), and a kernel that cannot be fetched fails CI;
#            BTFSTREAM_ARMMP_RELEASE=trixie picks it instead.
#   vet      gofmt -l and go vet
#   amd64    go test of every package but e2e, with the kernel tests
#   race     go test -race -short of the packages with goroutines or sync
#            and of those importing them (found in the source, not listed)
#   386      GOARCH=386 go test (natively), with the kernel tests: 32-bit
#            hosts are a product promise
#   arm      GOARCH=arm go test -short under qemu-arm
#   hosts    scripts/hosts-check.sh: the 6.12 and 7.2 vmlinux and their
#            xfs.ko encoded by amd64, 386 and arm (qemu-arm) builds give
#            the same bytes
#   smallhosts scripts/smallhosts-check.sh: no memory flag in a 64 MiB
#            memory cgroup, four modules at once in 256 MiB, the 386 and
#            static builds under ulimit -v: identical outputs (needs root
#            and a writable memory cgroup, v1 or v2)
#   e2e      the end-to-end tests against the reference pahole 1.32 on
#            the four kernels, and against the 7.2 kernel's own .BTF
#            (package e2e; BTFSTREAM_E2E_TIMEOUT, default 30m)
#   kbuild   scripts/kbuild-check.sh: kernels and modules built with
#            PAHOLE=btfstream (6.12 with gcc and with LLVM=1, 7.2 with
#            gcc), compared with pahole 1.32, booted under qemu
#   kbuild386 the 6.12 kernel again with a GOARCH=386 btfstream as PAHOLE
#
# Each go test step is read by scripts/testreport, which prints failures,
# skip reasons and how many tests ran, passed, failed and skipped; the end
# prints a table of the steps and one total line.
#
# Under CI=true nothing may be missing: a package that cannot be
# installed, a tool still absent afterwards, a kernel that cannot be
# fetched, or a test skipped for a missing tool fails the run instead of
# being skipped.
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
. "$root/scripts/setup.sh"
PATH=$PATH:/usr/sbin:/sbin

ci=false
case ${CI:-} in "" | 0 | false) ;; *) ci=true ;; esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
summary=$tmp/summary
: > "$summary"
failed=
t0=$(date +%s)

# step NAME CMD...: runs CMD, timed; a go test step writes its counts to
# $summary itself (through testreport).
step() {
  name=$1; shift
  echo "=== STEP $name: $*"
  start=$(date +%s)
  if "$@"; then rc=0; else rc=$?; failed="$failed $name"; fi
  secs=$(( $(date +%s) - start ))
  grep -q "^$name " "$summary" || echo "$name - - - - $secs" >> "$summary"
  # testreport timed the tests; the step's time includes building them.
  sed -i "s/^\($name .*\) [0-9]*$/\1 $secs/" "$summary"
  echo "=== STEP $name: exit $rc in ${secs}s"
}

# gotest NAME [ENV...] -- GO_TEST_ARGS...: go test -json through testreport.
gotest() {
  name=$1; shift
  envs=
  while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
  shift
  verbose=
  [ "$name" = e2e ] && verbose=-v
  # shellcheck disable=SC2086 # envs is a list of NAME=VALUE words
  env $envs go test -json "$@" 2>&1 | "$tmp/testreport" -step "$name" -summary "$summary" $verbose
}

# --- setup: packages (command:package) and Go.
tools="bpftool:bpftool pahole:dwarves qemu-arm:qemu-user clang:clang
llvm-dwarfdump:llvm gcc:gcc arm-linux-gnueabihf-gcc:gcc-arm-linux-gnueabihf
s390x-linux-gnu-gcc:gcc-s390x-linux-gnu readelf:binutils objcopy:binutils
as:binutils dpkg-deb:dpkg /usr/bin/time:time"
setup() {
  # libbpf-dev: dedup's differential test against libbpf (TestDedupLikeLibbpf).
  pkgs="libdw1 libelf1 libc6-dev libbpf-dev"
  for pair in $tools; do pkgs="$pkgs ${pair#*:}"; done
  ok=true
  # shellcheck disable=SC2086
  apt_install $pkgs || { echo "test.sh: apt-get could not install the test tools" >&2; ok=false; }
  for pair in $tools; do
    cmd=${pair%%:*}
    command -v "$cmd" >/dev/null 2>&1 || { echo "test.sh: $cmd is missing (Debian package ${pair#*:})" >&2; ok=false; }
  done
  ensure_go || { echo "test.sh: no usable Go" >&2; return 1; }
  go version
  go build -o "$tmp/testreport" ./scripts/testreport || return 1
  if ! $ok; then
    $ci && return 1
    echo "test.sh: tests that need the missing tools will skip (CI=true makes this a failure)" >&2
  fi
}
step setup setup

# --- kernels.
k72= k612= k61= karm=
kernels() {
  ok=true
  k72=$(fetch_kernel --release sid cloud-amd64) || ok=false
  k612=$(fetch_kernel cloud-amd64) || ok=false
  k61=$(fetch_kernel --release bookworm cloud-amd64) || ok=false
  karm=$(fetch_kernel --release "${BTFSTREAM_ARMMP_RELEASE:-bookworm}" armmp) || ok=false
  for k in "$k72" "$k612" "$k61" "$karm"; do [ -n "$k" ] && echo "kernel: $k"; done
  $ok
}
step kernels kernels
list=
for k in "$k72" "$k612" "$k61" "$karm"; do [ -n "$k" ] && list="$list${list:+:}$k"; done

# --- vet.
vet() {
  out=$(gofmt -l . 2>&1)
  [ -z "$out" ] || { echo "gofmt -l:"; echo "$out"; return 1; }
  go vet ./...
}
step vet vet

unit=$(go list ./... | grep -v '/e2e$')
# Packages whose code starts goroutines or uses sync, and every package
# that imports one of them (its tests drive that concurrency), but not the
# benchmarks, e2e or the test kit.
conc=$(grep -rlE '^[[:space:]]+go (func|[A-Za-z_][A-Za-z0-9_.]*\()|"sync(/atomic)?"' --include='*.go' . |
  grep -v '_test\.go$' | xargs -n 1 dirname | sort -u)
# shellcheck disable=SC2086
conc=$(go list $conc | tr '\n' ' ')
race=$(go list -f '{{.ImportPath}} {{join .Deps " "}}' ./... |
  awk -v c="$conc" 'BEGIN { n = split(c, a, " "); for (i = 1; i <= n; i++) s[a[i]] = 1 }
    { for (i = 1; i <= NF; i++) if ($i in s) { print $1; next } }' |
  grep -v -e '/e2e' -e '/bench/' -e '/internal/testkit$')

# shellcheck disable=SC2086
step amd64 gotest amd64 BTFSTREAM_KERNEL="$k612" -- -count=1 -timeout 30m $unit
# shellcheck disable=SC2086
step race gotest race -- -race -short -count=1 -timeout 20m $race
# shellcheck disable=SC2086
step 386 gotest 386 GOARCH=386 BTFSTREAM_KERNEL="$k612" -- -count=1 -timeout 20m $unit
# shellcheck disable=SC2086
step arm gotest arm GOARCH=arm GOARM=7 -- -count=1 -short -timeout 20m -exec qemu-arm $unit
# hosts-check.sh fails on a kernel it cannot read, so a missing one fails the step.
step hosts sh "$root/scripts/hosts-check.sh" "${k612:-/missing/6.12-vmlinux}" "${k72:-/missing/7.2-vmlinux}"
# smallhosts-check.sh (issue 19): no memory flag in a 64 MiB memory cgroup,
# four module encodes in one 256 MiB cgroup, and the 386 and static amd64
# builds under ulimit -v; every output identical to an unlimited run.
smallhosts() {
  go build -o "$tmp/bs-amd64" ./cmd/btfstream &&
    GOARCH=386 CGO_ENABLED=0 go build -o "$tmp/bs-386" ./cmd/btfstream &&
    go build -tags netgo,osusergo -o "$tmp/bs-static" ./cmd/btfstream || return 1
  BTFSTREAM_386="$tmp/bs-386" BTFSTREAM_STATIC="$tmp/bs-static" PAHOLE="$(shared_dir)/reference/pahole-1.32/pahole" \
    sh "$root/scripts/smallhosts-check.sh" "$tmp/bs-amd64" "${k612:-/missing/6.12-vmlinux}" "${k72:-/missing/7.2-vmlinux}"
}
step smallhosts smallhosts
step e2e gotest e2e BTFSTREAM_KERNELS="$list" BTFSTREAM_KERNEL="$k72" BTFSTREAM_ELF_WRITE=1 -- \
  -count=1 -timeout "${BTFSTREAM_E2E_TIMEOUT:-30m}" -v ./e2e/

# --- kbuild: kernels and modules built with PAHOLE=btfstream, compared
# with pahole 1.32, booted under qemu (scripts/kbuild-check.sh; ~6 min
# on 2 cores, 20 s when its cache holds this btfstream's build).
# BTFSTREAM_KBUILD=0 leaves it out (not under CI=true).
if [ "${BTFSTREAM_KBUILD:-1}" != 0 ] || $ci; then
  step kbuild env BTFSTREAM_KERNEL="$k612" bash "$root/scripts/kbuild-check.sh"
  # The 6.12 kernel again with a 386 btfstream as PAHOLE (32-bit userspace
  # building a 64-bit kernel): its cached tree, only the BTF steps rerun.
  step kbuild386 env BTFSTREAM_KBUILD_GOARCH=386 BTFSTREAM_KBUILD_WORK=/tmp/btfstream-kbuild-386 \
    BTFSTREAM_KERNEL="$k612" bash "$root/scripts/kbuild-check.sh" 6.12
fi

# --- summary.
echo
echo "test.sh: steps (time includes building the tests)"
printf '  %-8s %7s %6s %7s %7s %8s\n' step time ran passed failed skipped
tp=0 tf=0 ts=0
while read -r name ran passed nfail skipped secs; do
  printf '  %-8s %6ss %6s %7s %7s %8s\n' "$name" "$secs" "$ran" "$passed" "$nfail" "$skipped"
  [ "$passed" = - ] && continue
  tp=$((tp + passed)) tf=$((tf + nfail)) ts=$((ts + skipped))
done < "$summary"
echo "  total    $(( $(date +%s) - t0 ))s"
if [ -n "$failed" ]; then
  echo "test.sh: FAILED steps:$failed"
fi
echo "total: $tp passed, $tf failed, $ts skipped"
[ -z "$failed" ]
