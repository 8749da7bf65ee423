package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/btfstream/btfstream/btf"
	"github.com/btfstream/btfstream/e2e/testenv"
	"github.com/btfstream/btfstream/stream/elffile"
)

// TestReferencePahole is the gate: for every kernel of BTFSTREAM_KERNELS,
// btfstream's BTF of the vmlinux and of the five modules of gateModules
// beside it must equal the reference pahole 1.32's, run live with the same
// flags, as type graphs (`btfstream diff` exits 0). There is no list of
// allowed differences. Modules are encoded by both tools against the
// reference's vmlinux BTF, as kbuild encodes them against the vmlinux it
// just built, and compared over it (`btfstream diff --base`). On kernels
// 6.12 and later the vmlinux is also encoded with true_signature and
// force_cu_merging added to the features, by both tools.
//
// The log shows, per input, the types per kind of both side by side, and
// for each vmlinux both tools' wall time and peak RSS (wait4's rusage);
// per module, how many of pahole's types are copies of a base type
// (baseCopies): btfstream's output must have none. A failure says which
// kernel and input, and carries the counts per kind side by side and the
// first differences. Under CI=true the kernels must come from at least two
// compilers (read from each vmlinux's .comment), so that one kernel alone
// cannot pass.
func TestReferencePahole(t *testing.T) {
	pahole := testenv.Pahole(t)
	kernels := testenv.Kernels(t)
	btfstreamBin(t)
	comps := map[string]bool{}
	for _, k := range kernels {
		c, err := compilers(k)
		if err != nil {
			t.Fatal(err)
		}
		comps[c] = true
		t.Logf("kernel %s, built by %s", kernelTag(k), c)
	}
	if testenv.InCI() && len(comps) < 2 {
		t.Fatalf("CI=true: BTFSTREAM_KERNELS must name kernels of at least two compilers; it has %d kernel(s) of %d", len(kernels), len(comps))
	}
	for _, k := range kernels {
		t.Run(kernelTag(k), func(t *testing.T) {
			kr := runsFor(k)
			t.Run("vmlinux", func(t *testing.T) { compareVmlinux(t, kr, pahole) })
			if withExtraFeatures(k) {
				t.Run("vmlinux+"+strings.ReplaceAll(extraFeatures, ",", "+"), func(t *testing.T) {
					compareVmlinux(t, runsFor(k, extraFeatures), pahole)
				})
			}

			kos, missing := kernelModules(k)
			if len(missing) > 0 {
				testenv.Missing(t, "modules %v not beside %s (kernel-dbg.sh extracts them)", missing, k)
			}
			ref := kr.paholeVmlinux(t, pahole)
			base, err := elffile.LoadBTF(ref.out, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, ko := range kos {
				t.Run(strings.TrimSuffix(filepath.Base(ko), ".ko"), func(t *testing.T) {
					compareModule(t, pahole, kernelTag(k), ref.out, base, ko)
				})
			}
		})
	}
}

// withExtraFeatures reports whether the gate also encodes the vmlinux
// with extraFeatures: kernels 6.12 and later (the kernel version is read
// from the file name, vmlinux-VERSION).
func withExtraFeatures(vmlinux string) bool {
	maj, min := kernelVersion(vmlinux)
	return maj > 6 || maj == 6 && min >= 12
}

// kernelVersion returns the major and minor version of vmlinux-X.Y.Z...,
// or 0, 0.
func kernelVersion(vmlinux string) (major, minor int) {
	v := kernelTag(vmlinux)
	if _, err := fmt.Sscanf(v, "%d.%d", &major, &minor); err != nil {
		return 0, 0
	}
	return major, minor
}

func compareVmlinux(t *testing.T, kr *kernelRuns, pahole string) {
	ref := kr.paholeVmlinux(t, pahole)
	ours := kr.oursVmlinux(t, pahole)
	t.Logf("vmlinux: %v; %v (time %s, peak RSS %s of pahole's)", ref, ours,
		ratio(ours.wall.Seconds(), ref.wall.Seconds()), ratio(float64(ours.maxRSS), float64(ref.maxRSS)))
	want, got := loadBTF(t, ref.out, nil), loadBTF(t, ours.out, nil)
	t.Logf("types per kind:\n%s", sideBySide(kindCounts(want), kindCounts(got)))
	if err := got.Validate(); err != nil {
		t.Errorf("btfstream's output does not validate: %v", err)
	}
	if err := btfDiff(t, "", ref.out, ours.out); err != nil {
		t.Errorf("%s vmlinux (features %s): btfstream's BTF is not %s's: %v", kernelTag(kr.vmlinux), features(kr.extraList()), testenv.PaholeName, err)
	}
}

func compareModule(t *testing.T, pahole, tag, baseFile string, base *btf.Spec, ko string) {
	stem := filepath.Join(workDir, tag+"."+strings.TrimSuffix(filepath.Base(ko), ".ko"))
	ref := run(t, testenv.PaholeName, stem+".pahole.btf", paholeTimeout, pahole, paholeArgs(stem+".pahole.btf", baseFile, ko)...)
	if ref.err != nil {
		t.Fatalf("the reference failed: %v", ref.err)
	}
	ours := run(t, "btfstream", stem+".btfstream.btf", oursTimeout(ref.wall, 30*time.Second), btfstreamBin(t), oursArgs(stem+".btfstream.btf", baseFile, ko)...)
	if ours.err != nil {
		t.Fatalf("btfstream failed (the reference took %.1f s): %v", ref.wall.Seconds(), ours.err)
	}
	want, got := loadBTF(t, ref.out, base), loadBTF(t, ours.out, base)
	refCopies, ourCopies := baseCopies(want), baseCopies(got)
	t.Logf("%v; %v\ntypes per kind (split BTF over the reference's vmlinux BTF):\n%s\nbase copies (module types identical to a base type): %s %d %v, btfstream %d",
		ref, ours, sideBySide(kindCounts(want), kindCounts(got)), testenv.PaholeName, len(refCopies), copyKinds(want, refCopies), len(ourCopies))
	if err := got.Validate(); err != nil {
		t.Errorf("btfstream's output does not validate: %v", err)
	}
	if len(ourCopies) > 0 {
		t.Errorf("%s %s: btfstream's module BTF has %d types identical to a base type %v; the first: %s",
			tag, filepath.Base(ko), len(ourCopies), copyKinds(got, ourCopies), dumpFirst(got, ourCopies, 5))
	}
	if err := btfDiff(t, baseFile, ref.out, ours.out); err != nil {
		t.Errorf("%s %s: btfstream's BTF is not %s's (%d of whose types are base copies): %v", tag, filepath.Base(ko), testenv.PaholeName, len(refCopies), err)
	}
}

// copyKinds counts ids of s by kind, for a log line.
func copyKinds(s *btf.Spec, ids []btf.TypeID) map[btf.Kind]int {
	m := map[btf.Kind]int{}
	for _, id := range ids {
		m[s.Kind(id)]++
	}
	return m
}

// dumpFirst dumps the first n of ids, one line each.
func dumpFirst(s *btf.Spec, ids []btf.TypeID, n int) string {
	var b strings.Builder
	for i, id := range ids {
		if i == n {
			b.WriteString("\n  ...")
			break
		}
		b.WriteString("\n  " + firstLine(s.DumpType(id)))
	}
	return b.String()
}

func loadBTF(t *testing.T, path string, base *btf.Spec) *btf.Spec {
	t.Helper()
	s, err := elffile.LoadBTF(path, base)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// sideBySide prints pahole's and btfstream's counts per kind (kinds that
// either has) and the totals, marking rows that differ.
func sideBySide(want, got map[btf.Kind]int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  %-10s %10s %10s\n", "KIND", "pahole", "btfstream")
	tw, tg := 0, 0
	for k := btf.KindInt; k <= btf.MaxKind; k++ {
		w, g := want[k], got[k]
		tw, tg = tw+w, tg+g
		if w == 0 && g == 0 {
			continue
		}
		mark := ""
		if w != g {
			mark = "  *"
		}
		fmt.Fprintf(&b, "  %-10s %10d %10d%s\n", k, w, g, mark)
	}
	mark := ""
	if tw != tg {
		mark = "  *"
	}
	fmt.Fprintf(&b, "  %-10s %10d %10d%s", "total", tw, tg, mark)
	return b.String()
}
