package main

import (
	"hash/maphash"
	"slices"

	"github.com/btfstream/btfstream/btf"
)

// closureKeys gives every batch type a hash of its whole reachable
// closure up to isomorphism: a type outside any cycle hashes its label
// with its targets' keys; the members of a strongly connected component
// share the component's hash, made by a depth-first walk from a canonical
// member (the one with the smallest label hash found once in the
// component), numbering members in the order the walk meets them; each
// member's key mixes that hash with its number. Components with no such
// member get key 0 (not keyed).
type closer struct {
	b      *btf.Spec
	seed   maphash.Seed
	lh     []uint64
	keys   []uint64
	index  []int32
	low    []int32
	on     []bool
	stack  []btf.TypeID
	next   int32
	num    []int32 // DFS number inside the component being hashed (-1 none)
	unkey  int
	fwd    []bool // the closure holds a FWD or an enum declaration
	sccMax int
}

func newCloser() *closer { return &closer{seed: maphash.MakeSeed()} }

func (c *closer) run(b *btf.Spec) []uint64 {
	n := b.Len()
	c.b = b
	c.lh = make([]uint64, n)
	c.keys = make([]uint64, n)
	c.index = make([]int32, n)
	c.low = make([]int32, n)
	c.on = make([]bool, n)
	c.num = make([]int32, n)
	c.fwd = make([]bool, n)
	for i := range n {
		c.index[i] = -1
		c.num[i] = -1
		c.lh[i] = c.label(b.FirstID() + btf.TypeID(i))
		t := b.Type(b.FirstID() + btf.TypeID(i))
		c.fwd[i] = t.Kind() == btf.KindFwd || (t.Kind() == btf.KindEnum || t.Kind() == btf.KindEnum64) && t.Vlen() == 0
	}
	c.next = 0
	for x := b.FirstID(); x < b.NextID(); x++ {
		if c.index[x-b.FirstID()] < 0 {
			c.strong(x)
		}
	}
	return c.keys
}

func (c *closer) label(x btf.TypeID) uint64 {
	b := c.b
	t := b.Type(x)
	var h maphash.Hash
	h.SetSeed(c.seed)
	k := t.Kind()
	u := func(v uint64) { maphash.WriteComparable(&h, v) }
	u(uint64(t.Info))
	if !k.HasType() {
		u(uint64(t.SizeOrType))
	}
	h.WriteString(b.Name(x))
	w := b.Extra(x)
	refs, strs := wordKinds(k, len(w))
	for j := range w {
		switch {
		case refs(j):
		case strs(j):
			s, _ := b.Strings().Lookup(btf.StrOff(w[j]))
			h.WriteString(s)
			h.WriteByte(0)
		default:
			u(uint64(w[j]))
		}
	}
	return h.Sum64()
}

// targets calls fn for every edge of x in order, void and all.
func targets(b *btf.Spec, x btf.TypeID, fn func(y btf.TypeID)) {
	t := b.Type(x)
	k := t.Kind()
	if k.HasType() {
		fn(t.Ref())
	}
	w := b.Extra(x)
	refs, _ := wordKinds(k, len(w))
	for j := range w {
		if refs(j) {
			fn(btf.TypeID(w[j]))
		}
	}
}

func (c *closer) strong(x btf.TypeID) {
	f := c.b.FirstID()
	i := x - f
	c.index[i], c.low[i] = c.next, c.next
	c.next++
	c.stack = append(c.stack, x)
	c.on[i] = true
	targets(c.b, x, func(y btf.TypeID) {
		if !c.b.Local(y) {
			return
		}
		j := y - f
		if c.index[j] < 0 {
			c.strong(y)
			c.low[i] = min(c.low[i], c.low[j])
		} else if c.on[j] {
			c.low[i] = min(c.low[i], c.index[j])
		}
	})
	if c.low[i] != c.index[i] {
		return
	}
	k := len(c.stack) - 1
	for c.stack[k] != x {
		k--
	}
	comp := c.stack[k:]
	for _, m := range comp {
		c.on[m-f] = false
	}
	c.hashComp(comp)
	c.stack = c.stack[:k]
}

func (c *closer) hashComp(comp []btf.TypeID) {
	f := c.b.FirstID()
	if len(comp) == 1 {
		x := comp[0]
		self := false
		targets(c.b, x, func(y btf.TypeID) { self = self || y == x })
		if !self {
			h := c.lh[x-f]
			bad := false
			targets(c.b, x, func(y btf.TypeID) {
				if c.b.Local(y) {
					h = mix(h, c.keys[y-f])
					c.fwd[x-f] = c.fwd[x-f] || c.fwd[y-f]
					bad = bad || c.keys[y-f] == 0
				} else {
					h = mix(h, uint64(y)+1)
				}
			})
			if bad {
				h = 0
				c.unkey++
			}
			c.keys[x-f] = h | 1
			if bad {
				c.keys[x-f] = 0
			}
			return
		}
	}
	c.sccMax = max(c.sccMax, len(comp))
	hs := make([]uint64, len(comp))
	for j, m := range comp {
		hs[j] = c.lh[m-f]
	}
	slices.Sort(hs)
	var root btf.TypeID
	found := false
	for j := 0; j < len(hs) && !found; j++ {
		if (j == 0 || hs[j-1] != hs[j]) && (j+1 == len(hs) || hs[j+1] != hs[j]) {
			for _, m := range comp {
				if c.lh[m-f] == hs[j] {
					root, found = m, true
					break
				}
			}
		}
	}
	if !found {
		c.unkey += len(comp)
		for _, m := range comp {
			c.keys[m-f] = 0
			c.num[m-f] = -2
		}
		return
	}
	for _, m := range comp {
		c.num[m-f] = -3 // a member not yet numbered
	}
	member := func(y btf.TypeID) bool { return c.b.Local(y) && (c.num[y-f] == -3 || c.num[y-f] >= 0) }
	var h uint64 = 0x51
	var n int32
	bad := false
	anyFwd := false
	for _, m := range comp {
		anyFwd = anyFwd || c.fwd[m-f]
	}
	var walk func(x btf.TypeID)
	walk = func(x btf.TypeID) {
		c.num[x-f] = n
		n++
		h = mix(h, c.lh[x-f])
		targets(c.b, x, func(y btf.TypeID) {
			switch {
			case !c.b.Local(y):
				h = mix(h, uint64(y)+1)
			case member(y) && c.num[y-f] >= 0:
				h = mix(h, 0xb0000000|uint64(c.num[y-f]))
			case member(y):
				h = mix(h, 0xf)
				walk(y)
			default:
				h = mix(h, c.keys[y-f])
				anyFwd = anyFwd || c.fwd[y-f]
				bad = bad || c.keys[y-f] == 0
			}
		})
	}
	walk(root)
	for _, m := range comp {
		c.fwd[m-f] = anyFwd
		c.keys[m-f] = mix(h, uint64(c.num[m-f])) | 1
		if bad {
			c.keys[m-f] = 0
		}
	}
	if bad {
		c.unkey += len(comp)
	}
	for _, m := range comp {
		c.num[m-f] = -2
	}
}
