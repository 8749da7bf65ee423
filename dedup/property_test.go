package dedup

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"

	"github.com/btfstream/btfstream/btf"
)

// An abstract type of a generated CU: edges are indexes into the CU
// (ext >= 0: into all types generated before the CU, for cross-CU edges).
type absType struct {
	k     btf.Kind
	name  string
	size  uint32
	flag  bool
	refs  []absRef
	nvals int
}

type absRef struct {
	local int // index in the CU, or -1 for void
	ext   int // global index of an earlier CU's type, or -1
}

var genKinds = []btf.Kind{
	btf.KindInt, btf.KindPtr, btf.KindPtr, btf.KindStruct, btf.KindStruct, btf.KindUnion,
	btf.KindEnum, btf.KindFwd, btf.KindTypedef, btf.KindConst, btf.KindVolatile,
	btf.KindArray, btf.KindFuncProto, btf.KindFunc, btf.KindVar, btf.KindDatasec,
	btf.KindDeclTag, btf.KindTypeTag, btf.KindEnum64, btf.KindFloat,
}

var genNames = []string{"", "a", "b", "c"}

// genCU generates the CU of template seed: the same seed gives the same
// structure. prior > 0 allows edges to the prior types generated before.
func genCU(seed int64, prior int, cross *rand.Rand) []absType {
	rng := rand.New(rand.NewSource(seed))
	n := 2 + rng.Intn(12)
	cu := make([]absType, n)
	ref := func() absRef {
		if prior > 0 && cross != nil && cross.Intn(8) == 0 {
			return absRef{local: -1, ext: cross.Intn(prior)}
		}
		if rng.Intn(6) == 0 {
			return absRef{local: -1, ext: -1}
		}
		return absRef{local: rng.Intn(n), ext: -1}
	}
	for i := range cu {
		t := absType{k: genKinds[rng.Intn(len(genKinds))], name: genNames[rng.Intn(len(genNames))]}
		switch t.k {
		case btf.KindInt, btf.KindFloat:
			t.size = []uint32{1, 4, 8}[rng.Intn(3)]
		case btf.KindPtr, btf.KindTypedef, btf.KindConst, btf.KindVolatile, btf.KindTypeTag, btf.KindFunc, btf.KindVar, btf.KindDeclTag:
			t.refs = []absRef{ref()}
		case btf.KindArray:
			t.refs = []absRef{ref(), ref()}
			t.size = uint32(rng.Intn(3))
		case btf.KindStruct, btf.KindUnion, btf.KindDatasec:
			t.size = uint32(4 * rng.Intn(3))
			for m := rng.Intn(4); m > 0; m-- {
				t.refs = append(t.refs, ref())
			}
		case btf.KindFuncProto:
			t.refs = []absRef{ref()}
			for m := rng.Intn(3); m > 0; m-- {
				t.refs = append(t.refs, ref())
			}
		case btf.KindEnum, btf.KindEnum64:
			t.size = 4
			t.nvals = rng.Intn(3)
		case btf.KindFwd:
			t.flag = rng.Intn(2) == 0
		}
		cu[i] = t
	}
	return cu
}

// emit adds cu to s in the order perm (perm[i] = position of type i), and
// returns the ids it got. ext maps global indexes of earlier types to ids.
func emit(s *btf.Spec, cu []absType, perm []int, ext func(int) btf.TypeID) []btf.TypeID {
	first := s.NextID()
	ids := make([]btf.TypeID, len(cu))
	for i, p := range perm {
		ids[i] = first + btf.TypeID(p)
	}
	r := func(x absRef) uint32 {
		switch {
		case x.ext >= 0:
			return uint32(ext(x.ext))
		case x.local >= 0:
			return uint32(ids[x.local])
		}
		return 0
	}
	inv := make([]int, len(cu))
	for i, p := range perm {
		inv[p] = i
	}
	st := s.Strings()
	for _, i := range inv {
		t := cu[i]
		name := uint32(st.Add(t.name))
		hdr := btf.Type{NameOff: btf.StrOff(name), SizeOrType: t.size}
		var w []uint32
		vlen := uint32(0)
		switch t.k {
		case btf.KindInt:
			w = []uint32{btf.MakeIntInfo(0, 0, t.size*8)}
		case btf.KindPtr, btf.KindTypedef, btf.KindConst, btf.KindVolatile, btf.KindTypeTag, btf.KindFunc:
			hdr.SizeOrType = r(t.refs[0])
		case btf.KindVar:
			hdr.SizeOrType = r(t.refs[0])
			w = []uint32{btf.LinkageGlobal}
		case btf.KindDeclTag:
			hdr.SizeOrType = r(t.refs[0])
			w = []uint32{^uint32(0)}
		case btf.KindArray:
			w = []uint32{r(t.refs[0]), r(t.refs[1]), t.size}
			hdr.SizeOrType = 0
		case btf.KindStruct, btf.KindUnion:
			for j, x := range t.refs {
				w = append(w, uint32(st.Add(genNames[j%len(genNames)])), r(x), uint32(32*j))
			}
			vlen = uint32(len(t.refs))
		case btf.KindDatasec:
			for j, x := range t.refs {
				w = append(w, r(x), uint32(4*j), 4)
			}
			vlen = uint32(len(t.refs))
		case btf.KindFuncProto:
			hdr.SizeOrType = r(t.refs[0])
			for _, x := range t.refs[1:] {
				w = append(w, uint32(st.Add("p")), r(x))
			}
			vlen = uint32(len(t.refs) - 1)
		case btf.KindEnum:
			for j := 0; j < t.nvals; j++ {
				w = append(w, uint32(st.Add(genNames[1+j])), uint32(j))
			}
			vlen = uint32(t.nvals)
		case btf.KindEnum64:
			for j := 0; j < t.nvals; j++ {
				w = append(w, uint32(st.Add(genNames[1+j])), uint32(j), 1)
			}
			vlen = uint32(t.nvals)
		}
		if t.k == btf.KindFunc {
			vlen = btf.LinkageGlobal
		}
		hdr.Info = btf.MakeInfo(t.k, vlen, t.flag)
		s.Add(hdr, w...)
	}
	return ids
}

// genInput generates a sequence of CUs drawn from a few templates, each
// emitted in a random order; with cross, CUs also reference earlier CUs.
func genInput(rng *rand.Rand, cross bool) (cus [][]absType, perms [][]int) {
	templates := 1 + rng.Intn(6)
	base := rng.Int63()
	total := 0
	for n := 1 + rng.Intn(8); n > 0; n-- {
		var cr *rand.Rand
		if cross {
			cr = rng
		}
		cu := genCU(base+int64(rng.Intn(templates)), total, cr)
		cus = append(cus, cu)
		perms = append(perms, rng.Perm(len(cu)))
		total += len(cu)
	}
	return cus, perms
}

// concat emits all CUs into one Spec (batch input).
func concat(cus [][]absType, perms [][]int) *btf.Spec {
	s := btf.NewSpec()
	var all []btf.TypeID
	for i, cu := range cus {
		all = append(all, emit(s, cu, perms[i], func(g int) btf.TypeID { return all[g] })...)
	}
	return s
}

// incremental feeds the CUs batch by batch, translating cross-CU edges
// through the remaps, as the encoder does.
func incremental(t *testing.T, cus [][]absType, perms [][]int) *btf.Spec {
	d, err := NewIncremental(nil)
	if err != nil {
		t.Fatal(err)
	}
	var final []btf.TypeID
	for i, cu := range cus {
		b := d.NewBatch()
		ids := emit(b, cu, perms[i], func(g int) btf.TypeID { return final[g] })
		r, err := d.AddBatch(b)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			final = append(final, r.Map(id))
		}
	}
	out, r2, err := d.Finish()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range final {
		if !out.Valid(r2.Map(id)) {
			t.Fatalf("final remap out of range")
		}
	}
	return out
}

// permute returns s with its types in a random order (edges rewritten).
func permute(rng *rand.Rand, s *btf.Spec) *btf.Spec {
	n := s.Len()
	perm := rng.Perm(n) // old index -> new index
	inv := make([]int, n)
	for i, p := range perm {
		inv[p] = i
	}
	out := btf.NewSpec()
	out.SetStrings(s.Strings())
	for _, old := range inv {
		id := btf.TypeID(old + 1)
		t := s.Type(id)
		w := append([]uint32(nil), s.Extra(id)...)
		mapWords(&t, w, func(c uint32) uint32 {
			if c == 0 {
				return 0
			}
			return uint32(perm[c-1] + 1)
		}, nil)
		out.Add(t, w...)
	}
	return out
}

func TestProperties(t *testing.T) {
	trials := 400
	if testing.Short() {
		trials = 50
	}
	rng := rand.New(rand.NewSource(1))
	orderDependent := 0
	defer func() {
		t.Logf("%d of %d inputs skipped the permutation check (enum order)", orderDependent, trials)
		// The permutation check must still run on most inputs.
		if orderDependent > trials/3 {
			t.Errorf("%d of %d inputs skipped the permutation check", orderDependent, trials)
		}
	}()
	for trial := 0; trial < trials; trial++ {
		cross := trial%2 == 1
		cus, perms := genInput(rng, cross)
		in := concat(cus, perms)
		out, _, err := Dedup(in)
		if err != nil {
			t.Fatal(err)
		}
		raw := out.Marshal()
		if inc := incremental(t, cus, perms); !bytes.Equal(inc.Marshal(), raw) {
			t.Fatalf("trial %d: incremental differs from batch:\n\t%v\nvs\n\t%v\ninput\n\t%v", trial, dump(inc), dump(out), dump(in))
		}
		checkInvariants(t, in, out)
		if enumOrderMatters(in) {
			// libbpf's rule for enum declarations depends on order.
			orderDependent++
			continue
		}
		p := permute(rng, in)
		pout, _, err := Dedup(p)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Compare(out, pout)
		if err != nil {
			t.Fatal(err)
		}
		if !c.Equal() {
			t.Fatalf("trial %d: permuted input gives a different graph:\n\t%v\nvs\n\t%v", trial, dump(out), dump(pout))
		}
		if t.Failed() {
			t.Fatalf("trial %d failed; input:\n\t%v", trial, dump(in))
		}
	}
}

// enumOrderMatters reports whether where enum forward declarations go
// depends on the order of s's types (resolveFwds): some name has a
// declaration and two different complete enums, or declarations of two
// different shapes and no complete enum.
func enumOrderMatters(s *btf.Spec) bool {
	fulls := map[string]map[string]bool{}
	decls := map[string]map[string]bool{}
	for id := s.FirstID(); id < s.NextID(); id++ {
		t := s.Type(id)
		if k := t.Kind(); k != btf.KindEnum && k != btf.KindEnum64 || t.NameOff == 0 {
			continue
		}
		m := fulls
		if t.Vlen() == 0 {
			m = decls
		}
		n := s.Name(id)
		if m[n] == nil {
			m[n] = map[string]bool{}
		}
		_, shape, _ := strings.Cut(FormatType(s, id), "] ") // without the id
		m[n][shape] = true
	}
	for n, d := range decls {
		if len(fulls[n]) > 1 || len(fulls[n]) == 0 && len(d) > 1 {
			return true
		}
	}
	return false
}
