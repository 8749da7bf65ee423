package dwarfread

import (
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/btfstream/btfstream/stream/internal/testkit"
)

// The oracle is Go's debug/dwarf reading the file through debug/elf (which
// applies ET_REL relocations itself). For every unit of .debug_info the
// sequence of DIEs must match: offset, tag, children flag, and every
// attribute with its class and resolved value.
//
// Normalizations (debug/dwarf quirks):
//   - debug/dwarf returns a null entry (Tag 0) for each end of a sibling
//     list; those are not DIEs and are skipped.
//   - Constants: debug/dwarf returns int64, zero-extended for data1..8 and
//     udata, sign-extended for sdata and implicit_const. Attr.Int matches.
//   - DW_FORM_rnglistx: debug/dwarf resolves the index to a .debug_rnglists
//     offset; compared with CU.RnglistOffset. addrx/strx are resolved the
//     same way (Attr.Address, Attr.String).
//   - DW_FORM_loclistx stays an index on both sides.
//   - ref_sig8 is the signature (uint64) on both sides.

// oracleValue converts one of our attributes to the Go value debug/dwarf
// would produce.
func oracleValue(cu *CU, a Attr) (any, error) {
	switch a.Form {
	case formAddr:
		return a.Val, nil
	case formAddrx, formAddrx1, formAddrx2, formAddrx3, formAddrx4:
		return a.Address()
	case formBlock1, formBlock2, formBlock4, formBlock, formExprloc, formData16:
		return append([]byte{}, a.Block()...), nil
	case formData1, formData2, formData4, formData8, formSdata, formUdata, formImplicitConst:
		return a.Int(), nil
	case formFlag, formFlagPresent:
		return a.Flag(), nil
	case formRefAddr, formRef1, formRef2, formRef4, formRef8, formRefUdata:
		return dwarf.Offset(a.Ref()), nil
	case formString, formStrp, formLineStrp, formStrx, formStrx1, formStrx2, formStrx3, formStrx4:
		return a.String()
	case formSecOffset, formGNURefAlt, formGNUStrpAlt:
		return int64(a.Val), nil
	case formRefSig8, formRefSup8:
		return a.Val, nil
	case formRefSup4:
		return uint32(a.Val), nil
	case formStrpSup:
		if cu.Is64() {
			return a.Val, nil
		}
		return uint32(a.Val), nil
	case formLoclistx:
		return a.Val, nil
	case formRnglistx:
		return cu.RnglistOffset(a.Val)
	}
	return nil, fmt.Errorf("form %#x not mapped", a.Form)
}

type oracleStats struct {
	units, dies, attrs, lenient int
}

// debugDwarfCannot lists fixtures debug/dwarf fails to read ("decoding
// dwarf section str at offset 0x0: underflow" on DW_FORM_strx in clang's
// big-endian and 64-bit DWARF 5). TestDwarfdumpFixtures covers them.
var debugDwarfCannot = map[string]bool{"clang-dwarf64": true, "clang-s390x": true, "clang-ppc64": true}

// compareOracle walks every .debug_info unit with both readers.
//
// addSubRelocs is set for RISC-V objects: debug/elf does not apply
// R_RISCV_ADD*/SUB* relocations, so where it reports a 0 constant we keep
// ours (checked against llvm-dwarfdump instead: DW_AT_high_pc 0xf4).
func compareOracle(t *testing.T, path string, jobs int, addSubRelocs bool) oracleStats {
	t.Helper()
	ef, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	d, err := ef.DWARF()
	if err != nil {
		t.Fatal(err)
	}
	r := d.Reader()
	f, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var st oracleStats
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%s: "+format, append([]any{path}, args...)...)
	}
	for cu, err := range f.Units(UnitOptions{Jobs: jobs, NoTypeUnits: true}) {
		if err != nil {
			fail("%v", err)
		}
		st.units++
		for id := range cu.Len() {
			die := cu.DIE(TagID(id))
			var e *dwarf.Entry
			for {
				e, err = r.Next()
				if err != nil {
					fail("debug/dwarf: %v", err)
				}
				if e == nil {
					fail("debug/dwarf ended before %v", die)
				}
				if e.Tag != 0 {
					break
				}
			}
			if e.Offset != dwarf.Offset(die.Offset()) || e.Tag != die.Tag() || e.Children != die.HasChildren() {
				fail("DIE %v (children %v), debug/dwarf %v @ %#x (children %v)", die, die.HasChildren(), e.Tag, e.Offset, e.Children)
			}
			if len(e.Field) != die.NumAttrs() {
				fail("%v: %d attributes, debug/dwarf %d", die, die.NumAttrs(), len(e.Field))
			}
			for i, fld := range e.Field {
				a := die.AttrAt(i)
				if a.At != fld.Attr || a.Class() != fld.Class {
					fail("%v attr %d: %v class %v, debug/dwarf %v class %v", die, i, a.At, a.Class(), fld.Attr, fld.Class)
				}
				v, err := oracleValue(cu, a)
				if err != nil {
					fail("%v %v: %v", die, a.At, err)
				}
				if b, ok := v.([]byte); ok {
					if w, ok := fld.Val.([]byte); !ok || !bytes.Equal(b, w) {
						fail("%v %v: %x, debug/dwarf %#v", die, a.At, b, fld.Val)
					}
				} else if addSubRelocs && fld.Val == any(int64(0)) && a.Class() == dwarf.ClassConstant {
					st.lenient++
				} else if !reflect.DeepEqual(v, fld.Val) {
					fail("%v %v (form %#x): %#v, debug/dwarf %#v", die, a.At, a.Form, v, fld.Val)
				}
				st.attrs++
			}
			// Tree links agree with the flat order.
			if p := die.Parent(); p.Valid() && p.ID() >= die.ID() {
				fail("%v: parent id %d not before %d", die, p.ID(), die.ID())
			}
			st.dies++
		}
		cu.Release()
	}
	for {
		e, err := r.Next()
		if err != nil {
			fail("debug/dwarf: %v", err)
		}
		if e == nil {
			break
		}
		if e.Tag != 0 {
			fail("debug/dwarf has more DIEs: %v @ %#x", e.Tag, e.Offset)
		}
	}
	return st
}

func TestOracleFixtures(t *testing.T) {
	for _, fx := range testkit.Fixtures {
		t.Run(fx.Name, func(t *testing.T) {
			p := fx.Build(t)
			if debugDwarfCannot[fx.Name] {
				t.Skip("debug/dwarf cannot read this fixture; see TestDwarfdumpFixtures")
			}
			for _, jobs := range []int{1, 3} {
				st := compareOracle(t, p, jobs, strings.Contains(fx.Name, "riscv"))
				if st.dies == 0 {
					t.Fatal("no DIEs")
				}
				if jobs == 1 {
					t.Logf("%s: %d units, %d DIEs, %d attributes equal", fx.Name, st.units, st.dies, st.attrs)
				}
			}
		})
	}
}

func TestOracleKernel(t *testing.T) {
	k := testkit.Files(t)
	files := []string{k.XFS, k.Vmlinux}
	// The other modules of the cache, and xfs.ko with its debug sections
	// recompressed (zlib and zstd: streamed .debug_info plus relocations).
	root := strings.SplitN(k.Vmlinux, "/usr/lib/debug/", 2)[0]
	kos, _ := filepath.Glob(filepath.Join(root, "usr/lib/debug/lib/modules/*/kernel/*/*/*.ko"))
	for _, ko := range kos {
		if ko != k.XFS {
			files = append(files, ko)
		}
	}
	if _, err := exec.LookPath("objcopy"); err == nil {
		for _, c := range []string{"zlib", "zstd"} {
			out := filepath.Join(t.TempDir(), "xfs-"+c+".ko")
			if err := exec.Command("objcopy", "--compress-debug-sections="+c, k.XFS, out).Run(); err == nil {
				files = append(files, out)
			}
		}
	}
	for _, p := range files {
		st := compareOracle(t, p, 2, false)
		t.Logf("%s: %d units, %d DIEs, %d attributes equal to debug/dwarf", filepath.Base(p), st.units, st.dies, st.attrs)
	}
}

// compareDwarfdump is a second, independent oracle: llvm-dwarfdump's
// listing of offsets, tags and DW_AT_name values. It covers fixtures that
// debug/dwarf cannot read (it mis-resolves DW_FORM_strx in big-endian and
// 64-bit DWARF 5 objects) and the RISC-V ADD/SUB relocations debug/elf
// does not apply.
func compareDwarfdump(t *testing.T, path string) int {
	t.Helper()
	dd, err := exec.LookPath("llvm-dwarfdump")
	if err != nil {
		t.Skip("llvm-dwarfdump not installed")
	}
	out, err := exec.Command(dd, "--debug-info", path).Output()
	if err != nil {
		t.Skipf("llvm-dwarfdump cannot read %s: %v", path, err)
	}
	type ent struct {
		off  uint64
		tag  string
		name string
		hasN bool
	}
	var want []ent
	sectionInfo := true
	for _, line := range strings.Split(string(out), "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, ".debug_") {
			sectionInfo = strings.HasPrefix(l, ".debug_info contents")
			continue
		}
		if !sectionInfo {
			continue
		}
		if m := ddTag.FindStringSubmatch(l); m != nil {
			off, _ := strconv.ParseUint(m[1], 16, 64)
			want = append(want, ent{off: off, tag: m[2]})
			continue
		}
		if m := ddName.FindStringSubmatch(l); m != nil && len(want) > 0 {
			want[len(want)-1].name, want[len(want)-1].hasN = m[1], true
		}
	}
	f, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	i := 0
	for cu, err := range f.Units(UnitOptions{NoTypeUnits: true}) {
		if err != nil {
			t.Fatal(err)
		}
		for id := range cu.Len() {
			d := cu.DIE(TagID(id))
			if i >= len(want) {
				t.Fatalf("llvm-dwarfdump lists %d DIEs; we have more (%v)", len(want), d)
			}
			w := want[i]
			if uint64(d.Offset()) != w.off || !sameTag(w.tag, d.Tag()) {
				t.Fatalf("DIE %d: %v, llvm-dwarfdump %s @ %#x", i, d, w.tag, w.off)
			}
			name, err := d.AttrString(dwarf.AttrName)
			_, has := d.Attr(dwarf.AttrName)
			if err != nil || has != w.hasN || name != w.name {
				t.Fatalf("%v: name %q (%v), llvm-dwarfdump %q", d, name, err, w.name)
			}
			i++
		}
		cu.Release()
	}
	if i != len(want) {
		t.Fatalf("%d DIEs, llvm-dwarfdump %d", i, len(want))
	}
	return i
}

var (
	ddTag  = regexp.MustCompile(`^0x([0-9a-f]+):\s+(DW_TAG_\w+)`)
	ddName = regexp.MustCompile(`^DW_AT_name\s+\("(.*)"\)$`)
)

// sameTag compares an llvm-dwarfdump tag name with a tag code.
func sameTag(llvm string, tag dwarf.Tag) bool { return "DW_TAG_"+TagName(tag) == llvm }

func TestDwarfdumpFixtures(t *testing.T) {
	for _, fx := range testkit.Fixtures {
		t.Run(fx.Name, func(t *testing.T) {
			if fx.Name == "clang-types-dwarf5" {
				t.Skip("llvm-dwarfdump lists the COMDAT type-unit sections first; unit order differs by design")
			}
			n := compareDwarfdump(t, fx.Build(t))
			t.Logf("%s: %d DIEs equal to llvm-dwarfdump", fx.Name, n)
		})
	}
}
