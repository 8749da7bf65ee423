// Package e2e holds end-to-end tests of btfstream against real kernels and
// the reference pahole 1.32, run live. It has no code outside its tests
// (and testenv, which finds the inputs for any package's tests).
//
// scripts/test.sh fetches the kernels and sets the variables; by hand:
//
//	k72=$(sh ../shared/testdata/kernel-dbg.sh --release sid cloud-amd64)      # unstable, 7.2, GCC 16
//	k612=$(sh ../shared/testdata/kernel-dbg.sh cloud-amd64)                   # trixie, 6.12, GCC 14
//	k61=$(sh ../shared/testdata/kernel-dbg.sh --release bookworm cloud-amd64) # bookworm, 6.1, GCC 12
//	karm=$(sh ../shared/testdata/kernel-dbg.sh --release bookworm armmp)      # bookworm, 6.1, 32-bit ARM
//	BTFSTREAM_KERNELS=$k72:$k612:$k61:$karm BTFSTREAM_KERNEL=$k72 go test ./e2e/ -v
//
// The gate is TestReferencePahole: on every kernel of BTFSTREAM_KERNELS,
// the vmlinux and five modules beside it (gateModules: xfs, nf_tables,
// sctp, tcp_bbr, virtio_net, which kernel-dbg.sh extracts) are encoded by
// the reference pahole 1.32 and by btfstream with kbuild's flags, and
// `btfstream diff` must find them equal: no allowed differences. Modules
// are compared over the reference's vmlinux BTF (`diff --base`); pahole
// 1.32 leaves copies of base types in modules, which the log counts
// (baseCopies) and btfstream's output must not have. On kernels 6.12 and
// later the vmlinux is also encoded with true_signature and
// force_cu_merging. The log shows the types per kind of both side by side,
// and wall time and peak RSS of each vmlinux run next to pahole's. Each
// btfstream run has a timeout derived from the reference's time on the
// same input (3x plus a minute; BTFSTREAM_RUN_TIMEOUT overrides it), so a
// run that does not finish fails instead of hanging.
//
// Extras on BTFSTREAM_KERNEL alone, a Linux 7.x kernel whose own .BTF
// Debian's build made with pahole 1.32 and then resolve_btfids changed: a
// second reference, independent of running pahole here. TestKernelOwnBTF
// checks that pahole 1.32 run here with Linux 7.2's features gives that
// .BTF, for the vmlinux and the five modules, but for what resolve_btfids
// changes (checkOwnBTF); TestKernelEncode checks btfstream's vmlinux the
// same way; TestKernelModules encodes each module in place as kbuild 6.12
// did and checks it the same way; TestKernelELFWriter
// (BTFSTREAM_ELF_WRITE=1) rewrites .BTF in a copy of the vmlinux.
//
// Other variables: BTFSTREAM_BIN (a built btfstream; default go build),
// BTFSTREAM_PAHOLE and BTFSTREAM_SHARED (see testenv). Without kernels or
// the reference the tests skip, and under CI=true they fail.
package e2e
