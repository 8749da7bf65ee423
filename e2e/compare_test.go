package e2e

import (
	"fmt"
	"sort"
	"strings"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/dedup"
)

// kindCounts counts the local types of s by kind.
func kindCounts(s *btf.Spec) map[btf.Kind]int {
	m := map[btf.Kind]int{}
	for id := s.FirstID(); id < s.NextID(); id++ {
		m[s.Kind(id)]++
	}
	return m
}

// namesOf returns the multiset of names of the local types of kind k.
func namesOf(s *btf.Spec, k btf.Kind) map[string]int {
	m := map[string]int{}
	for id := s.FirstID(); id < s.NextID(); id++ {
		if s.Kind(id) == k {
			m[s.Name(id)]++
		}
	}
	return m
}

// minus returns the names in a but not in b (by count), sorted.
func minus(a, b map[string]int) []string {
	var out []string
	for n, c := range a {
		for i := b[n]; i < c; i++ {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// countTable prints per-kind counts of several Specs side by side.
func countTable(names []string, counts ...map[btf.Kind]int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-12s", "KIND")
	for _, n := range names {
		fmt.Fprintf(&b, " %14s", n)
	}
	b.WriteString("\n")
	for k := btf.KindInt; k <= btf.MaxKind; k++ {
		fmt.Fprintf(&b, "%-12s", k)
		for _, c := range counts {
			fmt.Fprintf(&b, " %14d", c[k])
		}
		b.WriteString("\n")
	}
	return b.String()
}

func head(s []string, n int) string {
	if len(s) > n {
		return fmt.Sprintf("%q ...", s[:n])
	}
	return fmt.Sprintf("%q", s)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// checkOwnBTF compares got, an encoding made here of a file of a Debian
// 7.x kernel package (the vmlinux, or a module over the vmlinux's own
// .BTF), with the file's own .BTF: Debian's build made it with pahole 1.32
// and resolve_btfids then changed it (scripts/gen-btf.sh). The two must be
// the same type graph but for what follows, each derived from the two
// inputs, nothing counted in advance:
//
//   - resolve_btfids' rewrite of the kfuncs with implicit arguments
//     (KF_IMPLICIT_ARGS): kfunc X keeps its name with a new FUNC_PROTO
//     that lacks the implicit parameters, and a FUNC X_impl with the
//     prototype pahole wrote is added unless the kernel has one. So a FUNC
//     X (on both sides, as many) whose own side has a FUNC X_impl, own's
//     FUNC X_impl where that X is rewritten, FUNC_PROTOs used only by such
//     FUNCs, and DECL_TAGs on such FUNCs may differ.
//   - bpf_fastcall DECL_TAGs, as many on each side: pahole reads the
//     KF_FASTCALL flags from the .BTF_ids sets by the position of each
//     kfunc's symbol, and run on the released vmlinux it reads sets that
//     resolve_btfids has sorted by BTF id since, so its tags fall on other
//     kfuncs than in Debian's build (which ran pahole before
//     resolve_btfids).
//   - in a module, own types identical to a base type (baseCopies): each
//     stands for its base type (Debian's pahole 1.32 leaves them).
//
// It returns the problems and a one-line account of what differed.
func checkOwnBTF(got, own *btf.Spec) (errs []string, account string) {
	c, err := dedup.Compare(got, own)
	if err != nil {
		return []string{err.Error()}, ""
	}
	onlyGot, onlyOwn := c.Unmatched()
	ownFuncs := namesOf(own, btf.KindFunc)
	rewritten := func(s *btf.Spec, id btf.TypeID) bool {
		return s.Kind(id) == btf.KindFunc && ownFuncs[s.Name(id)+"_impl"] > 0
	}
	added := func(s *btf.Spec, id btf.TypeID) bool {
		x, ok := strings.CutSuffix(s.Name(id), "_impl")
		return s == own && s.Kind(id) == btf.KindFunc && ok && ownFuncs[x] > 0
	}
	copies := map[btf.TypeID]bool{}
	if own.Base() != nil {
		for _, id := range baseCopies(own) {
			copies[id] = true
		}
	}
	nRewritten, nAdded, nProtos, nCopies := 0, 0, 0, 0
	fastcall := [2]int{}
	rewrittenNames := [2]map[string]int{{}, {}}
	sideName := [2]string{"ours", "the file's own"}
	for side, ids := range [2][]btf.TypeID{onlyGot, onlyOwn} {
		s := [2]*btf.Spec{got, own}[side]
		users := protoUsers(s)
		explainedFunc := func(id btf.TypeID) bool { return rewritten(s, id) || added(s, id) }
		var unexplained []btf.TypeID
		for _, id := range ids {
			switch k := s.Kind(id); {
			case copies[id] && side == 1:
				nCopies++
			case rewritten(s, id):
				rewrittenNames[side][s.Name(id)]++
				if side == 1 {
					nRewritten++
				}
			case added(s, id):
				nAdded++
			case k == btf.KindDeclTag && s.Name(id) == "bpf_fastcall":
				fastcall[side]++
			case k == btf.KindDeclTag && explainedFunc(s.Type(id).Ref()):
			case k == btf.KindFuncProto && len(users[id]) > 0 && all(users[id], explainedFunc):
				nProtos++
			default:
				unexplained = append(unexplained, id)
			}
		}
		if len(unexplained) > 0 {
			errs = append(errs, fmt.Sprintf("%d types only %s %v, not explained by resolve_btfids; the first:%s",
				len(unexplained), sideName[side], copyKinds(s, unexplained), dumpFirst(s, unexplained, 12)))
		}
	}
	if a, b := minus(rewrittenNames[0], rewrittenNames[1]), minus(rewrittenNames[1], rewrittenNames[0]); len(a)+len(b) > 0 {
		errs = append(errs, fmt.Sprintf("kfuncs with implicit arguments differ on one side only: ours %s, own %s", head(a, 10), head(b, 10)))
	}
	if fastcall[0] != fastcall[1] {
		errs = append(errs, fmt.Sprintf("bpf_fastcall tags without counterpart: %d of ours, %d of the file's own", fastcall[0], fastcall[1]))
	}
	account = fmt.Sprintf("resolve_btfids: %d kfuncs with implicit arguments rewritten (%d FUNC X_impl added, %d new FUNC_PROTOs); %d bpf_fastcall tags on other kfuncs; %d base copies in the file's own .BTF",
		nRewritten, nAdded, nProtos, fastcall[0], nCopies)
	return errs, account
}

// protoUsers maps each local FUNC_PROTO of s to the local types that refer
// to it.
func protoUsers(s *btf.Spec) map[btf.TypeID][]btf.TypeID {
	m := map[btf.TypeID][]btf.TypeID{}
	for id := s.FirstID(); id < s.NextID(); id++ {
		s.ForEachRef(id, func(ref *uint32) {
			if to := btf.TypeID(*ref); s.Local(to) && s.Kind(to) == btf.KindFuncProto {
				m[to] = append(m[to], id)
			}
		})
	}
	return m
}

func all(ids []btf.TypeID, f func(btf.TypeID) bool) bool {
	for _, id := range ids {
		if !f(id) {
			return false
		}
	}
	return true
}
