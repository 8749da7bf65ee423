package merge

import (
	"fmt"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/stream/encode"
)

// The `attributes` feature (pahole 1.31): a kfunc whose BTF_SET8 flags say
// it returns or takes pointers into a BPF arena gets those pointers
// re-pointed through a type attribute, a TYPE_TAG with kind_flag set named
// "address_space(1)", so the verifier knows their address space.
const (
	kfArenaRet  = 1 << 13 // KF_ARENA_RET
	kfArenaArg1 = 1 << 14 // KF_ARENA_ARG1
	kfArenaArg2 = 1 << 15 // KF_ARENA_ARG2

	arenaAttr = "address_space(1)"

	kfFastcall     = 1 << 12 // KF_FASTCALL
	kfuncDeclTag   = "bpf_kfunc"
	fastcallDeclTg = "bpf_fastcall"
)

// arenaProto returns the return type and parameters of a kfunc's prototype
// with the arena attributes its flags ask for, adding the TYPE_TAG and PTR
// types to out first (return type, then the first and the second
// parameter, as pahole does). params is not modified; a changed list is a
// copy. A flagged position that is not a pointer is an error, as in
// pahole.
func arenaProto(out *btf.Spec, name string, flags uint32, ret btf.TypeID, params []encode.FuncParam) (btf.TypeID, []encode.FuncParam, error) {
	if flags&(kfArenaRet|kfArenaArg1|kfArenaArg2) == 0 {
		return ret, params, nil
	}
	tag := func(ptr btf.TypeID, what string) (btf.TypeID, error) {
		t := out.Type(ptr)
		if t.Kind() != btf.KindPtr {
			return 0, fmt.Errorf("kfunc %s: %s is %s [%d], not a pointer, for %s", name, what, t.Kind(), ptr, arenaAttr)
		}
		attr := out.Add(btf.Type{NameOff: out.Strings().Add(arenaAttr), Info: btf.MakeInfo(btf.KindTypeTag, 0, true), SizeOrType: t.SizeOrType})
		return out.Add(btf.Type{Info: btf.MakeInfo(btf.KindPtr, 0, false), SizeOrType: uint32(attr)}), nil
	}
	var err error
	if flags&kfArenaRet != 0 {
		if ret, err = tag(ret, "the return type"); err != nil {
			return 0, nil, err
		}
	}
	params = append([]encode.FuncParam(nil), params...)
	for i, bit := range []uint32{kfArenaArg1, kfArenaArg2} {
		if flags&bit == 0 {
			continue
		}
		if i >= len(params) {
			return 0, nil, fmt.Errorf("kfunc %s: no parameter %d for %s", name, i+1, arenaAttr)
		}
		if params[i].Type, err = tag(params[i].Type, fmt.Sprintf("parameter %d", i+1)); err != nil {
			return 0, nil, err
		}
	}
	return ret, params, nil
}
