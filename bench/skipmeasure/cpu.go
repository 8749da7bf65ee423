package main

import (
	"runtime"
	"syscall"
	"time"
)

// threadCPU is this thread's user+system CPU time (main locks its
// goroutine to its thread): on a loaded host wall time is noise.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func init() { runtime.LockOSThread() }
