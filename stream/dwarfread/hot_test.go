package dwarfread

import (
	"debug/dwarf"
	"encoding/binary"
	"testing"
)

// TestHotIndex checks that abbrevTable.hot finds each hot attribute where
// a scan of the decl's specs finds it first: duplicates, absent ones, and
// positions too large for a byte (which must fall back to the scan).
func TestHotIndex(t *testing.T) {
	type spec struct{ at, form uint64 }
	decls := [][]spec{
		{{uint64(dwarf.AttrName), formStrp}, {uint64(dwarf.AttrType), formRef4}, {uint64(dwarf.AttrName), formString}},
		{},
		{{uint64(dwarf.AttrSibling), formRef4}, {uint64(dwarf.AttrByteSize), formData1}, {uint64(dwarf.AttrAlignment), formData1}},
	}
	long := []spec{}
	for i := 0; i < 300; i++ {
		long = append(long, spec{uint64(dwarf.AttrDeclLine), formData1})
	}
	long[10] = spec{uint64(dwarf.AttrType), formRef4}
	long[260] = spec{uint64(dwarf.AttrName), formStrp}
	long[299] = spec{uint64(dwarf.AttrCount), formData2}
	decls = append(decls, long)
	var data []byte
	for code, d := range decls {
		data = binary.AppendUvarint(data, uint64(code+1))
		data = binary.AppendUvarint(data, uint64(dwarf.TagMember))
		data = append(data, 0)
		for _, s := range d {
			data = binary.AppendUvarint(data, s.at)
			data = binary.AppendUvarint(data, s.form)
		}
		data = append(data, 0, 0)
	}
	data = append(data, 0)
	tab, ok, err := parseAbbrev(data, 0, abbrevKey{addrSize: 8, version: 4}, true)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	scans := 0
	for di, d := range tab.decls {
		for at := range len(hotSlot) {
			k := hotSlot[at]
			if k < 0 {
				continue
			}
			want := -1
			for i := uint32(0); i < d.n; i++ {
				if int(tab.specs[d.first+i].at) == at {
					want = int(i)
					break
				}
			}
			h := tab.hot[di*hotAttrs+int(k)]
			if p := h & 0xff; p != hotAbsent && p != hotScan && uint16(h>>8) != tab.specs[d.first+p-1].form {
				t.Errorf("decl %d attr %#x: hot form %#x, spec has %#x", di, at, h>>8, tab.specs[d.first+p-1].form)
			}
			switch p := h & 0xff; {
			case p == hotScan:
				scans++
				if want < hotScan-1 {
					t.Errorf("decl %d attr %#x: scan entry for position %d", di, at, want)
				}
			case int(p)-1 != want:
				t.Errorf("decl %d attr %#x: hot position %d, scan finds %d", di, at, int(p)-1, want)
			}
		}
	}
	if scans != 2 {
		t.Errorf("%d scan entries, want 2 (name at 260, count at 299)", scans)
	}
}
