package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/elffile"
)

// TestMain lets tests run the command in a child process: the test binary
// with BTFSTREAM_TEST_MAIN=1 in its environment is btfstream (os.Args[1:]
// are the command's arguments), with its signal handling.
func TestMain(m *testing.M) {
	switch os.Getenv("BTFSTREAM_TEST_MAIN") {
	case "1":
		main()
	case "hold":
		holdOutput() // signals_test.go
	}
	os.Exit(m.Run())
}

// startSelf starts the test binary as a child with cmd's settings. Under
// `go test -exec qemu-arm` the host cannot run the binary itself (no
// binfmt_misc), so it is started through qemu-GOARCH as go test did.
func startSelf(cmd *exec.Cmd) error {
	err := cmd.Start()
	if !errors.Is(err, syscall.ENOEXEC) {
		return err
	}
	qemu, lerr := exec.LookPath("qemu-" + map[string]string{"386": "i386", "amd64": "x86_64", "arm64": "aarch64"}[runtime.GOARCH])
	if runtime.GOARCH == "arm" {
		qemu, lerr = exec.LookPath("qemu-arm")
	}
	if lerr != nil {
		return err
	}
	again := exec.Command(qemu, append([]string{os.Args[0]}, cmd.Args[1:]...)...)
	again.Env, again.Stdin, again.Stdout, again.Stderr = cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr
	*cmd = *again
	return cmd.Start()
}

// loadValid loads path's BTF over base and checks it with the kernel
// verifier's rules too (btf.Spec.Validate, the base included): what tests
// ask of the encoder's output.
func loadValid(path string, base *btf.Spec) (*btf.Spec, error) {
	s, err := elffile.LoadBTF(path, base)
	if err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}
