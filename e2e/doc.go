// Package e2e holds end-to-end tests of btfstream against real kernels and
// the reference pahole 1.31, run live. It has no code outside its tests
// (and testenv, which finds the inputs for any package's tests).
//
// scripts/test.sh fetches the kernels and sets the variables; by hand:
//
//	k1=$(sh ../shared/testdata/kernel-dbg.sh cloud-amd64)                      # trixie, 6.12, GCC 14
//	k2=$(sh ../shared/testdata/kernel-dbg.sh --release bookworm cloud-amd64)   # bookworm, 6.1, GCC 12
//	BTFSTREAM_KERNELS=$k1:$k2 BTFSTREAM_KERNEL=$k1 go test ./e2e/ -v
//
// The gate is TestReferencePahole: on every kernel of BTFSTREAM_KERNELS,
// the vmlinux and every .ko beside it (kernel-dbg.sh extracts xfs,
// nf_tables, sctp, tcp_bbr and virtio_net) are encoded by the reference
// pahole 1.31 and by btfstream with kbuild's flags, and `btfstream diff`
// must find them equal: no allowed differences. The log shows the types
// per kind of both side by side, and wall time and peak RSS of each
// vmlinux run next to pahole's. Each btfstream run has a timeout derived
// from the reference's time on the same input (3x plus a minute; BTFSTREAM_RUN_TIMEOUT
// overrides it), so a run that does not finish fails instead of hanging.
//
// Extras on BTFSTREAM_KERNEL alone (a trixie kernel, whose own .BTF Debian
// made with pahole 1.30): TestKernelEncode and TestKernelReferenceDiff
// check that btfstream's and pahole 1.31's output differ from that .BTF
// only as 1.31's function selection explains, derived from the ELF symbol
// table (checkAgainst130); TestKernelModules encodes each module in place
// as kbuild does; TestKernelELFWriter (BTFSTREAM_ELF_WRITE=1) rewrites
// .BTF in a copy of the vmlinux.
//
// Other variables: BTFSTREAM_BIN (a built btfstream; default go build),
// BTFSTREAM_PAHOLE and BTFSTREAM_SHARED (see testenv). Without kernels or
// the reference the tests skip, and under CI=true they fail.
package e2e
