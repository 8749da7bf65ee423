package outfile

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// openUnnamed opens an unnamed regular file in dir (O_TMPFILE) with
// permission bits perm less the umask. It fails where the kernel or the file system lacks
// O_TMPFILE, or where /proc is not mounted (linkFD needs /proc/self/fd to
// link without CAP_DAC_READ_SEARCH).
func openUnnamed(dir string, perm uint32) (*os.File, error) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		return nil, err
	}
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, perm)
	if err != nil {
		return nil, &os.PathError{Op: "open O_TMPFILE", Path: dir, Err: err}
	}
	return os.NewFile(uintptr(fd), dir), nil
}

// linkFD gives the unnamed file f the name path (EEXIST if it is taken).
func linkFD(f *os.File, path string) error {
	src := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	if err := unix.Linkat(unix.AT_FDCWD, src, unix.AT_FDCWD, path, unix.AT_SYMLINK_FOLLOW); err != nil {
		return &os.LinkError{Op: "link", Old: src, New: path, Err: err}
	}
	return nil
}

// FreeSpace returns the bytes an unprivileged user may still write on the
// file system holding path.
func FreeSpace(path string) (int64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return 0, &os.PathError{Op: "statfs", Path: path, Err: err}
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}
