package dwarfread

import "debug/dwarf"

// DW_FORM_* codes (DWARF 5, section 7.5.6, plus GNU extensions).
const (
	formAddr          = 0x01
	formBlock2        = 0x03
	formBlock4        = 0x04
	formData2         = 0x05
	formData4         = 0x06
	formData8         = 0x07
	formString        = 0x08
	formBlock         = 0x09
	formBlock1        = 0x0a
	formData1         = 0x0b
	formFlag          = 0x0c
	formSdata         = 0x0d
	formStrp          = 0x0e
	formUdata         = 0x0f
	formRefAddr       = 0x10
	formRef1          = 0x11
	formRef2          = 0x12
	formRef4          = 0x13
	formRef8          = 0x14
	formRefUdata      = 0x15
	formIndirect      = 0x16
	formSecOffset     = 0x17
	formExprloc       = 0x18
	formFlagPresent   = 0x19
	formStrx          = 0x1a
	formAddrx         = 0x1b
	formRefSup4       = 0x1c
	formStrpSup       = 0x1d
	formData16        = 0x1e
	formLineStrp      = 0x1f
	formRefSig8       = 0x20
	formImplicitConst = 0x21
	formLoclistx      = 0x22
	formRnglistx      = 0x23
	formRefSup8       = 0x24
	formStrx1         = 0x25
	formStrx2         = 0x26
	formStrx3         = 0x27
	formStrx4         = 0x28
	formAddrx1        = 0x29
	formAddrx2        = 0x2a
	formAddrx3        = 0x2b
	formAddrx4        = 0x2c
	formGNUAddrIndex  = 0x1f01
	formGNUStrIndex   = 0x1f02
	formGNURefAlt     = 0x1f20
	formGNUStrpAlt    = 0x1f21
)

// Decode operations: what the DIE decoder does for a form, and what the
// 64-bit word it stores in arena.Vals means.
const (
	opInvalid   uint8 = iota
	opU1              // 1-byte unsigned: value
	opU2              // 2-byte unsigned: value
	opU3              // 3-byte unsigned: value
	opU4              // 4-byte unsigned: value
	opU8              // 8-byte unsigned: value
	opUleb            // ULEB128: value
	opSleb            // SLEB128: value as int64 bits
	opRef1            // unit-relative references: stored as section offset
	opRef2            //
	opRef4            //
	opRef8            //
	opRefUleb         //
	opString          // inline string: position in arena.Bytes
	opBlock1          // blocks: position<<32 | length in arena.Bytes
	opBlock2          //
	opBlock4          //
	opBlockUleb       //
	opData16          // 16 bytes: position in arena.Bytes
	opPresent         // flag_present: 1
	opImplicit        // implicit_const: the constant from the abbreviation
	opIndirect        // the form follows in the data (recorded in arena.Extra)
)

// formOp returns the decode op of form for a unit of format k, and its byte
// size when fixed (0 when variable).
func formOp(form uint16, k abbrevKey) (op uint8, size uint8) {
	offOp, offSize := opU4, uint8(4)
	if k.is64 {
		offOp, offSize = opU8, 8
	}
	switch form {
	case formAddr:
		switch k.addrSize {
		case 1:
			return opU1, 1
		case 2:
			return opU2, 2
		case 4:
			return opU4, 4
		case 8:
			return opU8, 8
		}
		return opInvalid, 0
	case formData1, formFlag, formStrx1, formAddrx1:
		return opU1, 1
	case formData2, formStrx2, formAddrx2:
		return opU2, 2
	case formStrx3, formAddrx3:
		return opU3, 3
	case formData4, formStrx4, formAddrx4, formRefSup4:
		return opU4, 4
	case formData8, formRefSig8, formRefSup8:
		return opU8, 8
	case formData16:
		return opData16, 16
	case formUdata, formStrx, formAddrx, formLoclistx, formRnglistx, formGNUAddrIndex, formGNUStrIndex:
		return opUleb, 0
	case formSdata:
		return opSleb, 0
	case formRef1:
		return opRef1, 1
	case formRef2:
		return opRef2, 2
	case formRef4:
		return opRef4, 4
	case formRef8:
		return opRef8, 8
	case formRefUdata:
		return opRefUleb, 0
	case formRefAddr:
		if k.version == 2 {
			return formOp(formAddr, k)
		}
		return offOp, offSize
	case formStrp, formLineStrp, formSecOffset, formStrpSup, formGNURefAlt, formGNUStrpAlt:
		return offOp, offSize
	case formString:
		return opString, 0
	case formBlock1:
		return opBlock1, 0
	case formBlock2:
		return opBlock2, 0
	case formBlock4:
		return opBlock4, 0
	case formBlock, formExprloc:
		return opBlockUleb, 0
	case formFlagPresent:
		return opPresent, 0
	case formImplicitConst:
		return opImplicit, 0
	case formIndirect:
		return opIndirect, 0
	}
	return opInvalid, 0
}

// attrPtrClass gives the *ptr class of attributes whose constant or
// sec_offset forms are section offsets (as in debug/dwarf).
func attrPtrClass(at dwarf.Attr) (dwarf.Class, bool) {
	switch at {
	case dwarf.AttrLocation, dwarf.AttrStringLength, dwarf.AttrReturnAddr, dwarf.AttrDataMemberLoc,
		dwarf.AttrFrameBase, dwarf.AttrSegment, dwarf.AttrStaticLink, dwarf.AttrUseLocation,
		dwarf.AttrVtableElemLoc, dwarf.AttrLoclistsBase:
		return dwarf.ClassLocListPtr, true
	case dwarf.AttrStmtList:
		return dwarf.ClassLinePtr, true
	case dwarf.AttrStartScope, dwarf.AttrRanges:
		return dwarf.ClassRangeListPtr, true
	case dwarf.AttrMacroInfo:
		return dwarf.ClassMacPtr, true
	case dwarf.AttrStrOffsetsBase:
		return dwarf.ClassStrOffsetsPtr, true
	case dwarf.AttrAddrBase:
		return dwarf.ClassAddrPtr, true
	case dwarf.AttrRnglistsBase:
		return dwarf.ClassRngListsPtr, true
	}
	return 0, false
}

// formClass returns the DWARF class of an attribute value, following the
// rules of debug/dwarf (DWARF 2/3 blocks and constants are promoted to
// exprloc and *ptr classes where the attribute calls for it).
func formClass(form uint16, at dwarf.Attr, version uint16) dwarf.Class {
	switch form {
	case formAddr, formAddrx, formAddrx1, formAddrx2, formAddrx3, formAddrx4, formGNUAddrIndex:
		return dwarf.ClassAddress
	case formBlock1, formBlock2, formBlock4, formBlock:
		if _, ok := attrPtrClass(at); ok {
			return dwarf.ClassExprLoc
		}
		return dwarf.ClassBlock
	case formData1, formData2, formData4, formData8, formSdata, formUdata, formData16, formImplicitConst:
		if c, ok := attrPtrClass(at); version < 4 && ok {
			return c
		}
		return dwarf.ClassConstant
	case formFlag, formFlagPresent:
		return dwarf.ClassFlag
	case formRefAddr, formRef1, formRef2, formRef4, formRef8, formRefUdata, formRefSup4, formRefSup8:
		return dwarf.ClassReference
	case formRefSig8:
		return dwarf.ClassReferenceSig
	case formString, formStrp, formStrx, formStrpSup, formLineStrp, formStrx1, formStrx2, formStrx3, formStrx4, formGNUStrIndex:
		return dwarf.ClassString
	case formSecOffset:
		if c, ok := attrPtrClass(at); ok {
			return c
		}
		return dwarf.ClassUnknown
	case formExprloc:
		return dwarf.ClassExprLoc
	case formGNURefAlt:
		return dwarf.ClassReferenceAlt
	case formGNUStrpAlt:
		return dwarf.ClassStringAlt
	case formLoclistx:
		return dwarf.ClassLocList
	case formRnglistx:
		return dwarf.ClassRngList
	}
	return dwarf.ClassUnknown
}
