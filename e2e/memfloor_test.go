package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestMemFloorWorks (issue 12): the floor `btfstream --mem-floor` prints
// for the vmlinux and for xfs.ko is the value a smaller --mem-limit is
// refused with, and an encoding at exactly that limit succeeds with the
// same bytes as one without a limit. For Debian's 6.12 cloud vmlinux
// (kernel612) it is also the example --help quotes.
func TestMemFloorWorks(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	kernel := kernel612(t)
	bin := btfstreamBin(t)
	kos, _ := kernelModules(kernel)
	cases := [][]string{{kernel}}
	for _, ko := range kos {
		if filepath.Base(ko) == "xfs.ko" {
			cases = append(cases, []string{"--btf_base", kernel, ko})
		}
	}
	dir := t.TempDir()
	for _, in := range cases {
		name := filepath.Base(in[len(in)-1])
		t.Run(name, func(t *testing.T) {
			run := func(args ...string) (string, string, error) {
				var out, errOut bytes.Buffer
				cmd := exec.Command(bin, append(append(args, "-j1", "--btf_features="+kbuildFeatures, "--lang_exclude=rust"), in...)...)
				cmd.Stdout, cmd.Stderr = &out, &errOut
				err := cmd.Run()
				return out.String(), errOut.String(), err
			}
			out, errOut, err := run("--mem-floor")
			floor := strings.TrimSpace(out)
			mib, perr := strconv.Atoi(strings.TrimSuffix(floor, "M"))
			if err != nil || perr != nil || !strings.HasSuffix(floor, "M") {
				t.Fatalf("--mem-floor: %v %q %s", err, out, errOut)
			}
			t.Logf("floor %s", floor)
			if name == filepath.Base(kernel) && strings.Contains(name, "6.12") && strings.Contains(name, "cloud-amd64") {
				help, _, _ := run("--help")
				if !strings.Contains(help, "Debian's 6.12 cloud vmlinux: "+floor+" at -j1") {
					t.Errorf("--help does not quote the floor %s", floor)
				}
			}
			below := fmt.Sprintf("%dM", mib-1)
			_, errOut, err = run("--mem-limit", below, "--btf_encode_detached", filepath.Join(dir, "below.btf"))
			if err == nil || !strings.Contains(errOut, "use --mem-limit "+floor+" or more") {
				t.Errorf("--mem-limit %s: %v, %q; want a refusal quoting %s", below, err, errOut, floor)
			}
			atFloor, unlimited := filepath.Join(dir, name+".floor.btf"), filepath.Join(dir, name+".btf")
			_, errOut, err = run("--mem-limit", floor, "--summary", "--btf_encode_detached", atFloor)
			if err != nil {
				t.Fatalf("--mem-limit %s: %v\n%s", floor, err, errOut)
			}
			t.Logf("at the floor: %s", strings.TrimSpace(errOut))
			if _, errOut, err = run("--mem-limit", "0", "--btf_encode_detached", unlimited); err != nil {
				t.Fatalf("no limit: %v\n%s", err, errOut)
			}
			a, _ := os.ReadFile(atFloor)
			b, _ := os.ReadFile(unlimited)
			if len(a) == 0 || !bytes.Equal(a, b) {
				t.Errorf("output at the floor (%d bytes) differs from the unlimited one (%d bytes)", len(a), len(b))
			}
		})
	}
}

// kernel612 returns the kernel the signal and memory-floor tests run on:
// Debian's 6.12 cloud-amd64 vmlinux from BTFSTREAM_KERNELS (the example
// --help quotes; its encodes take half as long as 7.2's, and these tests
// run dozens), else BTFSTREAM_KERNEL.
func kernel612(t *testing.T) string {
	t.Helper()
	for _, k := range filepath.SplitList(os.Getenv("BTFSTREAM_KERNELS")) {
		if tag := kernelTag(k); strings.HasPrefix(tag, "6.12.") && strings.HasSuffix(tag, "cloud-amd64") {
			return k
		}
	}
	t.Logf("no 6.12 cloud-amd64 kernel in BTFSTREAM_KERNELS: using BTFSTREAM_KERNEL")
	return kernelPath(t)
}
