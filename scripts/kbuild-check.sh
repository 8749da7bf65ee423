#!/usr/bin/env bash
# kbuild-check.sh: btfstream inside a real kernel build, booted.
#
#   scripts/kbuild-check.sh
#
# 1. apt: installs what is missing (linux-source-6.12, the kernel's build
#    tools, qemu-system-x86, busybox-static, and libdw1/libelf1 for the
#    reference pahole). A failed install fails the check.
# 2. Builds btfstream and the guest helper btfload (static) from this repo.
# 3. Builds a minimal x86_64 kernel from Debian's linux-source-6.12:
#    tinyconfig plus e2e/kbuild/testdata/kernel.config (BPF_SYSCALL,
#    DEBUG_INFO_DWARF5, DEBUG_INFO_BTF, DEBUG_INFO_BTF_MODULES, virtio,
#    a dozen small modules), with `make PAHOLE=btfstream` and
#    KBUILD_BUILD_TIMESTAMP set, as Debian's builds do (so kbuild adds
#    --btf_features=+reproducible_build). PAHOLE is a two-line wrapper that
#    records each command line kbuild runs, then execs btfstream.
# 4. Builds the out-of-tree module e2e/kbuild/testdata/oot with M=, for
#    which kbuild adds --btf_features=distilled_base (.BTF.base).
# 5. Runs the reference pahole 1.31 with the very command lines kbuild
#    ran, on copies of .tmp_vmlinux1 and of each .ko, and requires
#    `btfstream diff` to say equal: vmlinux, every in-tree module (over
#    vmlinux) and the out-of-tree one (each over its own .BTF.base). Then
#    the same for Debian's xfs.ko encoded with distilled_base.
# 6. Boots the kernel under qemu-system-x86_64 (TCG) with a busybox
#    initramfs whose /init
#    (e2e/kbuild/testdata/guest-init.sh) checks /sys/kernel/btf/vmlinux,
#    insmods every module, checks /sys/kernel/btf/<module>, and has the
#    kernel's verifier (BPF_BTF_LOAD, e2e/kbuild/btfload) accept vmlinux
#    and each module merged with it, and reject each module corrupted.
#
# Every phase prints its time; the last lines are a table of them and
# "kbuild-check: PASS" (exit 0) or "kbuild-check: FAIL: phases" (exit 1).
#
# The kernel build (about 5 minutes on 2 cores) is cached in
# $BTFSTREAM_KBUILD_CACHE (default ~/.cache/btfstream-kbuild), keyed by the
# sha256 of the btfstream binary, the config fragment, this script, the
# kernel source version and the compiler: any change to btfstream rebuilds
# the kernel from scratch, so a cached build is always one this btfstream
# made.
# BTFSTREAM_KBUILD_CACHE=none disables the cache. Scratch files go to
# $BTFSTREAM_KBUILD_WORK (default /tmp/btfstream-kbuild), emptied first.
# BTFSTREAM_KERNEL names the Debian vmlinux for the xfs.ko check (else
# ../shared/testdata/kernel-dbg.sh fetches it). Needs root for apt-get.
set -u -o pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
data=$root/e2e/kbuild/testdata
work=${BTFSTREAM_KBUILD_WORK:-/tmp/btfstream-kbuild}
cache=${BTFSTREAM_KBUILD_CACHE:-$HOME/.cache/btfstream-kbuild}
# apt_install, ensure_go, shared_dir, fetch_kernel.
. "$root/scripts/setup.sh"
shared=$(shared_dir)
pahole_ref=${BTFSTREAM_REFERENCE_PAHOLE:-$shared/reference/pahole-1.31/pahole}
timestamp='Sun Nov 23 00:00:00 UTC 2025'
jobs=$(nproc)
export LC_ALL=C
PATH=$PATH:/usr/sbin:/sbin

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
	times="$times$(printf '%-14s %5ss' "$phase_name" "$d")"$'\n'
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
	printf '%-14s %5ss\n' total $(( $(date +%s) - start_all ))
	if [ -n "$failed" ]; then
		echo "kbuild-check: FAIL:$failed"
		exit 1
	fi
	echo "kbuild-check: PASS"
	exit 0
}
die() { fail "$*"; finish; }

# --- 1. packages -------------------------------------------------------------
phase apt
apt_install linux-source-6.12 make gcc bc flex bison cpio xz-utils binutils kmod file \
	libelf-dev libssl-dev qemu-system-x86 busybox-static libdw1 libelf1 ||
	die "apt-get install failed"
ensure_go || die "no Go that can build this module"
busybox=/bin/busybox
file -L $busybox | grep -q 'statically linked' || die "$busybox is not a static busybox"
[ -e /usr/src/linux-source-6.12.tar.xz ] || die "linux-source-6.12 installed no /usr/src/linux-source-6.12.tar.xz"
[ -x "$pahole_ref" ] || die "no reference pahole at $pahole_ref"
"$pahole_ref" --version | grep -qx v1.31 || die "$pahole_ref is not pahole v1.31"

# --- 2. btfstream ------------------------------------------------------------
phase go-build
rm -rf "$work"
mkdir -p "$work/bin" "$work/calls" || die "cannot create $work"
(cd "$root" && go build -o "$work/bin/btfstream" ./cmd/btfstream &&
	CGO_ENABLED=0 go build -o "$work/bin/btfload" ./e2e/kbuild/btfload) || die "go build failed"
btfstream=$work/bin/btfstream
# The PAHOLE kbuild runs: record the call (directory, then one argument a
# line), then run btfstream.
cat > "$work/bin/pahole" <<EOF
#!/bin/sh
f=\$(mktemp "$work/calls/call.XXXXXX") && { printf '%s\n' "\$PWD" "\$@" > "\$f"; }
exec "$btfstream" "\$@"
EOF
chmod +x "$work/bin/pahole"
echo "btfstream: $("$btfstream" --version) ($(sha256sum < "$btfstream" | cut -c1-16))"

# --- 3. kernel -----------------------------------------------------------------
phase kernel
srcver=$(dpkg-query -W -f '${Version}' linux-source-6.12 2>/dev/null || stat -c %s /usr/src/linux-source-6.12.tar.xz)
key=$( { sha256sum < "$btfstream"; sha256sum < "$data/kernel.config"; sha256sum < "$0"
	echo "$srcver"; gcc --version | head -n1; } | sha256sum | cut -c1-16)
if [ "$cache" = none ]; then
	src=$work/src
	obj=$work/obj
else
	src=$cache/src-$srcver
	obj=$cache/build-$key
fi
if [ ! -e "$src/.done" ]; then
	rm -rf "$src" && mkdir -p "$src" &&
		tar -xJf /usr/src/linux-source-6.12.tar.xz -C "$src" --strip-components=1 &&
		touch "$src/.done" || die "cannot unpack linux-source-6.12"
fi
kmake() { nice -n 10 make -C "$src" O="$obj" ARCH=x86_64 PAHOLE="$work/bin/pahole" \
	KBUILD_BUILD_TIMESTAMP="$timestamp" "$@"; }
if [ -e "$obj/.kbuild-check-done" ]; then
	echo "reusing the build in $obj (key $key: same btfstream binary, config, script, source and compiler)"
	cp "$obj/.kbuild-check-calls/"* "$work/calls/" 2>/dev/null
else
	if [ "$cache" != none ]; then
		# One cached build at a time: each holds ~500 MB of objects with DWARF.
		mkdir -p "$cache" && find "$cache" -maxdepth 1 -name 'build-*' -exec rm -rf {} +
	fi
	rm -rf "$obj" && mkdir -p "$obj" || die "cannot create $obj"
	echo "building in $obj (log: $work/build.log)"
	{ kmake tinyconfig &&
		"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$data/kernel.config" &&
		kmake olddefconfig; } > "$work/build.log" 2>&1 || { tail -n 30 "$work/build.log"; die "kernel configuration failed"; }
	# Everything the fragment asks for must have survived olddefconfig.
	while IFS= read -r line; do
		case $line in CONFIG_*=[ym]) grep -qx "$line" "$obj/.config" || fail "$line did not stick (dependency missing?)" ;; esac
	done < "$data/kernel.config"
	[ -z "$failed" ] || die "kernel configuration incomplete"
	grep -q '^CONFIG_PAHOLE_VERSION=131$' "$obj/.config" || die "kbuild did not read v1.31 from PAHOLE=btfstream --version"
	kmake -j"$jobs" bzImage modules >> "$work/build.log" 2>&1 || { tail -n 40 "$work/build.log"; die "kernel build failed"; }
	mkdir -p "$obj/.kbuild-check-calls" && cp "$work/calls/"* "$obj/.kbuild-check-calls/"
	touch "$obj/.kbuild-check-done"
fi
[ -e "$work/build.log" ] && echo "kbuild: $(grep -cE '^  BTF +[^[ ]' "$work/build.log") BTF (vmlinux), $(grep -cE '^  BTF \[M\] ' "$work/build.log") BTF [M] (modules), $(grep -cE '^  BTFIDS ' "$work/build.log") BTFIDS"
kver=$(cat "$obj/include/config/kernel.release")
nmod=$(wc -l < "$obj/modules.order")
echo "kernel $kver: $(stat -c %s "$obj/arch/x86/boot/bzImage") bytes bzImage, $nmod modules, CONFIG_PAHOLE_VERSION=$(sed -n 's/^CONFIG_PAHOLE_VERSION=//p' "$obj/.config")"

# --- 4. out-of-tree module -------------------------------------------------------
phase oot-module
oot=$work/oot
cp -r "$data/oot" "$oot" || die "cannot copy the out-of-tree module"
kmake -j"$jobs" M="$oot" modules > "$work/oot.log" 2>&1 || { cat "$work/oot.log"; die "out-of-tree module build failed"; }
ootko=$oot/btfstream_oot.ko
objcopy --dump-section .BTF.base="$work/oot.base" "$ootko" 2>/dev/null ||
	fail "$ootko has no .BTF.base (kbuild asked for distilled_base)"

# --- 5. reference pahole -----------------------------------------------------------
phase reference
echo "kbuild's calls of PAHOLE=btfstream:"
ncalls=0
nmods=0
mkdir -p "$work/ref"
for call in $(ls -tr "$work/calls/"call.*); do
	mapfile -t a < "$call"
	dir=${a[0]}
	args=("${a[@]:1}")
	case " ${args[*]} " in *" -J "*) ;; *) continue ;; esac
	ncalls=$((ncalls + 1))
	n=${#args[@]}
	file=${args[n-1]}
	case $file in /*) ;; *) file=$dir/$file ;; esac
	echo "  (cd ${dir/#$obj/\$obj}; btfstream ${args[*]/#$obj/\$obj})"
	copy=$work/ref/$(basename "$file")
	cp "$file" "$copy" || { fail "cannot copy $file"; continue; }
	args[n-1]=$copy
	if ! (cd "$dir" && LLVM_OBJCOPY=objcopy nice -n 10 "$pahole_ref" "${args[@]}") > "$work/ref/$(basename "$file").log" 2>&1; then
		cat "$work/ref/$(basename "$file").log"
		fail "reference pahole failed on $file"
		continue
	fi
	what=$(basename "$file")
	case $file in
		*.ko)
			nmods=$((nmods + 1))
			if [ "$file" = "$ootko" ]; then
				out=$("$btfstream" diff "$file" "$copy") && verdict=equal || verdict=DIFFERENT
				for sec in .BTF .BTF.base; do
					objcopy --dump-section "$sec=$work/ours$sec" "$file" && objcopy --dump-section "$sec=$work/ref$sec" "$copy" &&
						cmp -s "$work/ours$sec" "$work/ref$sec" && verdict="$verdict, $sec byte-identical"
				done
				what="$what (out-of-tree, each over its own .BTF.base)"
			else
				out=$("$btfstream" diff --base "$obj/vmlinux" "$file" "$copy") && verdict=equal || verdict=DIFFERENT
			fi ;;
		*)
			# What boots is vmlinux, whose .BTF kbuild copied from .tmp_vmlinux1.
			out=$("$btfstream" diff "$obj/vmlinux" "$copy") && verdict=equal || verdict=DIFFERENT
			what="vmlinux (btfstream on $what, in the final vmlinux)" ;;
	esac
	echo "    btfstream diff vs pahole 1.31: $what: $verdict"
	case $verdict in equal*) ;; *) echo "$out" | head -n 40; fail "$what differs from pahole 1.31" ;; esac
done
[ "$ncalls" -eq $((nmod + 2)) ] || fail "expected $((nmod + 2)) encodings (vmlinux, $nmod modules, the out-of-tree one), kbuild made $ncalls"

# --- 5b. Debian's xfs.ko with distilled_base --------------------------------------------
phase xfs
kernel=${BTFSTREAM_KERNEL:-}
if [ -z "$kernel" ] || [ "$kernel" = none ]; then
	kernel=$(fetch_kernel) || kernel=
fi
xfs=$(ls "$(dirname "$kernel")"/../lib/modules/*/kernel/fs/xfs/xfs.ko 2>/dev/null | head -n 1)
if [ -z "$kernel" ] || [ -z "$xfs" ]; then
	fail "no Debian kernel with xfs.ko (set BTFSTREAM_KERNEL or let kernel-dbg.sh fetch it)"
else
	F=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs
	cp "$xfs" "$work/xfs-ours.ko" && cp "$xfs" "$work/xfs-ref.ko"
	echo "  btfstream -J -j1 --btf_features=$F --btf_features=distilled_base --lang_exclude=rust --btf_base vmlinux xfs.ko (and pahole 1.31, +reproducible_build)"
	nice -n 10 "$btfstream" -J -j1 --btf_features=$F --btf_features=distilled_base --lang_exclude=rust --btf_base "$kernel" "$work/xfs-ours.ko" ||
		fail "btfstream failed on xfs.ko"
	LLVM_OBJCOPY=objcopy nice -n 10 "$pahole_ref" -J -j1 --btf_features=$F,reproducible_build --btf_features=distilled_base --lang_exclude=rust \
		--btf_base "$kernel" "$work/xfs-ref.ko" || fail "pahole failed on xfs.ko"
	"$btfstream" diff "$work/xfs-ours.ko" "$work/xfs-ref.ko" > "$work/xfs.diff" && verdict=equal || verdict=DIFFERENT
	for sec in .BTF .BTF.base; do
		objcopy --dump-section "$sec=$work/xo$sec" "$work/xfs-ours.ko" && objcopy --dump-section "$sec=$work/xr$sec" "$work/xfs-ref.ko" &&
			cmp -s "$work/xo$sec" "$work/xr$sec" && verdict="$verdict, $sec byte-identical"
	done
	echo "    btfstream diff vs pahole 1.31: xfs.ko with distilled_base ($(stat -c %s "$work/xo.BTF.base") bytes of .BTF.base): $verdict"
	case $verdict in equal*) ;; *) head -n 40 "$work/xfs.diff"; fail "xfs.ko differs from pahole 1.31" ;; esac
	rm -f "$work"/xfs-*.ko
fi

# --- 6. boot -------------------------------------------------------------------------
phase initramfs
ir=$work/initramfs
mkdir -p "$ir/bin"
{ kmake INSTALL_MOD_PATH="$ir" modules_install && kmake INSTALL_MOD_PATH="$ir" M="$oot" modules_install; } > "$work/install.log" 2>&1 ||
	{ cat "$work/install.log"; die "modules_install failed"; }
# insmod order: modules.order with each module's dependencies first, then
# the out-of-tree module.
{ cat "$obj/modules.order"; echo "btfstream_oot.o"; } | while read -r o; do
	modprobe -d "$ir" -S "$kver" --show-depends "$(basename "$o" .o)" | awk '$1 == "insmod" {print $2}'
done | sed "s#^$ir##" | awk '!seen[$0]++' > "$ir/modules.list"
[ "$(wc -l < "$ir/modules.list")" -eq $((nmod + 1)) ] || die "modules.list has $(wc -l < "$ir/modules.list") modules, want $((nmod + 1))"
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
} > "$work/initramfs.list"
"$obj/usr/gen_init_cpio" "$work/initramfs.list" | gzip -1 > "$work/initramfs.cpio.gz" || die "gen_init_cpio failed"
echo "initramfs: $(stat -c %s "$work/initramfs.cpio.gz") bytes, $(wc -l < "$ir/modules.list") modules"

phase boot
# TCG: KVM may be missing, and where /dev/kvm exists (nested) it may hang
# before the kernel prints anything, as seen here. BTFSTREAM_KBUILD_ACCEL=kvm
# to try it.
accel=(-accel "${BTFSTREAM_KBUILD_ACCEL:-tcg}")
echo "qemu-system-x86_64 ${accel[*]} -m 512M -kernel bzImage -initrd initramfs.cpio.gz -append 'console=ttyS0 panic=-1 rdinit=/init'"
timeout 900 nice -n 10 qemu-system-x86_64 "${accel[@]}" -m 512M -smp 1 -nographic -no-reboot -monitor none \
	-kernel "$obj/arch/x86/boot/bzImage" -initrd "$work/initramfs.cpio.gz" \
	-append "console=ttyS0 panic=-1 loglevel=4 rdinit=/init" \
	-device virtio-rng-pci < /dev/null > "$work/guest.log" 2>&1
qrc=$?
# (The first line follows the firmware's escape sequences on the same line.)
tr -d '\r' < "$work/guest.log" | grep -oE '(GUEST|btfload): .*' | tee "$work/guest.lines"
[ $qrc -eq 0 ] || { tail -n 30 "$work/guest.log"; fail "qemu exited with $qrc (124: timeout)"; }
g() { grep -c "$1" "$work/guest.lines"; }
[ "$(g '^GUEST: RESULT: PASS$')" -eq 1 ] || fail "the guest did not report PASS"
[ "$(g '^GUEST: /sys/kernel/btf/vmlinux: ')" -eq 1 ] || fail "no /sys/kernel/btf/vmlinux in the guest"
[ "$(g '^GUEST: insmod .*: loaded$')" -eq $((nmod + 1)) ] || fail "not every module loaded"
[ "$(g '^GUEST: /sys/kernel/btf/[a-z0-9_]*: [0-9]* bytes$')" -eq $((nmod + 2)) ] || fail "not every module has /sys/kernel/btf/<module>"
[ "$(g '^btfload: .*: accepted (')" -eq $((nmod + 2)) ] || fail "BPF_BTF_LOAD did not accept vmlinux and every module"
[ "$(g '^btfload: .*: rejected as it must be: ')" -eq $((nmod + 1)) ] || fail "BPF_BTF_LOAD did not reject every corrupted module"
grep -q '^btfload: btfstream_oot: accepted' "$work/guest.lines" || fail "the out-of-tree module's BTF (relocated from its .BTF.base) was not accepted"

finish
