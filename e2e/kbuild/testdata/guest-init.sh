#!/bin/sh
# /init of the kbuild check's initramfs (busybox, run by scripts/kbuild-check.sh
# under qemu). Every line the host checks starts with "GUEST: " or
# "btfload: "; the last is "GUEST: RESULT: PASS" or "GUEST: RESULT: FAIL".
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
fail=0
say() { echo "GUEST: $*"; }
bad() { echo "GUEST: FAIL: $*"; fail=1; }

say "kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPU"
if [ -s /sys/kernel/btf/vmlinux ]; then
	say "/sys/kernel/btf/vmlinux: $(wc -c < /sys/kernel/btf/vmlinux) bytes"
else
	bad "no /sys/kernel/btf/vmlinux"
fi

# /modules.list: the .ko files, dependencies first, the out-of-tree one last.
btfs=
while read -r ko; do
	name=$(basename "$ko" .ko | tr - _)
	if ! insmod "$ko"; then
		bad "insmod $ko"
		continue
	fi
	say "insmod $name: loaded"
	if [ -s "/sys/kernel/btf/$name" ]; then
		say "/sys/kernel/btf/$name: $(wc -c < "/sys/kernel/btf/$name") bytes"
		btfs="$btfs /sys/kernel/btf/$name"
	else
		bad "no /sys/kernel/btf/$name"
	fi
done < /modules.list

# The kernel's full verifier: vmlinux alone, each module merged with it,
# and each module corrupted (the negative control: must be rejected).
/btfload /sys/kernel/btf/vmlinux || fail=1
/btfload -base /sys/kernel/btf/vmlinux $btfs || fail=1
/btfload -base /sys/kernel/btf/vmlinux -corrupt $btfs || fail=1

dmesg | grep -iE 'btf|relocat|taint|warn|bug' | sed 's/^/GUEST: dmesg: /'
say "uptime $(cut -d' ' -f1 /proc/uptime)s"
if [ $fail = 0 ]; then say "RESULT: PASS"; else say "RESULT: FAIL"; fi
sync
reboot -f
