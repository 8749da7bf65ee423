package dedup

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/e2e/testenv"
)

// libbpfDedup runs libbpf's btf__dedup (testdata/libbpf_dedup.c, built
// with cc against Debian's libbpf-dev) in one helper process. The helper
// runs on the libbpf the reference pahole 1.32 runs on (1.7.0, in
// shared/reference/pahole-1.32/lib, through that folder's loader), since
// that is the dedup whose output the encoder must equal; Debian 12's own
// libbpf 1.1 predates the handling of recursive typedefs (it fails with
// ELOOP on a typedef that reaches itself without a struct). The API used
// is the same in both. Outside CI a missing compiler, libbpf-dev or
// reference skips the test; under CI=true it fails.
type libbpfDedup struct {
	cmd *exec.Cmd
	in  *bufio.Writer
	out *bufio.Reader
}

// buildLibbpfHelper compiles testdata/libbpf_dedup.c into dir.
func buildLibbpfHelper(dir string) (string, error) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		return "", fmt.Errorf("no C compiler (cc): %v", err)
	}
	bin := filepath.Join(dir, "libbpf_dedup")
	out, err := exec.Command(cc, "-O1", "-o", bin, "testdata/libbpf_dedup.c", "-lbpf").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("cc testdata/libbpf_dedup.c -lbpf (apt-get install libbpf-dev): %v\n%s", err, out)
	}
	return bin, nil
}

// startLibbpf starts the helper on pahole 1.32's libbpf 1.7.0.
func startLibbpf(t *testing.T) *libbpfDedup {
	t.Helper()
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "386" {
		// The reference's libraries are x86-64 ones (test.sh's arm step
		// runs under qemu-arm): nothing here can run them.
		t.Skipf("libbpf's dedup runs beside x86 builds only (GOARCH %s)", runtime.GOARCH)
	}
	bin, err := buildLibbpfHelper(t.TempDir())
	if err != nil {
		testenv.Missing(t, "%v", err)
		return nil
	}
	lib := filepath.Join(testenv.SharedDir(t), "reference", "pahole-1.32", "lib")
	loader := filepath.Join(lib, "ld-linux-x86-64.so.2")
	if _, err := os.Stat(filepath.Join(lib, "libbpf.so.1")); testenv.SharedDir(t) == "" || err != nil {
		testenv.Missing(t, "no libbpf of the reference pahole 1.32 in %s", lib)
		return nil
	}
	cmd := exec.Command(loader, "--library-path", lib, bin)
	w, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	r, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	l := &libbpfDedup{cmd: cmd, in: bufio.NewWriter(w), out: bufio.NewReader(r)}
	t.Cleanup(func() { w.Close(); cmd.Wait() })
	return l
}

// dedup deduplicates s (split over s.Base() if it has one) with libbpf
// and returns the result parsed over the same base.
func (l *libbpfDedup) dedup(s *btf.Spec) (*btf.Spec, error) {
	var baseRaw []byte
	if s.Base() != nil {
		baseRaw = s.Base().Marshal()
	}
	raw := s.Marshal()
	for _, b := range [][]byte{baseRaw, raw} {
		binary.Write(l.in, binary.LittleEndian, uint32(len(b)))
		l.in.Write(b)
	}
	if err := l.in.Flush(); err != nil {
		return nil, err
	}
	var hdr [2]int32
	if err := binary.Read(l.out, binary.LittleEndian, &hdr); err != nil {
		return nil, fmt.Errorf("libbpf helper: %v", err)
	}
	out := make([]byte, uint32(hdr[1]))
	if _, err := io.ReadFull(l.out, out); err != nil {
		return nil, fmt.Errorf("libbpf helper: %v", err)
	}
	if hdr[0] != 0 {
		return nil, fmt.Errorf("libbpf: error %d", hdr[0])
	}
	return btf.Parse(out, s.Base())
}

// sameAsLibbpf compares btfstream's dedup of s with libbpf's: "" when
// they are the same types in the same order, "order" when they are the
// same type graph in another order, "typedef bug" (onlyBaseTypedefCopies),
// else a description of the difference. The order differs only where an
// input holds two identical types in one unit (the generator's universe
// may have two pointers to long): btfstream keeps the first in id order,
// libbpf the one its depth-first walk of reference types reaches first.
func sameAsLibbpf(l *libbpfDedup, s *btf.Spec) (string, error) {
	ours, _, err := Dedup(s)
	if err != nil {
		return "", fmt.Errorf("btfstream: %v", err)
	}
	theirs, err := l.dedup(s)
	if err != nil {
		return "", err
	}
	a, b := strings.Join(dump(ours), "\n"), strings.Join(dump(theirs), "\n")
	if a == b {
		return "", nil
	}
	c, err := Compare(ours, theirs)
	if err != nil {
		return "", err
	}
	if c.Equal() {
		return "order", nil
	}
	if s.Base() != nil && onlyBaseTypedefCopies(ours, theirs) {
		return "typedef bug", nil
	}
	return fmt.Sprintf("input:\n\t%s\nbtfstream:\n\t%s\nlibbpf:\n\t%s",
		strings.Join(dump(s), "\n\t"), strings.ReplaceAll(a, "\n", "\n\t"), strings.ReplaceAll(b, "\n", "\n\t")), nil
}

// onlyBaseTypedefCopies reports whether libbpf's split result theirs
// differs from ours only by libbpf 1.7.0's bug with typedefs over a base
// (fixed by libbpf 5b0f3729, April 2026; pahole 1.32 as Debian builds it
// has it): btf_dedup_prep hashes base typedefs unlike
// btf_dedup_struct_type, so no split typedef folds onto a base typedef,
// and neither does anything that refers to one. It holds when
// deduplicating theirs again gives ours type for type, and every type
// that this folds is a TYPEDEF or refers to a type it folds.
func onlyBaseTypedefCopies(ours, theirs *btf.Spec) bool {
	again, r, err := Dedup(theirs)
	if err != nil || strings.Join(dump(again), "\n") != strings.Join(dump(ours), "\n") {
		return false
	}
	first := theirs.FirstID()
	folded := make([]bool, theirs.Len())
	seen := map[btf.TypeID]bool{}
	for id := first; id < theirs.NextID(); id++ {
		m := r.Map(id)
		folded[id-first] = m < first || seen[m]
		seen[m] = true
	}
	for id := first; id < theirs.NextID(); id++ {
		if !folded[id-first] || theirs.Kind(id) == btf.KindTypedef {
			continue
		}
		viaFolded := false
		theirs.ForEachRef(id, func(ref *uint32) {
			if x := btf.TypeID(*ref); x >= first && folded[x-first] {
				viaFolded = true
			}
		})
		if !viaFolded {
			return false
		}
	}
	return true
}

// TestDedupLikeLibbpf is the differential test: a fixed-seed generator
// (libbpfgen_test.go) makes small random inputs, half of them split BTF
// over a base (itself libbpf's dedup of another input of the same
// program), and btfstream's Dedup must give libbpf's btf__dedup result.
func TestDedupLikeLibbpf(t *testing.T) {
	l := startLibbpf(t)
	graphs := 3000
	if testing.Short() {
		graphs = 300
	}
	rng := rand.New(rand.NewSource(17))
	var same, order, typedefBug, mismatch int
	var mismatchSplit int
	for g := 0; g < graphs; g++ {
		p := genProgram(rng, 6+rng.Intn(12))
		var base *btf.Spec
		if g%2 == 1 {
			b, err := l.dedup(genGraph(rng, p, nil))
			if err != nil {
				t.Fatalf("graph %d: base: %v", g, err)
			}
			base = b
		}
		in := genGraph(rng, p, base)
		if err := in.CheckStructure(); err != nil {
			t.Fatalf("graph %d: generated malformed BTF: %v", g, err)
		}
		diff, err := sameAsLibbpf(l, in)
		switch {
		case err != nil:
			t.Fatalf("graph %d: %v", g, err)
		case diff == "":
			same++
		case diff == "order":
			order++
		case diff == "typedef bug":
			typedefBug++
		default:
			mismatch++
			if base != nil {
				mismatchSplit++
				t.Logf("graph %d (split): btfstream and libbpf differ:\n%s", g, diff)
			} else if mismatch <= 3 {
				t.Errorf("graph %d: btfstream and libbpf differ:\n%s", g, diff)
			}
		}
	}
	// None may differ, with a base or without (split graph 1677 of seed 17
	// differed until btfstream tried a module typedef's candidates newest
	// first, as libbpf does, before an exactly equal base typedef).
	if mismatch > 0 {
		t.Errorf("%d graphs differ from libbpf without a base, %d with a base (want 0)", mismatch-mismatchSplit, mismatchSplit)
	}
	t.Logf("%d graphs: %d the same type for type, %d the same graph in another order, %d the same but for libbpf 1.7.0's base typedef copies, %d differ (%d of them split)",
		graphs, same, order, typedefBug, mismatch, mismatchSplit)
}

// libbpfDiffers lists the table cases (dedup_test.go) whose result is
// knowingly not libbpf's, and why.
var libbpfDiffers = map[string]string{
	// libbpf 1.7.0 leaves the module's typedef and what reaches it as
	// copies of the base's types (5b0f3729); btfstream folds them.
	"a module typedef identical to the base's folds onto it": "base typedef copies",
}

// TestDedupCasesLikeLibbpf runs the table cases through libbpf too: each
// gives libbpf's result type for type, except those in libbpfDiffers.
func TestDedupCasesLikeLibbpf(t *testing.T) {
	l := startLibbpf(t)
	compared := 0
	defer func() { t.Logf("%d table cases compared with libbpf", compared) }()
	for _, c := range dedupCases {
		_, _, in := buildCase(c)
		compared++
		diff, err := sameAsLibbpf(l, in)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		why, known := libbpfDiffers[c.name]
		switch {
		case diff != "" && !known:
			t.Errorf("%s: btfstream and libbpf differ (%s):\n%s", c.name, diff, diff)
		case diff == "" && known:
			t.Errorf("%s: listed as differing from libbpf (%s) but gives libbpf's result", c.name, why)
		}
	}
}
