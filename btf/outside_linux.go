package btf

import "syscall"

// noHugePages asks the kernel not to back b with transparent huge pages.
// A sparse base reserves its arrays at the most the section could need
// and writes only a part: with THP set to "always" a first write could
// make a whole 2 MiB page resident. Advice only: an error changes nothing.
func noHugePages(b []byte) {
	_ = syscall.Madvise(b, syscall.MADV_NOHUGEPAGE)
}
