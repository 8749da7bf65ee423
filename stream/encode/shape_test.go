package encode

import (
	"debug/dwarf"
	"path/filepath"
	"slices"
	"testing"
	"unsafe"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/dwarfread"
)

func TestMemberShapeSize(t *testing.T) {
	if s := unsafe.Sizeof(dieShape{}); s != 4 {
		t.Errorf("dieShape is %d bytes, want 4", s)
	}
}

// TestEmitMembersMatchesAttrs checks emitMembers, which reads members
// through their abbreviation's shape, against the attribute-by-attribute
// reading (memberOffset, nameAttr, typeOfAttr) on every struct and union of the
// golden fixtures, for every target (bitfields, both byte orders, DWARF 4
// and 5), and that both kinds of shape occur.
func TestEmitMembersMatchesAttrs(t *testing.T) {
	objs, err := filepath.Glob(filepath.Join("..", "testdata", "encode", "golden", "*", "*.o"))
	if err != nil || len(objs) == 0 {
		t.Fatalf("no golden objects (%v)", err)
	}
	kinds := map[uint8]int{}
	for _, obj := range objs {
		f, err := dwarfread.Open(obj, dwarfread.Options{})
		if err != nil {
			t.Fatal(err)
		}
		w := goldenWorker(t, f, func(uint32) bool { return true })
		for cu, err := range f.Units(dwarfread.UnitOptions{Jobs: 1}) {
			if err != nil {
				t.Fatal(err)
			}
			if Skip(cu) {
				cu.Release()
				continue
			}
			if _, err := w.Encode(cu, nil); err != nil {
				cu.Release()
				continue // foreign_ref.o fails on purpose
			}
			c := w.conv
			strs := c.out.Strings()
			resolve := func(words []uint32) []string {
				var out []string
				for k := 0; k+2 < len(words); k += 3 {
					s, _ := strs.Lookup(btf.StrOff(words[k]))
					out = append(out, s, string(rune(words[k+1])), string(rune(words[k+2])))
				}
				return out
			}
			for _, i := range c.order {
				if i < 0 {
					continue
				}
				switch c.t.tag(i) {
				case dwarf.TagStructType, dwarf.TagUnionType, dwarf.TagClassType:
				default:
					continue
				}
				got, gotN, gotK := c.emitMembers(i, nil)
				var want []uint32
				wantN, wantK := uint32(0), false
				c.t.children(i, func(m int32) {
					if c.t.tag(m) != dwarf.TagMember {
						return
					}
					kinds[c.shapes[c.t.cu.Tags()[m].Abbrev].kind]++
					bitOff, bitfield := c.memberOffset(m)
					wantK = wantK || bitfield != 0
					want = append(want, uint32(c.nameAttr(m)), uint32(c.typeOfAttr(m)), bitfield<<24|bitOff)
					wantN++
				})
				if gotN != wantN || gotK != wantK || !slices.Equal(resolve(got), resolve(want)) {
					t.Errorf("%s: %v: members %d %v %v, want %d %v %v", obj, c.t.die(i), gotN, gotK, got, wantN, wantK, want)
				}
			}
			cu.Release()
		}
		f.Close()
	}
	if kinds[shapeMember] == 0 || kinds[shapeBitfield] == 0 {
		t.Errorf("shapes seen: %v, want members and bitfields", kinds)
	}
}
