package main

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func same(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

func TestMedianPercentile(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		in          []float64
		median, p90 float64
		max         int
	}{
		{nil, nan, nan, -1},
		{[]float64{3}, 3, 3, 0},
		{[]float64{2, 1}, 1.5, 2, 0},
		{[]float64{5, 1, 3}, 3, 5, 0},
		{[]float64{4, 1, 3, 2}, 2.5, 4, 0},
		// nearest rank: ceil(0.9*10) = 9th smallest
		{[]float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 5.5, 9, 0},
		// ceil(0.9*11) = 10th smallest; max is the first of equal values
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 11}, 6, 11, 9},
		{[]float64{0.5, 2.65, 1.14, 1.14, 1.46}, 1.14, 2.65, 1},
	} {
		orig := append([]float64(nil), tc.in...)
		if got := median(tc.in); !same(got, tc.median) {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.median)
		}
		if got := percentile(tc.in, 90); !same(got, tc.p90) {
			t.Errorf("percentile(%v, 90) = %v, want %v", tc.in, got, tc.p90)
		}
		if got := argmax(tc.in); got != tc.max {
			t.Errorf("argmax(%v) = %d, want %d", tc.in, got, tc.max)
		}
		if !reflect.DeepEqual(orig, tc.in) && len(orig) > 0 {
			t.Errorf("input changed: %v, was %v", tc.in, orig)
		}
	}
}

func TestPercentileBounds(t *testing.T) {
	xs := []float64{4, 2, 3, 1}
	for _, tc := range []struct{ p, want float64 }{{0, 1}, {25, 1}, {26, 2}, {50, 2}, {75, 3}, {100, 4}, {150, 4}} {
		if got := percentile(xs, tc.p); got != tc.want {
			t.Errorf("percentile(%v, %v) = %v, want %v", xs, tc.p, got, tc.want)
		}
	}
}

func TestRatio(t *testing.T) {
	for _, tc := range []struct{ a, b, want float64 }{
		{3, 2, 1.5},
		{201.5, 403, 0.5},
		{0, 2, 0},
		{1, 0, math.NaN()},
	} {
		if got := ratio(tc.a, tc.b); !same(got, tc.want) {
			t.Errorf("ratio(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestParseTool(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want tool
		err  string
	}{
		{"before=/work/before-bs", tool{name: "before", path: "/work/before-bs"}, ""},
		{"after.2=x/btfstream=1", tool{name: "after.2", path: "x/btfstream=1"}, ""},
		{"before", tool{}, "NAME=PATH"},
		{"=/bin/x", tool{}, "NAME=PATH"},
		{"a=", tool{}, "NAME=PATH"},
		{"pahole=/bin/x", tool{}, "reference"},
		{"a b=/bin/x", tool{}, "letters"},
	} {
		got, err := parseTool(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseTool(%q): error %v, want one with %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("parseTool(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
	var f toolFlag
	if err := f.Set("a=/x"); err != nil {
		t.Fatal(err)
	}
	if err := f.Set("a=/y"); err == nil {
		t.Error("the same name twice: no error")
	}
	if err := f.Set("b=/y"); err != nil || f.String() != "a=/x,b=/y" {
		t.Errorf("after a, b: %q, %v", f.String(), err)
	}
}

func TestMeasureRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want measure
		ok   bool
	}{
		{formatMeasure(1_500_000_000, 250_000_000, 29276), measure{1.5, 0.25, 29276}, true},
		{"0 0 0\n", measure{}, true},
		{"", measure{}, false},
		{"1 2", measure{}, false},
		{"1 2 x", measure{}, false},
		{"1 -2 3", measure{}, false},
		{"1 2 3 4", measure{}, false},
	} {
		got, err := parseMeasure(tc.in)
		if (err == nil) != tc.ok || tc.ok && got != tc.want {
			t.Errorf("parseMeasure(%q) = %+v, %v; want %+v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestModuleNameSampleRotate(t *testing.T) {
	for in, want := range map[string]string{
		"net/ipv4/tcp_bbr.ko":                    "tcp_bbr",
		"fs/xfs/xfs.ko":                          "xfs",
		"drivers/net/virtio_net.ko":              "virtio_net",
		"drivers/hid/hid-logitech-hidpp.ko":      "hid_logitech_hidpp",
		"arch/x86/crypto/aegis128-aesni.ko":      "aegis128_aesni",
		"net/netfilter/nf_tables.ko":             "nf_tables",
		"kernel/kheaders.ko":                     "kheaders",
		"drivers/md/dm-mod.ko":                   "dm_mod",
		"drivers/gpu/drm/i915/i915.ko":           "i915",
		"sound/pci/hda/snd-hda-codec-realtek.ko": "snd_hda_codec_realtek",
	} {
		if got := moduleName(in); got != want {
			t.Errorf("moduleName(%q) = %q, want %q", in, got, want)
		}
	}
	items := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	for _, tc := range []struct {
		n    int
		want []int
	}{{0, items}, {10, items}, {20, items}, {1, []int{0}}, {3, []int{0, 3, 6}}, {4, []int{0, 2, 5, 7}}} {
		if got := sample(items, tc.n); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("sample(%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
	tools := []tool{{name: "pahole"}, {name: "a"}, {name: "b"}}
	for k, want := range []string{"pahole a b", "a b pahole", "b pahole a", "pahole a b"} {
		var got []string
		for _, x := range rotate(tools, k) {
			got = append(got, x.name)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("rotate(%d) = %v, want %s", k, got, want)
		}
	}
}

func TestArgs(t *testing.T) {
	p := tool{name: "pahole", pahole: true}
	b := tool{name: "b"}
	want := "-J -j1 --btf_features=" + kbuildFeatures + ",reproducible_build --lang_exclude=rust --btf_encode_detached o.btf --btf_base v.btf m.ko"
	if got := strings.Join(p.args(1, "m.ko", "o.btf", "v.btf"), " "); got != want {
		t.Errorf("pahole args:\n%s\nwant\n%s", got, want)
	}
	want = "-J -j2 --btf_features=" + kbuildFeatures + " --lang_exclude=rust --btf_encode_detached o.btf vmlinux"
	if got := strings.Join(b.args(2, "vmlinux", "o.btf", ""), " "); got != want {
		t.Errorf("btfstream args:\n%s\nwant\n%s", got, want)
	}
}

func TestModuleDir(t *testing.T) {
	root := t.TempDir()
	kernel := filepath.Join(root, "lib/modules/7.2.13-cloud/kernel")
	for _, p := range []string{"net/ipv4/tcp_bbr.ko", "fs/xfs/xfs.ko", "fs/xfs/README"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(kernel, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(kernel, p), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := moduleDir(filepath.Join(root, "boot/vmlinux-7.2.13-cloud"))
	if err != nil || d != kernel {
		t.Fatalf("moduleDir = %q, %v; want %q", d, err, kernel)
	}
	mods, err := listModules(d)
	if want := []string{"fs/xfs/xfs.ko", "net/ipv4/tcp_bbr.ko"}; err != nil || !reflect.DeepEqual(mods, want) {
		t.Errorf("listModules = %v, %v; want %v", mods, err, want)
	}
	for _, bad := range []string{filepath.Join(root, "vmlinux-7.2.13-cloud"), filepath.Join(root, "boot/vmlinux-6.1")} {
		if _, err := moduleDir(bad); err == nil {
			t.Errorf("moduleDir(%q): no error", bad)
		}
	}
}
