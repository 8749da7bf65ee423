# setup.sh: sourced by test.sh and encode-kernel.sh (not run on its own).
# Installs Debian packages and a Go that can build the module, finds the
# shared folder and fetches kernels. Needs root (or sudo) for apt-get.
#
# Go: go.mod needs Go 1.25. A go of that version or newer on PATH (or in
# /usr/local/go/bin) is used as it is and never touched. Otherwise, on
# Debian 12 (whose golang-go is 1.19) it adds bookworm-backports to apt's
# sources and installs golang-1.23-go (in /usr/lib/go-1.23, beside any
# other Go), and runs it with GOTOOLCHAIN=auto, so that it fetches the
# go1.25.0 toolchain that go.mod names through the Go module proxy (a Go
# module, golang.org/toolchain, ~70 MB, cached in the module cache). On
# other releases it installs golang-go and does the same.

setup_root=$(cd "$(dirname "$0")/.." && pwd)

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

setup_apt_updated=
# apt_install PKG...: installs the packages that are not installed yet;
# three tries (mirrors sync now and then). Returns non-zero on failure.
apt_install() {
  missing=
  for p in "$@"; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
      missing="$missing $p"
  done
  [ -z "$missing" ] && return 0
  for try in 1 2 3; do
    if [ -z "$setup_apt_updated" ]; then
      as_root apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 || echo "setup: apt-get update reported errors" >&2
      setup_apt_updated=1
    fi
    echo "setup: apt-get install$missing" >&2
    # shellcheck disable=SC2086 # a list of package names
    DEBIAN_FRONTEND=noninteractive as_root apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
      --no-install-recommends $missing >&2 && return 0
    echo "setup: apt-get install failed (try $try of 3)" >&2
    setup_apt_updated=
    [ "$try" = 3 ] || sleep 20
  done
  return 1
}

# go_ok: the go on PATH builds this module (its version >= go.mod's).
go_ok() {
  want=$(awk '$1 == "go" { print $2; exit }' "$setup_root/go.mod")
  have=$(cd "$setup_root" && go env GOVERSION 2>/dev/null) || return 1
  have=${have#go}
  [ "$(printf '%s\n%s\n' "$want" "$have" | sort -V | head -n 1)" = "$want" ]
}

# ensure_go: puts a go that builds this module on PATH (see the top).
ensure_go() {
  case ":$PATH:" in *:/usr/local/go/bin:*) ;; *) PATH=$PATH:/usr/local/go/bin ;; esac
  export PATH
  go_ok && return 0
  release=$(. /etc/os-release 2>/dev/null; echo "${VERSION_CODENAME:-}")
  if [ "$release" = bookworm ]; then
    if ! grep -rqsE 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
      echo "setup: adding bookworm-backports to apt's sources (for golang-1.23-go)" >&2
      echo 'deb http://deb.debian.org/debian bookworm-backports main' |
        as_root tee /etc/apt/sources.list.d/btfstream-bookworm-backports.list >/dev/null
      setup_apt_updated=
    fi
    apt_install golang-1.23-go || return 1
    PATH=/usr/lib/go-1.23/bin:$PATH
  else
    apt_install golang-go || return 1
  fi
  GOTOOLCHAIN=auto
  export PATH GOTOOLCHAIN
  echo "setup: fetching the Go toolchain go.mod names through the Go module proxy" >&2
  go_ok || { echo "setup: no Go >= $(awk '$1 == "go" { print $2; exit }' "$setup_root/go.mod") (have: $(go version 2>&1))" >&2; return 1; }
}

# shared_dir: the shared folder beside the clone (BTFSTREAM_SHARED, else
# ../shared, else ../../shared for a worktree one level deeper).
shared_dir() {
  if [ -n "${BTFSTREAM_SHARED:-}" ]; then echo "$BTFSTREAM_SHARED"; return; fi
  for d in "$setup_root/../shared" "$setup_root/../../shared"; do
    [ -d "$d/testdata" ] && { (cd "$d" && pwd); return; }
  done
  echo "$setup_root/../shared"
}

# fetch_kernel ARGS...: kernel-dbg.sh ARGS, three tries (mirror hiccups,
# another apt-get holding the lock); prints the vmlinux path.
fetch_kernel() {
  for try in 1 2 3; do
    if k=$(sh "$(shared_dir)/testdata/kernel-dbg.sh" "$@"); then
      echo "$k"
      return 0
    fi
    echo "setup: kernel-dbg.sh $* failed (try $try of 3)" >&2
    [ "$try" = 3 ] || sleep 30
  done
  return 1
}
