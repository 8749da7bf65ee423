package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/btfstream/btfstream/stream/outfile"
)

// exitOnSignal makes SIGINT, SIGTERM and SIGHUP end the process cleanly:
// outfile's named temporary files are removed (an output being written
// through an unnamed file needs nothing: it vanishes with the process; an
// output being renamed into place finishes first), one line goes to
// stderr, and the exit status is the conventional 128+signo (130 for
// Ctrl-C, 143 for SIGTERM). Spill files are unlinked when created, and the
// input is only ever replaced by the final rename, so nothing else needs
// undoing.
func exitOnSignal() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		s := <-c
		outfile.Cleanup()
		showProgress(nil)
		fmt.Fprintf(os.Stderr, "btfstream: stopped by %v\n", s)
		os.Exit(128 + int(s.(syscall.Signal)))
	}()
}
