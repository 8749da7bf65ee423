package btf

// The verifier's checks of compound types: arrays, structs and unions
// (member offsets, bitfields, int members) and DATASECs. The walk that
// calls them is in resolve.go.

// intRegular is btf_type_int_is_regular: a whole u8..u64 or __int128.
func (v *verifier) intRegular(id TypeID) bool {
	_, off, nbits := IntInfo(v.s.Extra(id)[0])
	if nbits%8 != 0 || off != 0 {
		return false
	}
	switch nbits / 8 {
	case 1, 2, 4, 8, 16:
		return true
	}
	return false
}

func (v *verifier) resolveArray(id TypeID) error {
	a := v.s.Array(id)
	bad := func(t TypeID) bool { return !v.exists(t) || noSize(v.kind(t)) || sourceOnly(v.kind(t)) }
	if bad(a.IndexType) {
		return v.errAt(id, "invalid index type_id %d%s", a.IndexType, v.refDesc(a.IndexType))
	}
	if pushed, err := v.pushTarget(a.IndexType); pushed || err != nil {
		return err
	}
	if r, _, ok := v.idSize(a.IndexType); !ok || v.kind(r) != KindInt || !v.intRegular(r) {
		return v.errAt(id, "invalid index type_id %d%s: not a regular int", a.IndexType, v.refDesc(a.IndexType))
	}
	if bad(a.Type) {
		return v.errAt(id, "invalid elem type_id %d%s", a.Type, v.refDesc(a.Type))
	}
	if pushed, err := v.pushTarget(a.Type); pushed || err != nil {
		return err
	}
	r, size, ok := v.idSize(a.Type)
	if !ok {
		return v.errAt(id, "invalid elem type_id %d%s", a.Type, v.refDesc(a.Type))
	}
	if v.kind(r) == KindInt && !v.intRegular(r) {
		return v.errAt(id, "array of irregular int [%d]", r)
	}
	if a.Nelems != 0 && size > ^uint32(0)/a.Nelems {
		return v.errAt(id, "array size %d * %d overflows u32", a.Nelems, size)
	}
	v.popResolved(r, size*a.Nelems)
	return nil
}

func (v *verifier) resolveStruct(vx *vertex) error {
	id := vx.id
	t := v.s.Type(id)
	if vx.next > 0 {
		if err := v.checkMember(id, int(vx.next-1)); err != nil {
			return err
		}
	}
	for i := vx.next; i < t.Vlen(); i++ {
		m := v.s.Member(id, int(i))
		if !v.exists(m.Type) || noSize(v.kind(m.Type)) || sourceOnly(v.kind(m.Type)) {
			return v.errAt(id, "%s: invalid type_id %d%s", v.memberDesc("member", int(i), m.NameOff), m.Type, v.refDesc(m.Type))
		}
		if !v.isSink(m.Type) && !v.resolved(m.Type) {
			vx.next = i + 1
			return v.push(m.Type)
		}
		if err := v.checkMember(id, int(i)); err != nil {
			return err
		}
	}
	v.popResolved(0, 0)
	return nil
}

// checkMember is the check_member / check_kflag_member of the member's
// type: does the member fit in the struct at its offset?
func (v *verifier) checkMember(sid TypeID, i int) error {
	st := v.s.Type(sid)
	m := v.s.Member(sid, i)
	kflag := st.KindFlag()
	desc := lazyDesc{v, "member", i, m.NameOff}
	mt := m.Type
	if v.kind(mt).IsModifier() {
		r, _, ok := v.idSize(mt)
		if !ok {
			return v.errAt(sid, "%s: type_id %d%s has no size", desc, mt, v.refDesc(mt))
		}
		mt = r
	}
	k := v.kind(mt)
	size := st.Size()
	off := m.Offset
	if kflag {
		switch k {
		case KindInt:
			return v.checkIntKflagMember(sid, desc, m, mt)
		case KindEnum, KindEnum64:
			off, nbits := m.BitOffset(true), m.BitfieldSize(true)
			if nbits == 0 {
				if off%8 != 0 {
					return v.errAt(sid, "%s: offset %d not byte aligned", desc, off)
				}
				nbits = 32
			} else if nbits > 32 {
				return v.errAt(sid, "%s: bitfield_size %d exceeds 32", desc, nbits)
			}
			if end := (uint64(off) + uint64(nbits) + 7) / 8; end > uint64(size) {
				return v.errAt(sid, "%s offset %d + %d bits beyond size %d", desc, off, nbits, size)
			}
			return nil
		}
		// btf_generic_check_kflag_member
		if m.BitfieldSize(true) != 0 {
			return v.errAt(sid, "%s: bitfield_size %d on a %s", desc, m.BitfieldSize(true), k)
		}
		off = m.BitOffset(true)
	}
	var msize uint32
	switch k {
	case KindInt:
		return v.checkIntMember(sid, desc, off, mt)
	case KindFloat:
		msize = v.s.Type(mt).Size()
		align := min(v.ptrSize, msize) * 8
		if align != 0 && off%align != 0 {
			return v.errAt(sid, "%s: offset %d not aligned to %d bits", desc, off, align)
		}
	case KindPtr:
		msize = v.ptrSize
	case KindArray:
		_, msize, _ = v.idSize(mt)
	case KindStruct, KindUnion, KindEnum, KindEnum64:
		msize = v.s.Type(mt).Size()
	default:
		return v.errAt(sid, "%s: unsupported member kind %s", desc, k)
	}
	if off%8 != 0 {
		return v.errAt(sid, "%s: offset %d not byte aligned", desc, off)
	}
	if uint64(off/8)+uint64(msize) > uint64(size) {
		return v.errAt(sid, "%s offset %d + size %d beyond size %d", desc, off, msize, size)
	}
	return nil
}

func (v *verifier) checkIntMember(sid TypeID, desc lazyDesc, off uint32, it TypeID) error {
	_, ioff, nbits := IntInfo(v.s.Extra(it)[0])
	if ^uint32(0)-off < ioff {
		return v.errAt(sid, "%s: offset %d + int bits_offset %d overflows", desc, off, ioff)
	}
	off += ioff
	return v.checkIntSpan(sid, desc, off, nbits)
}

func (v *verifier) checkIntSpan(sid TypeID, desc lazyDesc, off, nbits uint32) error {
	size := v.s.Type(sid).Size()
	copyBits := nbits + off%8
	if copyBits > 128 {
		return v.errAt(sid, "%s: %d bits at bit %d span more than 128 bits", desc, nbits, off)
	}
	if uint64(off/8)+uint64((copyBits+7)/8) > uint64(size) {
		return v.errAt(sid, "%s offset %d + %d bits beyond size %d", desc, off, nbits, size)
	}
	return nil
}

func (v *verifier) checkIntKflagMember(sid TypeID, desc lazyDesc, m Member, it TypeID) error {
	off, nbits := m.BitOffset(true), m.BitfieldSize(true)
	_, ioff, ibits := IntInfo(v.s.Extra(it)[0])
	if nbits == 0 {
		if off%8 != 0 {
			return v.errAt(sid, "%s: offset %d not byte aligned", desc, off)
		}
		nbits = ibits
	} else if nbits > ibits {
		return v.errAt(sid, "%s: bitfield_size %d exceeds its int's %d bits", desc, nbits, ibits)
	}
	if ioff != 0 || ibits%8 != 0 {
		return v.errAt(sid, "%s: bitfield base type [%d] is not a regular int", desc, it)
	}
	return v.checkIntSpan(sid, desc, off, nbits)
}

func (v *verifier) resolveDatasec(vx *vertex) error {
	id := vx.id
	t := v.s.Type(id)
	v.mode = modeTBD
	for i := vx.next; i < t.Vlen(); i++ {
		si := v.s.Secinfo(id, int(i))
		if !v.exists(si.Type) || v.kind(si.Type) != KindVar {
			return v.errAt(id, "secinfo #%d: type_id %d%s is not a VAR", i, si.Type, v.refDesc(si.Type))
		}
		if !v.isSink(si.Type) && !v.resolved(si.Type) {
			vx.next = i + 1
			return v.push(si.Type)
		}
		_, size, ok := v.idSize(v.s.Type(si.Type).Ref())
		if !ok {
			return v.errAt(id, "secinfo #%d: VAR [%d] has a type without size", i, si.Type)
		}
		if si.Size < size {
			return v.errAt(id, "secinfo #%d: size %d smaller than VAR [%d]'s type (%d)", i, si.Size, si.Type, size)
		}
	}
	v.popResolved(0, 0)
	return nil
}
