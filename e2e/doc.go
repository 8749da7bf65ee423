// Package e2e holds end-to-end tests of btfstream against real kernels.
// It has no code outside its tests.
//
// The tests skip unless BTFSTREAM_KERNEL names a vmlinux with DWARF, such
// as the one scripts/e2e-kernel.sh fetches (cloud-amd64 has its own .BTF
// to compare with; armmp has none, so only pahole 1.31's output is):
//
//	BTFSTREAM_KERNEL=$(sh ../shared/testdata/kernel-dbg.sh cloud-amd64) go test ./e2e/ -v
//
// Optional variables:
//
//	BTFSTREAM_REF131  raw BTF of the same vmlinux made by pahole 1.31
//	                  (default /tmp/ref/amd64-pahole131.btf or
//	                  /tmp/ref/armmp-pahole131.btf when present)
//	BTFSTREAM_BIN     a built btfstream to test (default: go build)
//	BTFSTREAM_ELF_WRITE=1  also copy the vmlinux (~350 MB) to a temporary
//	                  directory and exercise the in-place .BTF writer on it
//
// What is compared: the kernel's own .BTF was made by Debian with pahole
// 1.30; btfstream follows pahole 1.31, whose function selection differs.
// Nothing is recorded per kernel: the test derives from the ELF symbol
// table which functions 1.31 must leave out (names at several addresses),
// may leave out (functions with compiler clones) and must keep (the rest),
// and allows only those FUNCs, and the FUNC_PROTOs only they use, to be
// missing; any other difference fails (checkAgainst130). The same check
// is first run on pahole 1.31's own output when it is available, which
// tests the harness.
package e2e
