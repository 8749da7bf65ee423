#!/usr/bin/env bash
# kbuild-check.sh: btfstream inside real kernel builds, booted.
#
#   scripts/kbuild-check.sh [LABEL...]
#
# Kernels (LABEL: what check_kernel is called with at the bottom; none
# given: all of them):
#   6.12  Debian's linux-source-6.12 (the host's apt), gcc. Its kbuild
#         runs PAHOLE in place on .tmp_vmlinux1 and on each .ko.
#   7.2   Debian unstable's linux-source-7.2, downloaded (apt-get download
#         linux-source-7.2/sid; unstable is added to apt's sources with a
#         pin of priority 1, as ../shared/testdata/kernel-dbg.sh does, so
#         nothing is ever installed from it), gcc. Its kbuild
#         (scripts/gen-btf.sh) always runs PAHOLE with
#         --btf_encode_detached=FILE.BTF.1, then resolve_btfids turns that
#         into .BTF (and .BTF.base for out-of-tree modules).
#   6.12-llvm  6.12 again with make LLVM=1: Debian's clang, ld.lld and
#         llvm-objcopy. ld.lld keeps the empty .BTF output section, allocated
#         and inside the first LOAD segment of .tmp_vmlinux1, which PAHOLE
#         rewrites in place (stream/elfwrite moves it to the end of the
#         file); clang's DWARF 5 and BTF type tags in every unit; with
#         kernel-llvm.config, zlib-compressed debug sections.
#
# 1. apt: installs what is missing (the kernel's build
#    tools, qemu-system-x86, busybox-static, and libdw1/libelf1 for the
#    reference pahole). A failed install fails the check.
# 2. Builds btfstream and the guest helper btfload (static) from this repo.
# Then for each kernel (check_kernel):
# 3. Builds a minimal x86_64 kernel: tinyconfig plus
#    e2e/kbuild/testdata/kernel.config (BPF_SYSCALL, DEBUG_INFO_DWARF5,
#    DEBUG_INFO_BTF, DEBUG_INFO_BTF_MODULES, virtio) and the kernel's own
#    fragment (kernel-6.12.config, kernel-7.2.config: small library
#    modules), with `make PAHOLE=btfstream` and KBUILD_BUILD_TIMESTAMP set,
#    as Debian's builds do (so kbuild adds --btf_features=+reproducible_build).
#    PAHOLE is a wrapper that records each -J call kbuild makes (directory
#    and arguments), a copy of its input, and its output, then runs btfstream.
# 4. Builds the out-of-tree module e2e/kbuild/testdata/oot with M=, which
#    must get .BTF and .BTF.base (6.12: pahole's distilled_base; 7.2:
#    resolve_btfids --distill_base).
# 5. Runs the reference pahole 1.32 with the very command lines kbuild
#    ran, on copies of the inputs btfstream had, and requires `btfstream
#    diff` to say equal: vmlinux, every in-tree module (over vmlinux) and
#    the out-of-tree one. No list of allowed differences: a difference
#    fails the check (after the boot, which runs anyway).
# 6. Boots the kernel under qemu-system-x86_64 (TCG) with a busybox
#    initramfs whose /init (e2e/kbuild/testdata/guest-init.sh) checks
#    /sys/kernel/btf/vmlinux, insmods every module, checks
#    /sys/kernel/btf/<module>, and has the kernel's verifier (BPF_BTF_LOAD,
#    e2e/kbuild/btfload) accept vmlinux and each module merged with it,
#    and reject each module corrupted. When btfstream lists `layout` in
#    --supported_btf_features, the 7.2 vmlinux BTF (kbuild asks for
#    --btf_features=layout) must carry the layout section, on the host and
#    as the guest kernel loaded it.
# Last, once: Debian's xfs.ko encoded with distilled_base, against pahole 1.32.
#
# Every phase prints its time; the last lines are a table of them and
# "kbuild-check: PASS" (exit 0) or "kbuild-check: FAIL: phases" (exit 1).
#
# Cache: $BTFSTREAM_KBUILD_CACHE (default ~/.cache/btfstream-kbuild) keeps
# one compiled tree per kernel, keyed by the source package version, the
# config fragments, the toolchain, the make variables and the text of the
# build recipe (the functions below that configure and make; not the rest
# of this script). The tree remembers the sha256 of the btfstream that
# made its BTF:
#   cold    no tree for the key: configure and build everything.
#   warm    tree there, another btfstream: only the BTF steps run again
#           (vmlinux, .tmp_vmlinux*, every .ko and the BTF intermediates
#           are removed; olddefconfig reads btfstream's --version into
#           CONFIG_PAHOLE_VERSION again; make re-runs the final link, which
#           runs PAHOLE on vmlinux, and the module link, which runs it on
#           each .ko).
#   cached  tree there, the same btfstream: nothing is built; the calls
#           recorded when it was built are checked again.
# BTFSTREAM_KBUILD_CACHE=none builds in the scratch directory every time.
# Scratch files go to $BTFSTREAM_KBUILD_WORK (default /tmp/btfstream-kbuild),
# emptied first. BTFSTREAM_KERNEL names the Debian vmlinux for the xfs.ko
# check (else ../shared/testdata/kernel-dbg.sh fetches it). Needs root for
# apt-get.
set -u -o pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
data=$root/e2e/kbuild/testdata
work=${BTFSTREAM_KBUILD_WORK:-/tmp/btfstream-kbuild}
cache=${BTFSTREAM_KBUILD_CACHE:-$HOME/.cache/btfstream-kbuild}
# apt_install, ensure_go, shared_dir, fetch_kernel, as_root.
. "$root/scripts/setup.sh"
shared=$(shared_dir)
pahole_ref=${BTFSTREAM_REFERENCE_PAHOLE:-$shared/reference/pahole-1.32/pahole}
pahole_ref_version=v1.32
timestamp='Sun Nov 23 00:00:00 UTC 2025'
jobs=$(nproc)
export LC_ALL=C
PATH=$PATH:/usr/sbin:/sbin
only=" $* "

start_all=$(date +%s)
failed=
times=
phase_name=
phase_start=
phase() {
	phase_end
	phase_name=$1
	phase_start=$(date +%s)
	echo "=== kbuild-check: $phase_name"
}
phase_end() {
	[ -n "$phase_name" ] || return 0
	local d=$(( $(date +%s) - phase_start ))
	echo "=== kbuild-check: $phase_name: ${d}s"
	times="$times$(printf '%-22s %5ss' "$phase_name" "$d")"$'\n'
	phase_name=
}
fail() {
	echo "kbuild-check: FAIL: $*" >&2
	case " $failed " in *" ${phase_name:-setup} "*) ;; *) failed="$failed ${phase_name:-setup}" ;; esac
}
finish() {
	phase_end
	echo "=== kbuild-check: times (host: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"
	printf '%s' "$times"
	printf '%-22s %5ss\n' total $(( $(date +%s) - start_all ))
	if [ -n "$failed" ]; then
		echo "kbuild-check: FAIL:$failed"
		exit 1
	fi
	echo "kbuild-check: PASS"
	exit 0
}
die() { fail "$*"; finish; }
# skip: "check_kernel LABEL" returns 1 (fails the kernel, not the script).
skip() { fail "$*"; return 1; }

# --- 1. packages -------------------------------------------------------------
phase apt
apt_install make gcc clang lld llvm bc flex bison cpio xz-utils binutils kmod file \
	libelf-dev libssl-dev qemu-system-x86 busybox-static libdw1 libelf1 ||
	die "apt-get install failed"
ensure_go || die "no Go that can build this module"
busybox=/bin/busybox
file -L $busybox | grep -q 'statically linked' || die "$busybox is not a static busybox"
[ -x "$pahole_ref" ] || die "no reference pahole at $pahole_ref"
"$pahole_ref" --version | grep -qx "$pahole_ref_version" || die "$pahole_ref is not pahole $pahole_ref_version"

# --- 2. btfstream ------------------------------------------------------------
phase go-build
rm -rf "$work"
mkdir -p "$work/bin" || die "cannot create $work"
# BTFSTREAM_KBUILD_GOARCH=386 (or arm...) builds the PAHOLE btfstream for
# that architecture (static, CGO_ENABLED=0): 32-bit userspace building a
# 64-bit kernel, as the product promises (the x86_64 host runs 386 as is).
# Always static (CGO_ENABLED=0), as the README recommends for kernel builds.
goenv=(CGO_ENABLED=0)
[ -n "${BTFSTREAM_KBUILD_GOARCH:-}" ] && goenv+=(GOARCH="$BTFSTREAM_KBUILD_GOARCH")
(cd "$root" && env "${goenv[@]}" go build -o "$work/bin/btfstream" ./cmd/btfstream &&
	CGO_ENABLED=0 go build -o "$work/bin/btfload" ./e2e/kbuild/btfload) || die "go build failed"
btfstream=$work/bin/btfstream
btfstream_sum=$(sha256sum < "$btfstream" | cut -c1-16)
btfstream_version=$("$btfstream" --version)
# The PAHOLE kbuild runs (kmake sets both variables; the text does not
# depend on paths, so a cached tree's stamp does not either). A -J call is
# recorded in $KBUILD_CHECK_CALLS: call.N holds the directory, then one
# argument a line; call.N.in is the input as btfstream got it; call.N.out
# its output (the detached file, or the input file it wrote .BTF into).
cat > "$work/bin/pahole" <<EOF
#!/bin/sh
btfstream=\${KBUILD_CHECK_BTFSTREAM:?}
case " \$* " in *" -J "*) ;; *) exec "\$btfstream" "\$@" ;; esac
f=\$KBUILD_CHECK_CALLS/call.\$(date +%s%N).\$\$
printf '%s\n' "\$PWD" "\$@" > "\$f" || exit 1
out= next=
for a; do
	[ -n "\$next" ] && { out=\$a; next=; }
	case \$a in --btf_encode_detached=*) out=\${a#*=} ;; --btf_encode_detached) next=1 ;; esac
	in=\$a
done
cp "\$in" "\$f.in" || exit 1
"\$btfstream" "\$@" || exit \$?
cp "\${out:-\$in}" "\$f.out"
EOF
chmod +x "$work/bin/pahole"
# What a cached tree's BTF was made by: btfstream and the wrapper that recorded the calls.
bs_stamp=$(cat "$btfstream" "$work/bin/pahole" | sha256sum | cut -c1-16)
echo "btfstream: $btfstream_version ($btfstream_sum, $(file -b "$btfstream" | cut -d, -f1-2)); supported: $("$btfstream" --supported_btf_features)"
layout_supported=
"$btfstream" --supported_btf_features | tr ',' '\n' | grep -qx layout && layout_supported=1

# --- kernel source -------------------------------------------------------------
# kernel_source SOURCE: unpacks Debian's linux-source-VERSION into the
# cache (once per package version) and sets $src to the tree and $srcver
# to the package version. SOURCE is VERSION (the host's apt installs the
# package) or VERSION/RELEASE (apt-get download from RELEASE, which is
# added to apt's sources with pin priority 1 if missing).
kernel_source() {
	local version=${1%%/*} release= pkg tarball deb debs=$cache/debs
	case $1 in */*) release=${1#*/} ;; esac
	pkg=linux-source-$version
	if [ -z "$release" ]; then
		apt_install "$pkg" || skip "apt-get install $pkg failed" || return 1
		tarball=/usr/src/$pkg.tar.xz
		[ -e "$tarball" ] || skip "$pkg installed no $tarball" || return 1
		srcver=$(dpkg-query -W -f '${Version}' "$pkg")
	else
		source_release "$release"
		mkdir -p "$debs" || return 1
		# The file name the candidate has (pkg_VERSION_all.deb), if the index can be read.
		deb=$(cd "$debs" && apt-get download --print-uris "$pkg/$release" 2>/dev/null | awk '{print $2; exit}')
		if [ -n "$deb" ] && [ ! -s "$debs/$deb" ]; then
			echo "apt-get download $pkg/$release ($deb)"
			(cd "$debs" && as_root apt-get download -qq "$pkg/$release") >&2 || deb=
		fi
		# Without an index, or when the download failed: the newest one kept.
		[ -n "$deb" ] && [ -s "$debs/$deb" ] || deb=$(cd "$debs" && ls -v "${pkg}"_*.deb 2>/dev/null | tail -n 1)
		[ -n "$deb" ] || skip "cannot download $pkg/$release" || return 1
		srcver=${deb#"${pkg}"_}
		srcver=${srcver%_all.deb}
		tarball="dpkg-deb --fsys-tarfile $debs/$deb"
	fi
	src=$cache/src-$pkg-$srcver
	[ "$cache" = none ] && src=$work/src-$pkg
	[ "$cache" = none ] || mkdir -p "$cache" || return 1
	if [ ! -e "$src/.done" ]; then
		# One unpacked tree per package (~1.5 GB each).
		[ "$cache" = none ] || find "$cache" -maxdepth 1 -name "src-$pkg-*" -exec rm -rf {} +
		echo "unpacking $pkg $srcver into $src"
		mkdir -p "$src" || return 1
		if [ -z "$release" ]; then
			tar -xJf "$tarball" -C "$src" --strip-components=1
		else
			$tarball | tar -xO "./usr/src/$pkg.tar.xz" | tar -xJ -C "$src" --strip-components=1
		fi || skip "cannot unpack $pkg" || return 1
		touch "$src/.done"
	fi
	[ -n "$release" ] && find "$debs" -name "${pkg}_*.deb" ! -name "$deb" -delete
	return 0
}

# source_release RELEASE: RELEASE in apt's sources, pinned to priority 1
# (downloads only), as kernel-dbg.sh does it.
source_release() {
	local host
	host=$(. /etc/os-release 2>/dev/null; echo "${VERSION_CODENAME:-}")
	[ "$1" = "$host" ] && return 0
	[ -e "/etc/apt/preferences.d/btfstream-$1" ] ||
		printf 'Package: *\nPin: release n=%s\nPin-Priority: 1\n' "$1" | as_root tee "/etc/apt/preferences.d/btfstream-$1" > /dev/null
	if ! grep -rqsE "(debian $1 main|Suites:.*\b$1\b)" /etc/apt/sources.list /etc/apt/sources.list.d/; then
		echo "adding $1 to apt's sources (pin priority 1: downloads only)"
		echo "deb http://deb.debian.org/debian $1 main" | as_root tee "/etc/apt/sources.list.d/btfstream-$1.list" > /dev/null
		as_root apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 || echo "apt-get update reported errors" >&2
	fi
}

# --- 3. build (the recipe: its text is part of the cache key) ---------------------

# toolchain_id MAKEVAR...: the compiler and linker the make variables select.
toolchain_id() {
	local cc=gcc ld=ld v
	for v; do
		case $v in
			LLVM=1) cc=clang ld=ld.lld ;;
			LLVM=-*) cc=clang${v#LLVM=} ld=ld.lld${v#LLVM=} ;;
			LLVM=*/) cc=${v#LLVM=}clang ld=${v#LLVM=}ld.lld ;;
		esac
	done
	for v; do case $v in CC=*) cc=${v#CC=} ;; LD=*) ld=${v#LD=} ;; esac; done
	"$cc" --version | head -n 1
	"$ld" --version | head -n 1
}

# kmake ARGS: make in $src with the output in $obj, PAHOLE=the wrapper and
# the kernel's make variables ($makevars).
kmake() {
	KBUILD_CHECK_CALLS=$calls KBUILD_CHECK_BTFSTREAM=$btfstream nice -n 10 make -C "$src" O="$obj" ARCH=x86_64 PAHOLE="$work/bin/pahole" \
		KBUILD_BUILD_TIMESTAMP="$timestamp" "${makevars[@]}" "$@"
}

# configure_kernel FRAGMENT...: tinyconfig, the fragments merged over it,
# each of their CONFIG_*=y|m lines required to stick.
configure_kernel() {
	local f line
	{ kmake tinyconfig &&
		"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$@" &&
		kmake olddefconfig; } >> "$log" 2>&1 || { tail -n 30 "$log"; skip "kernel configuration failed"; return 1; }
	for f; do
		while IFS= read -r line; do
			case $line in CONFIG_*=[ym]) grep -qx "$line" "$obj/.config" || skip "$line ($f) did not stick (dependency missing?)" ;; esac
		done < "$f"
	done
	[ -z "$failed" ]
}

# rebuild_btf: the tree is compiled, btfstream is another: remove what the
# BTF steps made, so that make links vmlinux again (link-vmlinux.sh: PAHOLE
# on .tmp_vmlinux1, 6.12 in place, 7.2 through gen-btf.sh) and then every
# .ko (Makefile.modfinal: PAHOLE --btf_base vmlinux). Object files stay.
rebuild_btf() {
	rm -f "$obj"/vmlinux "$obj"/vmlinux.unstripped "$obj"/.tmp_vmlinux* "$obj"/.btf* "$obj"/arch/x86/boot/bzImage
	find "$obj" \( -name '*.ko' -o -name '*.BTF' -o -name '*.BTF.1' -o -name '*.BTF.base' -o -name '*.BTF_ids' \) -delete
}

# build_kernel: configures (cold) and makes bzImage and modules in $obj.
build_kernel() {
	local mode=$1
	if [ "$mode" = cold ]; then
		configure_kernel "${fragments[@]}" || return 1
	else
		rebuild_btf
		# CONFIG_PAHOLE_VERSION (and what depends on it) from this btfstream's --version.
		kmake olddefconfig >> "$log" 2>&1 || { tail -n 30 "$log"; skip "kernel configuration failed"; return 1; }
	fi
	kmake -j"$jobs" bzImage modules >> "$log" 2>&1 || { tail -n 40 "$log"; skip "kernel build failed"; return 1; }
}

# --- 4-6. one kernel ------------------------------------------------------------------

# check_kernel LABEL SOURCE FRAGMENTS [MAKEVAR=VALUE...]: builds kernel
# LABEL from SOURCE (see kernel_source) with tinyconfig plus FRAGMENTS
# (comma-separated file names under e2e/kbuild/testdata, merged in that
# order) and the make variables (e.g. LLVM=1), then checks it (steps 3-6).
check_kernel() {
	local label=$1 source=$2 key mode kver nmod f
	local -a fragments makevars
	IFS=, read -r -a fragments <<< "$3"
	fragments=("${fragments[@]/#/$data/}")
	shift 3
	makevars=("$@")
	case "$only" in "  ") ;; *" $label "*) ;; *) return 0 ;; esac
	local kw=$work/$label
	local log=$kw/build.log
	mkdir -p "$kw" || return 1

	phase "$label source"
	kernel_source "$source" || return 1

	phase "$label kernel"
	key=$( {
		echo "$source $srcver"
		for f in "${fragments[@]}"; do sha256sum < "$f"; done
		toolchain_id "${makevars[@]}"
		printf '%s\n' "${makevars[@]}"
		declare -f toolchain_id kmake configure_kernel rebuild_btf build_kernel
	} | sha256sum | cut -c1-16) || return 1
	if [ "$cache" = none ]; then
		obj=$kw/obj
	else
		obj=$cache/tree-$label-$key
	fi
	local calls=$obj/.kbuild-check-calls
	if [ ! -e "$obj/.kbuild-check-tree" ]; then
		mode=cold
		# One tree per kernel: each holds ~0.5-1 GB of objects with DWARF.
		# (The key's 16 hex digits spelled out: tree-6.12-* would also be 6.12-llvm's.)
		[ "$cache" = none ] || find "$cache" -maxdepth 1 -name "tree-$label-$(printf '[0-9a-f]%.0s' {1..16})" -exec rm -rf {} +
		rm -rf "$obj" && mkdir -p "$obj" || return 1
	elif [ "$(cat "$obj/.kbuild-check-btfstream" 2>/dev/null)" != "$bs_stamp" ]; then
		mode=warm
	else
		mode=cached
	fi
	phase_name="$label kernel ($mode)"
	echo "kernel $label: $mode, in $obj (key $key; log: $log)"
	if [ $mode != cached ]; then
		rm -rf "$calls" "$obj/.kbuild-check-btfstream" && mkdir -p "$calls" || return 1
		build_kernel $mode || return 1
		touch "$obj/.kbuild-check-tree"
		echo "$bs_stamp" > "$obj/.kbuild-check-btfstream"
		echo "kbuild: $(grep -cE '^  BTF +[^[ ]' "$log") BTF (vmlinux), $(grep -cE '^  BTF \[M\] ' "$log") BTF [M] (modules), $(grep -cE '^  BTFIDS ' "$log") BTFIDS, $(grep -cE '^  CC ' "$log") CC"
	fi
	local pv
	pv=$(sed -n 's/^CONFIG_PAHOLE_VERSION=//p' "$obj/.config")
	[ "$pv" = "$(echo "$btfstream_version" | tr -dc 0-9)" ] ||
		fail "kbuild read CONFIG_PAHOLE_VERSION=$pv, btfstream --version says $btfstream_version"
	kver=$(cat "$obj/include/config/kernel.release")
	nmod=$(wc -l < "$obj/modules.order")
	echo "kernel $kver: $(stat -c %s "$obj/arch/x86/boot/bzImage") bytes bzImage, $nmod modules, CONFIG_PAHOLE_VERSION=$pv"

	phase "$label oot-module"
	local oot=$kw/oot ootko
	ootko=$oot/btfstream_oot.ko
	cp -r "$data/oot" "$oot" || return 1
	# The out-of-tree module's calls go to the scratch directory: it is built every time.
	calls=$kw/oot-calls
	mkdir -p "$calls"
	kmake -j"$jobs" M="$oot" modules > "$kw/oot.log" 2>&1 || { cat "$kw/oot.log"; skip "out-of-tree module build failed"; return 1; }
	local sec
	for sec in .BTF .BTF.base; do
		objcopy --dump-section "$sec=$kw/oot$sec" "$ootko" 2>/dev/null ||
			fail "$ootko has no $sec section"
	done
	echo "btfstream_oot.ko: $(stat -c %s "$kw/oot.BTF" 2>/dev/null) bytes .BTF, $(stat -c %s "$kw/oot.BTF.base" 2>/dev/null) bytes .BTF.base"

	phase "$label reference"
	compare_calls "$kw" "$obj/.kbuild-check-calls" "$kw/oot-calls"
	local ncalls
	ncalls=$(ls "$obj/.kbuild-check-calls" "$kw/oot-calls" | grep -c '^call\.[0-9.]*$')
	[ "$ncalls" -eq $((nmod + 2)) ] || fail "expected $((nmod + 2)) encodings (vmlinux, $nmod modules, the out-of-tree one), kbuild made $ncalls"
	local want_layout=
	if [ -n "$layout_supported" ] && grep -qx -- '--btf_features=layout' "$obj"/.kbuild-check-calls/call.*[0-9]; then
		want_layout=1
	fi
	check_layout "$obj/vmlinux" "$want_layout"

	boot_kernel || return 1
}

# compare_calls DIR CALLS...: each -J call recorded in the CALLS
# directories, run again with pahole 1.32 on a copy of the input btfstream
# had; `btfstream diff` must say equal.
compare_calls() {
	local kw=$1 call dir file out ref base distilled detached i n what verdict diffout sec
	shift
	mkdir -p "$kw/ref"
	echo "kbuild's calls of PAHOLE=btfstream, each run again by pahole $pahole_ref_version:"
	for call in $(for dir; do ls "$dir"/call.* 2>/dev/null; done | grep '/call\.[0-9.]*$'); do
		mapfile -t a < "$call"
		dir=${a[0]}
		local -a args=("${a[@]:1}")
		n=${#args[@]}
		file=${args[n-1]}
		case $file in /*) ;; *) file=$dir/$file ;; esac
		what=$(basename "$file")
		ref=$kw/ref/$what
		cp "$call.in" "$ref" || { fail "cannot copy $call.in"; continue; }
		args[n-1]=$ref
		base= distilled= detached=
		for ((i = 0; i < n - 1; i++)); do
			case ${args[i]} in
				--btf_base) base=${args[i+1]} ;;
				--btf_encode_detached=*) detached=1 args[i]=--btf_encode_detached=$ref.BTF.1 ;;
				--btf_encode_detached) detached=1 args[i+1]=$ref.BTF.1 ;;
				*distilled_base*) distilled=1 ;;
			esac
		done
		[ -n "$base" ] && case $base in /*) ;; *) base=$dir/$base ;; esac
		echo "  (cd ${dir/#$obj/\$obj}; pahole ${a[*]:1})" | sed "s#$obj#\$obj#g; s#$work#\$work#g"
		if ! (cd "$dir" && LLVM_OBJCOPY=objcopy nice -n 10 "$pahole_ref" "${args[@]}") > "$ref.log" 2>&1; then
			cat "$ref.log"
			fail "reference pahole failed on $file"
			continue
		fi
		[ -n "$detached" ] && ref=$ref.BTF.1
		out=$call.out
		[ -n "$detached" ] || check_in_place "$call.in" "$out" "$what"
		if [ -z "$detached" ] && [ -z "$base" ] && ! "$btfstream" diff -q "$ref" "$ref" 2> "$ref.err"; then
			# pahole lets libelf lay the file out again: on ld.lld's
			# .tmp_vmlinux1 its program headers then point past the end of
			# the file, which btfstream (like llvm-objcopy) refuses to read.
			# GNU objcopy still extracts the .BTF.
			echo "    pahole's $what is not a valid ELF ($(cat "$ref.err")); comparing its .BTF (GNU objcopy --dump-section)"
			objcopy --dump-section ".BTF=$ref.BTF" "$ref" "$ref.objcopy" 2> /dev/null && ref=$ref.BTF ||
				fail "cannot extract .BTF from pahole's $what"
		fi
		if [ -n "$base" ] && [ -n "$distilled" ] && [ -z "$detached" ]; then
			# 6.12's out-of-tree module: .BTF over its own .BTF.base. Each is
			# relocated onto vmlinux (as the kernel does at load) and compared
			# over it: pahole 1.32 with libbpf 1.7 leaves copies of base
			# typedefs (and what uses them) in the split, so its .BTF.base
			# holds more types than ours; over vmlinux a copy is the base type.
			diffout=$("$btfstream" diff --base "$base" "$out" "$ref") && verdict=equal || verdict=DIFFERENT
			for sec in .BTF .BTF.base; do
				objcopy --dump-section "$sec=$kw/ours$sec" "$out" && objcopy --dump-section "$sec=$kw/ref$sec" "$ref" &&
					cmp -s "$kw/ours$sec" "$kw/ref$sec" && verdict="$verdict, $sec byte-identical"
			done
			what="$what (out-of-tree, each relocated from its own .BTF.base onto $(basename "$base"))"
		elif [ -n "$base" ]; then
			diffout=$("$btfstream" diff --base "$base" "$out" "$ref") && verdict=equal || verdict=DIFFERENT
			what="$what (over $(basename "$base"))"
		else
			diffout=$("$btfstream" diff "$out" "$ref") && verdict=equal || verdict=DIFFERENT
		fi
		cmp -s "$out" "$ref" && verdict="$verdict, byte-identical"
		echo "    btfstream diff vs pahole $pahole_ref_version: $what: $verdict"
		case $verdict in equal*) ;; *) echo "$diffout" | head -n 30 | cut -c1-240 | sed 's/^/      /'; fail "$what differs from pahole $pahole_ref_version" ;; esac
	done
}

# check_in_place IN OUT WHAT: OUT is IN with .BTF written by btfstream:
# readelf -lSW reads it without a warning and its program headers are IN's.
check_in_place() {
	local warn
	warn=$(readelf -lSW "$2" 2>&1 > /dev/null)
	[ -z "$warn" ] || fail "readelf -lSW on btfstream's $3 warns: $warn"
	if [ "$(program_headers "$1")" != "$(program_headers "$2")" ]; then
		diff <(program_headers "$1") <(program_headers "$2") | head -n 20
		fail "btfstream changed the program headers of $3"
	elif [ "$(program_headers "$1" | grep -c LOAD)" -gt 0 ]; then
		echo "    $3: readelf -lSW clean, $(program_headers "$1" | grep -cE '^  [A-Z_]+ +0x') program headers unchanged; .BTF before: $(btf_header "$1"); after: $(btf_header "$2")"
	fi
}
program_headers() { readelf -lW "$1" 2> /dev/null | sed -n '/^Program Headers:/,/^ Section to Segment mapping:/p'; }
btf_header() { readelf -SW "$1" 2> /dev/null | grep -E '\] \.BTF ' | sed 's/^ *\[ *[0-9]*\] //; s/  */ /g' || echo none; }

# check_layout VMLINUX WANT: reports VMLINUX's .BTF header; WANT non-empty:
# the layout section must be there.
check_layout() {
	local hdr
	layout_expected=$2
	objcopy --dump-section ".BTF=$work/layout.btf" "$1" || { fail "$1 has no .BTF"; return; }
	# magic version flags hdr_len type_off type_len str_off str_len [layout_off layout_len]
	hdr=($(od -An -t u4 -N 32 "$work/layout.btf"))
	if [ "${hdr[1]}" -ge 32 ] && [ "${hdr[7]}" -gt 0 ]; then
		echo "vmlinux .BTF: hdr_len ${hdr[1]}, layout section of ${hdr[7]} bytes at ${hdr[6]}"
	else
		echo "vmlinux .BTF: hdr_len ${hdr[1]}, no layout section"
		[ -z "$2" ] || fail "btfstream supports layout and kbuild asked for it, but vmlinux's .BTF has no layout section"
	fi
}

# boot_kernel: initramfs with every module and btfload; qemu; the guest's verdicts.
boot_kernel() {
	phase "$label initramfs"
	local ir=$kw/initramfs app f
	mkdir -p "$ir/bin"
	{ kmake INSTALL_MOD_PATH="$ir" modules_install && kmake INSTALL_MOD_PATH="$ir" M="$oot" modules_install; } > "$kw/install.log" 2>&1 ||
		{ cat "$kw/install.log"; skip "modules_install failed"; return 1; }
	# insmod order: modules.order with each module's dependencies first, then
	# the out-of-tree module.
	{ cat "$obj/modules.order"; echo "btfstream_oot.o"; } | while read -r o; do
		modprobe -d "$ir" -S "$kver" --show-depends "$(basename "$o" .o)" | awk '$1 == "insmod" {print $2}'
	done | sed "s#^$ir##" | awk '!seen[$0]++' > "$ir/modules.list"
	[ "$(wc -l < "$ir/modules.list")" -eq $((nmod + 1)) ] || { skip "modules.list has $(wc -l < "$ir/modules.list") modules, want $((nmod + 1))"; return 1; }
	cp "$busybox" "$ir/bin/busybox"
	cp "$work/bin/btfload" "$ir/btfload"
	cp "$data/guest-init.sh" "$ir/init"
	{
		echo "dir /dev 0755 0 0"
		echo "nod /dev/console 0600 0 0 c 5 1"
		echo "dir /proc 0755 0 0"
		echo "dir /sys 0755 0 0"
		(cd "$ir" && find . -mindepth 1 -type d | sort | sed 's#^\.##' | awk '{print "dir " $0 " 0755 0 0"}')
		(cd "$ir" && find . -type f | sort | sed 's#^\.##' | while read -r f; do
			echo "file $f $ir$f $(stat -c %a "$ir$f") 0 0"
		done)
		for app in sh mount insmod basename tr wc grep sed dmesg sync reboot cat uname; do
			echo "slink /bin/$app busybox 0777 0 0"
		done
	} > "$kw/initramfs.list"
	"$obj/usr/gen_init_cpio" "$kw/initramfs.list" | gzip -1 > "$kw/initramfs.cpio.gz" || { skip "gen_init_cpio failed"; return 1; }
	echo "initramfs: $(stat -c %s "$kw/initramfs.cpio.gz") bytes, $(wc -l < "$ir/modules.list") modules"

	phase "$label boot"
	# TCG: KVM may be missing, and where /dev/kvm exists (nested) it may hang
	# before the kernel prints anything, as seen here. BTFSTREAM_KBUILD_ACCEL=kvm
	# to try it. no_timer_check: on a loaded host TCG is too slow for the
	# IO-APIC timer check ("IO-APIC + timer doesn't work!", a panic, seen
	# here at load 25 on 2 cores).
	local -a accel=(-accel "${BTFSTREAM_KBUILD_ACCEL:-tcg}")
	echo "qemu-system-x86_64 ${accel[*]} -m 512M -kernel bzImage -initrd initramfs.cpio.gz -append 'console=ttyS0 panic=-1 no_timer_check rdinit=/init'"
	timeout 900 nice -n 10 qemu-system-x86_64 "${accel[@]}" -m 512M -smp 1 -nographic -no-reboot -monitor none \
		-kernel "$obj/arch/x86/boot/bzImage" -initrd "$kw/initramfs.cpio.gz" \
		-append "console=ttyS0 panic=-1 loglevel=4 no_timer_check rdinit=/init" \
		-device virtio-rng-pci < /dev/null > "$kw/guest.log" 2>&1
	local qrc=$?
	# (The first line follows the firmware's escape sequences on the same line.)
	tr -d '\r' < "$kw/guest.log" | grep -oE '(GUEST|btfload): .*' | tee "$kw/guest.lines"
	[ $qrc -eq 0 ] || { tail -n 30 "$kw/guest.log"; fail "qemu exited with $qrc (124: timeout)"; }
	g() { grep -c "$1" "$kw/guest.lines"; }
	[ "$(g '^GUEST: RESULT: PASS$')" -eq 1 ] || fail "the guest did not report PASS"
	[ "$(g '^GUEST: /sys/kernel/btf/vmlinux: ')" -eq 1 ] || fail "no /sys/kernel/btf/vmlinux in the guest"
	[ "$(g '^GUEST: insmod .*: loaded$')" -eq $((nmod + 1)) ] || fail "not every module loaded"
	[ "$(g '^GUEST: /sys/kernel/btf/[a-z0-9_]*: [0-9]* bytes$')" -eq $((nmod + 2)) ] || fail "not every module has /sys/kernel/btf/<module>"
	[ "$(g '^btfload: .*: accepted (')" -eq $((nmod + 2)) ] || fail "BPF_BTF_LOAD did not accept vmlinux and every module"
	[ "$(g '^btfload: .*: rejected as it must be: ')" -eq $((nmod + 1)) ] || fail "BPF_BTF_LOAD did not reject every corrupted module"
	grep -q '^btfload: btfstream_oot: accepted' "$kw/guest.lines" || fail "the out-of-tree module's BTF (relocated from its .BTF.base) was not accepted"
	if [ -n "$layout_expected" ]; then
		grep -q '^btfload: vmlinux: accepted (.*layout section' "$kw/guest.lines" ||
			fail "BPF_BTF_LOAD did not accept a vmlinux BTF with the layout section"
	fi
	return 0
}

# --- xfs: Debian's xfs.ko with distilled_base --------------------------------------
check_xfs() {
	case "$only" in "  "|*" xfs "*) ;; *) return 0 ;; esac
	phase xfs
	local kernel=${BTFSTREAM_KERNEL:-} xfs F verdict sec
	if [ -z "$kernel" ] || [ "$kernel" = none ]; then
		kernel=$(fetch_kernel) || kernel=
	fi
	xfs=$(ls "$(dirname "$kernel")"/../lib/modules/*/kernel/fs/xfs/xfs.ko 2>/dev/null | head -n 1)
	if [ -z "$kernel" ] || [ -z "$xfs" ]; then
		fail "no Debian kernel with xfs.ko (set BTFSTREAM_KERNEL or let kernel-dbg.sh fetch it)"
		return
	fi
	F=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs
	cp "$xfs" "$work/xfs-ours.ko" && cp "$xfs" "$work/xfs-ref.ko"
	echo "  btfstream -J -j1 --btf_features=$F --btf_features=distilled_base --lang_exclude=rust --btf_base vmlinux xfs.ko (and pahole $pahole_ref_version, +reproducible_build)"
	nice -n 10 "$btfstream" -J -j1 --btf_features=$F --btf_features=distilled_base --lang_exclude=rust --btf_base "$kernel" "$work/xfs-ours.ko" ||
		fail "btfstream failed on xfs.ko"
	LLVM_OBJCOPY=objcopy nice -n 10 "$pahole_ref" -J -j1 --btf_features=$F,reproducible_build --btf_features=distilled_base --lang_exclude=rust \
		--btf_base "$kernel" "$work/xfs-ref.ko" || fail "pahole failed on xfs.ko"
	"$btfstream" diff --base "$kernel" "$work/xfs-ours.ko" "$work/xfs-ref.ko" > "$work/xfs.diff" && verdict=equal || verdict=DIFFERENT
	for sec in .BTF .BTF.base; do
		objcopy --dump-section "$sec=$work/xo$sec" "$work/xfs-ours.ko" && objcopy --dump-section "$sec=$work/xr$sec" "$work/xfs-ref.ko" &&
			cmp -s "$work/xo$sec" "$work/xr$sec" && verdict="$verdict, $sec byte-identical"
	done
	echo "    btfstream diff vs pahole $pahole_ref_version: xfs.ko with distilled_base ($(stat -c %s "$work/xo.BTF.base") bytes of .BTF.base): $verdict"
	case $verdict in equal*) ;; *) head -n 40 "$work/xfs.diff"; fail "xfs.ko differs from pahole $pahole_ref_version" ;; esac
	rm -f "$work"/xfs-*.ko
}

# The kernels: one line each, "build kernel LABEL from SOURCE with these
# fragments and make variables".
check_kernel 6.12 6.12 kernel.config,kernel-6.12.config
check_kernel 6.12-llvm 6.12 kernel.config,kernel-6.12.config,kernel-llvm.config LLVM=1
check_kernel 7.2 7.2/sid kernel.config,kernel-7.2.config
check_xfs
finish
