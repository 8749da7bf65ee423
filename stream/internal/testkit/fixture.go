package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// Fixture is one build of a test source. The same sources are built by
// several compilers and options and checked against one oracle.
type Fixture struct {
	Name string
	CC   string
	Args []string
	Src  string // in stream/testdata
	Post string // "zstd": recompress debug sections with objcopy; "link": link, don't -c
}

// Fixtures are the builds of stream/testdata's reader fixtures.
var Fixtures = []Fixture{
	{"gcc-dwarf2", "gcc", []string{"-gdwarf-2", "-O0"}, "fixture.c", ""},
	{"gcc-dwarf3", "gcc", []string{"-gdwarf-3", "-O1"}, "fixture.c", ""},
	{"gcc-dwarf4", "gcc", []string{"-gdwarf-4", "-O1"}, "fixture.c", ""},
	{"gcc-dwarf5", "gcc", []string{"-gdwarf-5", "-O2"}, "fixture.c", ""},
	{"gcc-gz-zlib", "gcc", []string{"-g", "-gz=zlib"}, "fixture.c", ""},
	{"gcc-gz-zlib-gnu", "gcc", []string{"-g", "-gz=zlib-gnu"}, "fixture.c", ""},
	{"gcc-zstd", "gcc", []string{"-g", "-O2"}, "fixture.c", "zstd"},
	{"gcc-m32", "gcc", []string{"-g", "-m32", "-O2"}, "fixture.c", ""},
	{"gcc-s390x", "s390x-linux-gnu-gcc", []string{"-g", "-O2"}, "fixture.c", ""},
	{"gcc-armhf", "arm-linux-gnueabihf-gcc", []string{"-g", "-O2"}, "fixture.c", ""},
	{"gcc-types-dwarf4", "gcc", []string{"-x", "c++", "-gdwarf-4", "-fdebug-types-section"}, "types.cc", ""},
	{"clang-dwarf4", "clang", []string{"-gdwarf-4", "-O1"}, "fixture.c", ""},
	{"clang-dwarf5", "clang", []string{"-gdwarf-5", "-O2"}, "fixture.c", ""},
	{"clang-dwarf64", "clang", []string{"-gdwarf-5", "-gdwarf64", "-O2"}, "fixture.c", ""},
	{"clang-m32", "clang", []string{"-m32", "-gdwarf-5", "-O2"}, "fixture.c", ""},
	{"clang-s390x", "clang", []string{"--target=s390x-linux-gnu", "-g", "-O2"}, "fixture.c", ""},
	{"clang-aarch64", "clang", []string{"--target=aarch64-linux-gnu", "-g", "-O2"}, "fixture.c", ""},
	{"clang-arm", "clang", []string{"--target=arm-linux-gnueabihf", "-g", "-O2"}, "fixture.c", ""},
	{"clang-riscv64", "clang", []string{"--target=riscv64-linux-gnu", "-g", "-O2", "-mno-relax"}, "fixture.c", ""},
	{"clang-ppc64le", "clang", []string{"--target=powerpc64le-linux-gnu", "-g", "-O2"}, "fixture.c", ""},
	{"clang-ppc64", "clang", []string{"--target=powerpc64-linux-gnu", "-g", "-O2"}, "fixture.c", ""},
	{"clang-types-dwarf5", "clang", []string{"-x", "c++", "-gdwarf-5", "-fdebug-types-section"}, "types.cc", ""},
	// A linked executable that kept .rela.debug_* (--emit-relocs, as a
	// vmlinux can): those relocations must not be applied.
	{"gcc-exe-emit-relocs", "gcc", []string{"-g", "-O2", "-nostdlib", "-static",
		"-Wl,--emit-relocs,--unresolved-symbols=ignore-all,-e,0"}, "fixture.c", "link"},
}

var (
	fixtureDir  string
	fixtureOnce sync.Once
	fixtureMu   sync.Mutex
	fixtureOut  = map[string]string{}
)

// Named returns the fixture called name, or skips.
func Named(t testing.TB, name string) Fixture {
	for _, x := range Fixtures {
		if x.Name == name {
			return x
		}
	}
	t.Skipf("no fixture %q", name)
	return Fixture{}
}

// BuildSeed builds the fixture for a fuzz seed, returning "" on failure.
func (fx Fixture) BuildSeed() string {
	done := make(chan string, 1)
	go func() {
		p := ""
		defer func() { done <- p }() // also runs on runtime.Goexit
		p = fx.Build(&seedTB{})
	}()
	return <-done
}

// seedTB lets build run outside a test: Skip ends the goroutine.
type seedTB struct {
	testing.TB
	failed bool
}

func (s *seedTB) Helper()               {}
func (s *seedTB) Skipf(string, ...any)  { s.failed = true; runtime.Goexit() }
func (s *seedTB) Skip(...any)           { s.failed = true; runtime.Goexit() }
func (s *seedTB) Fatalf(string, ...any) { s.failed = true; runtime.Goexit() }
func (s *seedTB) Fatal(...any)          { s.failed = true; runtime.Goexit() }

// Build compiles a fixture into a shared temporary directory, or skips
// the test if the compiler is missing or rejects the options.
func (fx Fixture) Build(t testing.TB) string {
	t.Helper()
	fixtureOnce.Do(func() {
		d, err := os.MkdirTemp("", "stream-fixtures-")
		if err != nil {
			panic(err)
		}
		fixtureDir = d
	})
	fixtureMu.Lock()
	defer fixtureMu.Unlock()
	if p, ok := fixtureOut[fx.Name]; ok {
		if p == "" {
			t.Skipf("%s: fixture unavailable", fx.Name)
		}
		return p
	}
	fixtureOut[fx.Name] = ""
	cc, err := exec.LookPath(fx.CC)
	if err != nil {
		t.Skipf("%s not installed", fx.CC)
	}
	src := Testdata(fx.Src)
	out := filepath.Join(fixtureDir, fx.Name+".o")
	args := append(append([]string{}, fx.Args...), "-c", src, "-o", out)
	if fx.Post == "link" {
		args = append(append([]string{}, fx.Args...), src, "-o", out)
	}
	if msg, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Skipf("%s %s: %v\n%s", fx.CC, strings.Join(args, " "), err, msg)
	}
	if fx.Post == "zstd" {
		z := strings.TrimSuffix(out, ".o") + "-z.o"
		if msg, err := exec.Command("objcopy", "--compress-debug-sections=zstd", out, z).CombinedOutput(); err != nil {
			t.Skipf("objcopy zstd: %v\n%s", err, msg)
		}
		out = z
	}
	fixtureOut[fx.Name] = out
	return out
}

// Main runs a package's tests and then removes the fixtures Build
// compiled, so test binaries leave no directory behind. Packages that
// build fixtures call it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	fixtureMu.Lock()
	if fixtureDir != "" {
		os.RemoveAll(fixtureDir)
	}
	fixtureMu.Unlock()
	os.Exit(code)
}
