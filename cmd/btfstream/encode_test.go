package main

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "4096": 4096, "64k": 64 << 10, "64K": 64 << 10, "512M": 512 << 20, "512MiB": 512 << 20,
		"2G": 2 << 30, "2gb": 2 << 30, "1T": 1 << 40,
	} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "x", "-1", "1.5G", "99999999999999999999", "9000000000G"} {
		if _, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) accepted", in)
		}
	}
}

func TestEncodeUsage(t *testing.T) {
	if code := runEncode("", []string{"--version"}); code != 0 {
		t.Errorf("--version: exit %d", code)
	}
	if code := runEncode("", []string{"/nonexistent/x.o"}); code != 1 {
		t.Errorf("no -J, missing file: exit %d, want 1", code)
	}
	if code := runEncode("", []string{"-J"}); code != 2 {
		t.Errorf("no file: exit %d, want 2", code)
	}
	if code := runEncode("", []string{"-J", "--mem-limit", "lots", "x.o"}); code != 2 {
		t.Errorf("bad --mem-limit: exit %d, want 2", code)
	}
	if code := runEncode("", []string{"-J", "/nonexistent/vmlinux"}); code != 1 {
		t.Errorf("missing input: exit %d, want 1", code)
	}
}

// fixtureC needs no headers (no gcc-multilib here).
const fixtureC = `
struct point { int x; long y; unsigned char tag[3]; };
struct point origin;
int sum(struct point *p) { return p->x + (int)p->y; }
`

// TestEncodeELF runs the encode command on gcc-built objects of three
// targets: `btfstream FILE` adds .BTF in the file's byte order and a second
// run, with -J, leaves the file as it was; --btf_encode_detached writes the same bytes.
func TestEncodeELF(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "point.c")
	os.WriteFile(src, []byte(fixtureC), 0o644)
	for _, c := range []struct {
		name, cc string
		args     []string
		order    binary.ByteOrder
	}{
		{"x86_64", "gcc", nil, binary.LittleEndian},
		{"i386", "gcc", []string{"-m32"}, binary.LittleEndian},
		{"s390x", "s390x-linux-gnu-gcc", nil, binary.BigEndian},
	} {
		t.Run(c.name, func(t *testing.T) {
			obj := filepath.Join(dir, c.name+".o")
			if _, err := exec.LookPath(c.cc); err != nil {
				t.Skipf("no %s", c.cc)
			}
			args := append(append([]string{"-g", "-c"}, c.args...), "-o", obj, src)
			if out, err := exec.Command(c.cc, args...).CombinedOutput(); err != nil {
				t.Skipf("%s: %v\n%s", c.cc, err, out)
			}
			// No -J: btfstream FILE encodes in place, as -J does.
			if code := runEncode("", []string{"-q", obj}); code != 0 {
				if _, _, err := stream.EncodeFile(obj, stream.DefaultEncodeOptions()); err != nil && strings.Contains(err.Error(), "not implemented") {
					t.Skip("encoder not implemented yet")
				}
				t.Fatalf("-J: exit %d", code)
			}
			first, _ := os.ReadFile(obj)
			if out, err := exec.Command("readelf", "-lSW", obj).CombinedOutput(); err != nil || bytes.Contains(out, []byte("Warning")) {
				t.Fatalf("readelf: %v\n%s", err, out)
			}
			ef, err := elf.Open(obj)
			if err != nil {
				t.Fatal(err)
			}
			sec, _ := ef.Section(".BTF").Data()
			ef.Close()
			if len(sec) < 2 || c.order.Uint16(sec) != btf.Magic {
				t.Fatalf(".BTF does not start with the magic in the file's byte order")
			}
			if code := runEncode("", []string{"-J", obj}); code != 0 {
				t.Fatalf("second -J: exit %d", code)
			}
			if again, _ := os.ReadFile(obj); !bytes.Equal(first, again) {
				t.Errorf("second -J changed the file")
			}
			raw := filepath.Join(dir, c.name+".btf")
			if code := runEncode("", []string{"--btf_encode_detached", raw, obj}); code != 0 {
				t.Fatalf("detached: exit %d", code)
			}
			if b, _ := os.ReadFile(raw); !bytes.Equal(b, sec) {
				t.Errorf("detached BTF differs from the .BTF section")
			}
		})
	}
}

func TestEncodeBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "trunc.o")
	os.WriteFile(bad, []byte("\x7fELF\x02\x01\x01"), 0o644)
	if code := runEncode("", []string{"-J", bad}); code != 1 {
		t.Errorf("truncated ELF: exit %d, want 1", code)
	}
	if b, _ := os.ReadFile(bad); string(b) != "\x7fELF\x02\x01\x01" {
		t.Errorf("input changed")
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".*")); len(m) > 0 {
		t.Errorf("left behind: %v", m)
	}
}

// TestEncodeOutputCheckedFirst: an output directory that is missing (or a
// file) is reported before any encoding, naming the output.
func TestEncodeOutputCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	elfFile := filepath.Join(dir, "prog")
	self, _ := os.ReadFile(os.Args[0]) // any ELF file passes the input check
	os.WriteFile(elfFile, self, 0o755)
	for _, out := range []string{filepath.Join(dir, "missing", "x.btf"), filepath.Join(elfFile, "x.btf")} {
		code, _, errOut := runCaptured("--btf_encode_detached", out, elfFile)
		if code != 1 || !strings.HasPrefix(errOut, "btfstream: "+out+": ") {
			t.Errorf("%s: exit %d, %q", out, code, errOut)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left %v", ents)
	}
}

// TestMemFloorQuoted: --mem-floor prints the floor, a limit 1M below it is
// refused before encoding with an error quoting that same value, and the
// floor itself works.
func TestMemFloorQuoted(t *testing.T) {
	dir := t.TempDir()
	src, _ := os.ReadFile(filepath.Join("testdata", "corrupt", "point.o"))
	obj := filepath.Join(dir, "point.o")
	os.WriteFile(obj, src, 0o644)
	for _, jobs := range []string{"-j1", "-j3"} {
		code, out, errOut := runCaptured("--mem-floor", jobs, obj)
		floor, err := parseSize(strings.TrimSpace(out))
		if code != 0 || err != nil || floor < 1<<20 {
			t.Fatalf("--mem-floor %s: exit %d, %q %q", jobs, code, out, errOut)
		}
		below := fmt.Sprintf("%dM", floor>>20-1)
		code, _, errOut = runCaptured("--mem-limit", below, jobs, "--btf_encode_detached", filepath.Join(dir, "x.btf"), obj)
		if want := "use --mem-limit " + strings.TrimSpace(out) + " or more"; code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("--mem-limit %s %s: exit %d, %q; want it to say %q", below, jobs, code, errOut, want)
		}
		if code, _, errOut := runCaptured("--mem-limit", strings.TrimSpace(out), jobs, "--btf_encode_detached", filepath.Join(dir, "x.btf"), obj); code != 0 {
			t.Errorf("--mem-limit %s %s (the floor): exit %d, %s", out, jobs, code, errOut)
		}
	}
}
