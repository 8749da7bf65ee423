package merge

import (
	"slices"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/encode"
)

// datasecs collects the DATASEC entries of every unit's VARs, by ELF
// section, with table ids.
type datasecs struct {
	names   []string           // by section index
	entries [][]btf.VarSecinfo // by section index
}

func newDatasecs(sectionNames []string) *datasecs {
	return &datasecs{names: sectionNames, entries: make([][]btf.VarSecinfo, len(sectionNames))}
}

// add keeps a unit's entries, their VAR ids mapped to table ids.
func (ds *datasecs) add(vars []encode.VarEntry, table func(btf.TypeID) btf.TypeID) {
	for _, v := range vars {
		ds.entries[v.Sec] = append(ds.entries[v.Sec], btf.VarSecinfo{Type: table(v.Type), Offset: v.Offset, Size: v.Size})
	}
}

// emit appends one DATASEC per section with variables, in section order,
// entries sorted by offset.
func (ds *datasecs) emit(out *btf.Spec) {
	strs := out.Strings()
	for i, entries := range ds.entries {
		if len(entries) == 0 {
			continue
		}
		slices.SortStableFunc(entries, func(a, b btf.VarSecinfo) int { return int(int64(a.Offset) - int64(b.Offset)) })
		last := entries[len(entries)-1]
		words := make([]uint32, 0, 3*len(entries))
		for _, e := range entries {
			words = append(words, uint32(e.Type), e.Offset, e.Size)
		}
		out.Add(btf.Type{NameOff: strs.Add(ds.names[i]), Info: btf.MakeInfo(btf.KindDatasec, uint32(len(entries)), false), SizeOrType: last.Offset + last.Size}, words...)
		ds.entries[i] = nil
	}
}
