package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/btfstream/btfstream/stream/outfile"
)

// holdOutput is the child of TestSignalCleanup: it replaces $HOLD_PATH
// through outfile (named if $HOLD_NAMED is set, as without O_TMPFILE),
// writes part of it, says "ready" and waits for a signal.
func holdOutput() {
	exitOnSignal()
	if os.Getenv("HOLD_NAMED") != "" {
		outfile.SetNamedForTest()
	}
	o, err := outfile.Create(os.Getenv("HOLD_PATH"))
	if err != nil {
		println(err.Error())
		os.Exit(3)
	}
	o.Write([]byte("partial output"))
	os.Stdout.WriteString("ready\n")
	time.Sleep(time.Minute)
	os.Exit(4)
}

// TestSignalCleanup: SIGINT, SIGTERM and SIGHUP while an output is being
// written exit with 128+signo and leave the path as it was with nothing
// beside it, for unnamed and named temporary files; SIGKILL does too with
// an unnamed one.
func TestSignalCleanup(t *testing.T) {
	for _, c := range []struct {
		sig   syscall.Signal
		named bool
	}{
		{syscall.SIGINT, false}, {syscall.SIGTERM, false}, {syscall.SIGHUP, false},
		{syscall.SIGINT, true}, {syscall.SIGTERM, true}, {syscall.SIGHUP, true},
		{syscall.SIGKILL, false},
	} {
		name := c.sig.String()
		if c.named {
			name += ", named"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "in.ko")
			os.WriteFile(p, []byte("input"), 0o644)
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), "BTFSTREAM_TEST_MAIN=hold", "HOLD_PATH="+p)
			if c.named {
				cmd.Env = append(cmd.Env, "HOLD_NAMED=1")
			}
			pr, pw, _ := os.Pipe()
			cmd.Stdout = pw
			var errOut strings.Builder
			cmd.Stderr = &errOut
			err := startSelf(cmd)
			pw.Close()
			out := pr
			defer pr.Close()
			if err != nil {
				t.Fatal(err)
			}
			if line, _ := bufio.NewReader(out).ReadString('\n'); line != "ready\n" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("child: %q %s", line, errOut.String())
			}
			if ents, _ := os.ReadDir(dir); c.named != (len(ents) == 2) {
				t.Errorf("while writing: %d entries (named temporary file expected: %v)", len(ents), c.named)
			}
			cmd.Process.Signal(c.sig)
			cmd.Wait()
			st := cmd.ProcessState.Sys().(syscall.WaitStatus)
			switch {
			case c.sig == syscall.SIGKILL && !(st.Signaled() && st.Signal() == syscall.SIGKILL):
				t.Errorf("status %v", cmd.ProcessState)
			case c.sig != syscall.SIGKILL && st.ExitStatus() != 128+int(c.sig):
				t.Errorf("exit status %d, want %d (%s)", st.ExitStatus(), 128+int(c.sig), errOut.String())
			}
			if b, _ := os.ReadFile(p); string(b) != "input" {
				t.Errorf("the path changed: %q", b)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 1 {
				t.Errorf("left behind: %v", ents)
			}
		})
	}
}
