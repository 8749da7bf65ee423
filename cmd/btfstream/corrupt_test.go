package main

// Corrupt-input regression test (issue 12): a fixed-seed generator makes a
// few hundred mutants of the small committed inputs in testdata/corrupt
// (an ELF object with DWARF, the same with .BTF, raw BTF, split BTF) and
// runs every subcommand that reads such a file on each. Every run must end
// in success or a clean error: the documented exit status, one line on
// stderr that names the user's file (never a temporary one), no panic, no
// hang, the input unchanged after a failed in-place run, and no file left
// behind. A success must write valid BTF.
//
// BTFSTREAM_CORRUPT_SHOW=1 go test -v -run TestCorruptInputs prints every
// error message, to review them.

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/elffile"
)

// mutant is one corrupted input.
type mutant struct {
	name string // how it was made, to reproduce a failure
	data []byte
}

// interesting are values that hit bounds checks.
func interesting(rng *rand.Rand, size int) uint64 {
	vals := []uint64{0, 1, 3, 4, 0x7f, 0x80, 0xff, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff,
		1<<63 - 1, 1 << 63, ^uint64(0), uint64(size), uint64(size) - 1, uint64(size) + 1}
	if rng.IntN(4) == 0 {
		return rng.Uint64() >> rng.IntN(64)
	}
	return vals[rng.IntN(len(vals))]
}

// fieldEdit is a place a targeted edit writes: offset and width.
type fieldEdit struct {
	what string
	off  int
	size int
}

// elfFields lists the header and section header fields of an ELF64 file.
func elfFields(data []byte) []fieldEdit {
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return nil
	}
	defer f.Close()
	fs := []fieldEdit{{"e_phoff", 32, 8}, {"e_shoff", 40, 8}, {"e_phentsize", 54, 2}, {"e_phnum", 56, 2},
		{"e_shentsize", 58, 2}, {"e_shnum", 60, 2}, {"e_shstrndx", 62, 2}, {"e_type", 16, 2}}
	shoff := int(binary.LittleEndian.Uint64(data[40:]))
	for i, s := range f.Sections {
		at := shoff + 64*i
		for _, fld := range []fieldEdit{{"sh_name", 0, 4}, {"sh_type", 4, 4}, {"sh_flags", 8, 8}, {"sh_offset", 24, 8},
			{"sh_size", 32, 8}, {"sh_link", 40, 4}, {"sh_info", 44, 4}, {"sh_entsize", 56, 8}} {
			fs = append(fs, fieldEdit{fmt.Sprintf("%s of [%d] %s", fld.what, i, s.Name), at + fld.off, fld.size})
		}
	}
	return fs
}

// btfFields lists raw BTF's header fields and its type section's words,
// at base (the offset of the BTF in the file).
func btfFields(data []byte, base int) []fieldEdit {
	if len(data) < base+btf.HeaderLen {
		return nil
	}
	b := data[base:]
	fs := []fieldEdit{{"btf hdr_len", 4, 4}, {"btf type_off", 8, 4}, {"btf type_len", 12, 4}, {"btf str_off", 16, 4},
		{"btf str_len", 20, 4}, {"btf version", 2, 1}, {"btf flags", 3, 1}}
	hdr := int(binary.LittleEndian.Uint32(b[4:]))
	toff, tlen := int(binary.LittleEndian.Uint32(b[8:])), int(binary.LittleEndian.Uint32(b[12:]))
	for w := 0; w+4 <= tlen && hdr+toff+w+4 <= len(b); w += 4 {
		fs = append(fs, fieldEdit{fmt.Sprintf("btf type word %#x", w), hdr + toff + w, 4})
	}
	for i := range fs {
		fs[i].off += base
	}
	return fs
}

// mutants returns n mutants of data made with rng: truncations, bit
// flips, zeroed and random ranges, and targeted edits of header fields.
func mutants(rng *rand.Rand, data []byte, fields []fieldEdit, n int) []mutant {
	var ms []mutant
	for len(ms) < n {
		d := append([]byte(nil), data...)
		var name string
		switch k := rng.IntN(6); {
		case k == 0:
			cut := rng.IntN(len(d))
			if rng.IntN(3) == 0 {
				cut = rng.IntN(min(len(d), 128))
			}
			d, name = d[:cut], fmt.Sprintf("truncated to %d", cut)
		case k == 1:
			var flips []string
			for i := 0; i < 1+rng.IntN(4); i++ {
				at, bit := rng.IntN(len(d)), rng.IntN(8)
				d[at] ^= 1 << bit
				flips = append(flips, fmt.Sprintf("%#x.%d", at, bit))
			}
			name = "bits flipped at " + strings.Join(flips, ",")
		case k == 2:
			at := rng.IntN(len(d))
			end := min(len(d), at+1+rng.IntN(64))
			clear(d[at:end])
			name = fmt.Sprintf("zeroed %#x..%#x", at, end)
		case k == 3:
			at := rng.IntN(len(d))
			end := min(len(d), at+1+rng.IntN(16))
			for i := at; i < end; i++ {
				d[i] = byte(rng.Uint32())
			}
			name = fmt.Sprintf("random bytes %#x..%#x", at, end)
		default:
			if len(fields) == 0 {
				continue
			}
			f := fields[rng.IntN(len(fields))]
			v := interesting(rng, len(data))
			switch f.size {
			case 1:
				d[f.off] = byte(v)
			case 2:
				binary.LittleEndian.PutUint16(d[f.off:], uint16(v))
			case 4:
				binary.LittleEndian.PutUint32(d[f.off:], uint32(v))
			case 8:
				binary.LittleEndian.PutUint64(d[f.off:], v)
			}
			name = fmt.Sprintf("%s = %#x", f.what, v)
		}
		if bytes.Equal(d, data) {
			continue
		}
		ms = append(ms, mutant{name, d})
	}
	return ms
}

// corruptRun is one command on a mutant.
type corruptRun struct {
	args  []string // "@" stands for the mutant's path, "@out" for an output path
	codes []int    // allowed exit statuses
	// inPlace: a failed run must leave the mutant as it was.
	inPlace bool
	// output: the run writes "@out" (raw BTF) on success, nothing on failure.
	output bool
	// differ: exit 1 is diff's "the BTFs differ", not an error.
	differ bool
}

func TestCorruptInputs(t *testing.T) {
	dir := filepath.Join("testdata", "corrupt")
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	abs := func(name string) string { p, _ := filepath.Abs(filepath.Join(dir, name)); return p }
	pointBTF, pointBTFo := abs("point.btf"), abs("point-btf.o")
	var btfSecOff int
	if f, err := elf.Open(pointBTFo); err == nil {
		btfSecOff = int(f.Section(".BTF").Offset)
		f.Close()
	}
	perInput := 100
	if testing.Short() {
		perInput = 20
	}
	rng := rand.New(rand.NewPCG(2026, 12))
	inputs := []struct {
		file   string
		fields func([]byte) []fieldEdit
		runs   []corruptRun
	}{
		{"point.o", elfFields, []corruptRun{
			{args: []string{"-q", "@"}, codes: []int{0, 1}, inPlace: true},
			{args: []string{"-j2", "--btf_encode_detached", "@out", "@"}, codes: []int{0, 1}, output: true},
		}},
		{"point-btf.o", func(d []byte) []fieldEdit { return append(elfFields(d), btfFields(d, btfSecOff)...) }, []corruptRun{
			{args: []string{"dump", "@"}, codes: []int{0, 1}},
			{args: []string{"dedup", "-q", "@", "-o", "@out"}, codes: []int{0, 1}, output: true},
			{args: []string{"diff", "-q", pointBTF, "@"}, codes: []int{0, 1, 2}, differ: true},
			{args: []string{"-J", "-q", "@"}, codes: []int{0, 1}, inPlace: true},
		}},
		{"point.btf", func(d []byte) []fieldEdit { return btfFields(d, 0) }, []corruptRun{
			{args: []string{"dump", "@"}, codes: []int{0, 1}},
			{args: []string{"dedup", "-q", "@", "-o", "@out"}, codes: []int{0, 1}, output: true},
			{args: []string{"diff", "-q", "@", pointBTF}, codes: []int{0, 1, 2}, differ: true},
			{args: []string{"dump", "--base", "@", abs("ext.btf")}, codes: []int{0, 1}},
			{args: []string{"--btf_base", "@", "--btf_encode_detached", "@out", abs("point.o")}, codes: []int{0, 1}, output: true},
		}},
		{"ext.btf", func(d []byte) []fieldEdit { return btfFields(d, 0) }, []corruptRun{
			{args: []string{"dump", "--base", pointBTF, "@"}, codes: []int{0, 1}},
			{args: []string{"dedup", "-q", "--base", pointBTF, "@", "-o", "@out"}, codes: []int{0, 1}, output: true},
			{args: []string{"diff", "-q", "--base", pointBTF, abs("ext.btf"), "@"}, codes: []int{0, 1, 2}, differ: true},
		}},
	}
	work := t.TempDir()
	total, runs := 0, 0
	outcomes := map[string]int{}
	for _, in := range inputs {
		data := read(in.file)
		for i, m := range mutants(rng, data, in.fields(data), perInput) {
			total++
			for _, r := range in.runs {
				runs++
				d := filepath.Join(work, fmt.Sprintf("%s-%d-%d", in.file, i, runs))
				os.Mkdir(d, 0o755)
				p := filepath.Join(d, in.file)
				out := filepath.Join(d, "out.btf")
				os.WriteFile(p, m.data, 0o644)
				args := make([]string, len(r.args))
				for j, a := range r.args {
					args[j] = strings.NewReplacer("@out", out, "@", p).Replace(a)
				}
				what := fmt.Sprintf("%s mutant %d (%s): btfstream %s", in.file, i, m.name, strings.Join(args, " "))
				code, errOut := runGuarded(t, what, args)
				if os.Getenv("BTFSTREAM_CORRUPT_SHOW") != "" && code != 0 {
					fmt.Fprintf(os.Stderr, "%s\n", errOut)
				}
				outcomes[fmt.Sprintf("%s exit %d", strings.Fields(strings.Join(r.args, " "))[0], code)]++
				check := func(ok bool, format string, a ...any) {
					if !ok {
						t.Errorf("%s: %s", what, fmt.Sprintf(format, a...))
					}
				}
				allowed := false
				for _, c := range r.codes {
					allowed = allowed || c == code
				}
				check(allowed, "exit %d, want one of %v; stderr %q", code, r.codes, errOut)
				if code != 0 && !(r.differ && code == 1) {
					lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
					check(len(lines) == 1 && strings.HasPrefix(lines[0], "btfstream: "), "stderr is not one 'btfstream: ' line: %q", errOut)
					named := false
					for _, a := range args {
						named = named || strings.Contains(a, "/") && strings.Contains(errOut, a)
					}
					check(named, "the error names none of the files: %q", errOut)
					check(!strings.Contains(errOut, ".btfstream-") && !strings.Contains(errOut, "/proc/self"), "the error names a temporary file: %q", errOut)
					if r.inPlace {
						b, _ := os.ReadFile(p)
						check(bytes.Equal(b, m.data), "a failed in-place run changed its input")
					}
				}
				_, outErr := os.Stat(out)
				switch {
				case r.output && code == 0:
					if outErr != nil {
						t.Errorf("%s: succeeded without writing %s", what, out)
					} else if _, err := loadSound(out, baseFor(t, args)); err != nil {
						t.Errorf("%s: wrote malformed BTF: %v", what, err)
					} else if _, err := loadValid(out, baseFor(t, args)); err != nil && !dedupOfInvalid(r, p, baseFor(t, args)) && !encodeOverInvalidBase(t, r, out, baseFor(t, args)) {
						// The encoder's output, and dedup's of valid input,
						// must load into the kernel.
						t.Errorf("%s: wrote invalid BTF: %v", what, err)
					}
				case outErr == nil:
					t.Errorf("%s: exit %d but %s was written", what, code, out)
				}
				ents, _ := os.ReadDir(d)
				var names []string
				for _, e := range ents {
					if e.Name() != in.file && !(e.Name() == "out.btf" && r.output && code == 0) {
						names = append(names, e.Name())
					}
				}
				sort.Strings(names)
				check(len(names) == 0, "left behind %v", names)
				os.RemoveAll(d)
			}
		}
	}
	var keys []string
	for k := range outcomes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var summary []string
	for _, k := range keys {
		summary = append(summary, fmt.Sprintf("%s: %d", k, outcomes[k]))
	}
	t.Logf("%d mutants, %d runs; %s", total, runs, strings.Join(summary, ", "))
}

// baseFor loads the base a run's output is split over: the file after
// --base or --btf_base, if any.
func baseFor(t *testing.T, args []string) *btf.Spec {
	for i, a := range args {
		if (a == "--base" || a == "--btf_base") && i+1 < len(args) {
			s, err := elffile.LoadBTF(args[i+1], nil)
			if err != nil {
				t.Fatalf("base of a successful run: %v", err)
			}
			return s
		}
	}
	return nil
}

// runGuarded runs the command in-process, turning a panic into a test
// failure that names the run, and a run that takes over a minute into a
// crash that names it.
func runGuarded(t *testing.T, what string, args []string) (code int, errOut string) {
	t.Helper()
	timer := time.AfterFunc(time.Minute, func() { panic("hung: " + what) })
	defer timer.Stop()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s: panic: %v", what, r)
			code = -1
		}
	}()
	code, _, errOut = runCaptured(args...)
	return code, errOut
}

// encodeOverInvalidBase reports whether run r is the encoder over a
// --btf_base that breaks the kernel verifier's rules (the encoder checks
// only the base's structure, and the kernel's rules on the base types its
// output reaches) and its output out passes the encoder's own check.
func encodeOverInvalidBase(t *testing.T, r corruptRun, out string, base *btf.Spec) bool {
	if base == nil || !slices.Contains(r.args, "--btf_base") || base.Validate() == nil {
		return false
	}
	s, err := elffile.LoadBTF(out, base)
	if err != nil {
		return false
	}
	if err := s.ValidateWith(btf.ValidateOptions{TrustBase: true}); err != nil {
		t.Errorf("%s: the encoder wrote what its own check refuses: %v", out, err)
	}
	return true
}

// dedupOfInvalid reports whether run r is dedup of an input that breaks
// the kernel verifier's rules: dedup accepts it (as libbpf does) and its
// output may break them too.
func dedupOfInvalid(r corruptRun, in string, base *btf.Spec) bool {
	if r.args[0] != "dedup" {
		return false
	}
	_, err := loadValid(in, base)
	return err != nil
}
