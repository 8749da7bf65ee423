package main

import "golang.org/x/sys/unix"

// isTerminal reports whether fd is a terminal (it answers TCGETS; a
// character device such as /dev/null does not).
func isTerminal(fd int) bool {
	_, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	return err == nil
}
