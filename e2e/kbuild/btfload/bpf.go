//go:build linux

package main

import (
	"bytes"
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// btfLoadAttr is union bpf_attr's BPF_BTF_LOAD member as of Linux 6.12
// (include/uapi/linux/bpf.h): no field names a base BTF.
type btfLoadAttr struct {
	btf         uint64
	logBuf      uint64
	size        uint32
	logSize     uint32
	logLevel    uint32
	logTrueSize uint32
	flags       uint32
	tokenFD     int32
}

const bpfBTFLoad = 18 // enum bpf_cmd BPF_BTF_LOAD

// loadResult is the kernel's verdict on one BTF.
type loadResult struct {
	err     error  // nil: accepted
	lastLog string // the verifier log's last line, on rejection
}

// load passes raw to BPF_BTF_LOAD. The kernel logs every type it checks
// when asked for a log, so the first attempt asks for none; a rejected
// BTF is loaded again with a log (kept rotating, so its tail, where the
// error is, survives a small buffer).
func load(raw []byte) loadResult {
	fd, err := btfLoad(raw, nil)
	if err == nil {
		unix.Close(fd)
		return loadResult{}
	}
	log := make([]byte, 1<<16)
	if fd, err2 := btfLoad(raw, log); err2 == nil {
		unix.Close(fd)
		return loadResult{err: fmt.Errorf("%w (accepted when loaded again with a log)", err)}
	}
	log = bytes.TrimRight(log[:max(0, bytes.IndexByte(log, 0))], "\n")
	if i := bytes.LastIndexByte(log, '\n'); i >= 0 {
		log = log[i+1:]
	}
	return loadResult{err: err, lastLog: string(log)}
}

func btfLoad(raw, log []byte) (int, error) {
	attr := btfLoadAttr{btf: uint64(uintptr(unsafe.Pointer(&raw[0]))), size: uint32(len(raw))}
	if log != nil {
		attr.logBuf = uint64(uintptr(unsafe.Pointer(&log[0])))
		attr.logSize = uint32(len(log))
		attr.logLevel = 1
	}
	fd, _, errno := unix.Syscall(unix.SYS_BPF, bpfBTFLoad, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr))
	if errno != 0 {
		return -1, syscall.Errno(errno)
	}
	return int(fd), nil
}
