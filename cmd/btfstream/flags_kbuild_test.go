package main

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/btfstream/btfstream/stream"
)

func parseEncode(t *testing.T, args ...string) (*encodeFlags, []string) {
	t.Helper()
	var f encodeFlags
	fs := newEncodeFlagSet(&f)
	if err := f.parse(fs, args); err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return &f, fs.Args()
}

// Feature sets the table expects.
const (
	kbuild68   = "encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func"
	kbuild611  = kbuild68 + ",decl_tag_kfuncs"
	legacy125  = legacyFeatures | stream.Features(stream.FeatFloat|stream.FeatConsistentFunc|stream.FeatOptimizedFunc)
	kbuildSet  = stream.DefaultFeatures
	reproSet   = stream.DefaultFeatures | stream.Features(stream.FeatReproducibleBuild)
	without611 = stream.DefaultFeatures &^ stream.Features(stream.FeatDeclTagKfuncs)
)

// kbuildCase is a command line and what it must mean.
type kbuildCase struct {
	name     string
	cmd      string // split on spaces
	jobs     int    // 0: -j alone (number of CPUs)
	feats    stream.Features
	langs    []string
	base     string
	detached string
}

// kbuildCases are the command lines kbuild has given a pahole that says
// v1.32 (what btfstream --version prints), and the spellings of older
// pahole versions, as each kernel's scripts wrote them:
// scripts/pahole-flags.sh (5.19-6.6; 6.1's read from Debian's
// linux-source-6.1), scripts/Makefile.btf (6.7 on; 6.12's from
// linux-source-6.12; 7.2's from linux-source-7.2, which adds attributes
// from v1.30 and layout from v1.31, nothing from v1.32), link-vmlinux.sh
// (`-J ${PAHOLE_FLAGS} ${1}`) and Makefile.modfinal (`-J $(PAHOLE_FLAGS)
// $(MODULE_PAHOLE_FLAGS) --btf_base vmlinux $@`), 7.2's gen-btf.sh (`-J
// ${PAHOLE_FLAGS} [--btf_base vmlinux] --btf_encode_detached=${1}.BTF.1
// ${1}`; M= builds distill in resolve_btfids, not pahole); then spellings a person uses, which without a feature flag
// mean kbuild 6.12's set.
func kbuildCases() []kbuildCase {
	rust := []string{"rust"}
	return []kbuildCase{
		// pahole 1.18-1.21 (pahole-flags.sh, link-vmlinux.sh before it).
		{"5.x pahole 1.18-1.20", "-J --skip_encoding_btf_vars vmlinux", 1,
			legacyFeatures &^ stream.Features(stream.FeatVar), nil, "", ""},
		{"5.x pahole 1.21", "-J --skip_encoding_btf_vars --btf_gen_floats vmlinux", 1,
			legacyFeatures&^stream.Features(stream.FeatVar) | stream.Features(stream.FeatFloat), nil, "", ""},
		{"5.15 pahole 1.22-1.23", "-J --btf_gen_floats -j vmlinux", 0,
			legacyFeatures | stream.Features(stream.FeatFloat), nil, "", ""},
		{"5.15 stable pahole 1.24 (no ENUM64 for old kernels)", "-J --btf_gen_floats -j --skip_encoding_btf_enum64 .tmp_vmlinux.btf", 0,
			legacyFeatures&^stream.Features(stream.FeatEnum64) | stream.Features(stream.FeatFloat), nil, "", ""},
		{"6.1 pahole 1.24", "-J --btf_gen_floats -j --lang_exclude=rust .tmp_vmlinux.btf", 0,
			legacyFeatures | stream.Features(stream.FeatFloat), rust, "", ""},
		// Linux 6.1 (pahole-flags.sh) with v1.25 or later: what 6.1 passes btfstream.
		{"6.1 vmlinux", "-J --btf_gen_floats -j --lang_exclude=rust --skip_encoding_btf_inconsistent_proto --btf_gen_optimized .tmp_vmlinux.btf", 0,
			legacy125, rust, "", ""},
		{"6.1 module", "-J --btf_gen_floats -j --lang_exclude=rust --skip_encoding_btf_inconsistent_proto --btf_gen_optimized --btf_base vmlinux fs/xfs/xfs.ko", 0,
			legacy125, rust, "vmlinux", ""},
		// Linux 6.7 (Makefile.btf, pahole 1.25 branch).
		{"6.7 vmlinux", "-J --btf_gen_floats -j --skip_encoding_btf_inconsistent_proto --btf_gen_optimized --lang_exclude=rust .tmp_vmlinux.btf", 0,
			legacy125, rust, "", ""},
		// Linux 6.8-6.10: --btf_features for pahole >= 1.26.
		{"6.8 vmlinux", "-J -j --btf_features=" + kbuild68 + " --lang_exclude=rust .tmp_vmlinux.btf", 0,
			without611, rust, "", ""},
		{"6.8 module", "-J -j --btf_features=" + kbuild68 + " --lang_exclude=rust --btf_base vmlinux drivers/net/virtio_net.ko", 0,
			without611, rust, "vmlinux", ""},
		// Linux 6.11-6.12: decl_tag_kfuncs; -j twice; reproducible builds.
		{"6.12 vmlinux", "-J -j --btf_features=" + kbuild611 + " -j --lang_exclude=rust .tmp_vmlinux1", 0,
			kbuildSet, rust, "", ""},
		{"6.12 vmlinux, KBUILD_BUILD_TIMESTAMP set", "-J -j --btf_features=" + kbuild611 + " -j --btf_features=+reproducible_build --lang_exclude=rust .tmp_vmlinux1", 0,
			reproSet, rust, "", ""},
		{"6.12 module", "-J -j --btf_features=" + kbuild611 + " -j --lang_exclude=rust --btf_base vmlinux fs/xfs/xfs.ko", 0,
			kbuildSet, rust, "vmlinux", ""},
		{"6.12 out-of-tree module (KBUILD_EXTMOD)", "-J -j --btf_features=" + kbuild611 + " -j --lang_exclude=rust --btf_features=distilled_base --btf_base vmlinux hello.ko", 0,
			kbuildSet | stream.Features(stream.FeatDistilledBase), rust, "vmlinux", ""},
		// Linux 7.2 (gen-btf.sh): -j$(JOBS), attributes and layout, a
		// detached output; layout makes base BTF carry the layout section.
		{"7.2 vmlinux, make -j4, KBUILD_BUILD_TIMESTAMP set", "-J -j4 --btf_features=" + kbuild611 + " --btf_features=attributes --btf_features=layout -j4 --btf_features=+reproducible_build --lang_exclude=rust --btf_encode_detached=.tmp_vmlinux1.BTF.1 .tmp_vmlinux1", 4,
			reproSet | stream.Features(stream.FeatAttributes|stream.FeatLayout), rust, "", ".tmp_vmlinux1.BTF.1"},
		{"7.2 vmlinux, make without -j", "-J -j --btf_features=" + kbuild611 + " --btf_features=attributes --btf_features=layout -j --lang_exclude=rust --btf_encode_detached=.tmp_vmlinux1.BTF.1 .tmp_vmlinux1", 0,
			kbuildSet | stream.Features(stream.FeatAttributes|stream.FeatLayout), rust, "", ".tmp_vmlinux1.BTF.1"},
		{"7.2 module (no layout in split BTF)", "-J -j2 --btf_features=" + kbuild611 + " --btf_features=attributes --btf_features=layout -j2 --lang_exclude=rust --btf_base vmlinux --btf_encode_detached=fs/xfs/xfs.ko.BTF.1 fs/xfs/xfs.ko", 2,
			kbuildSet | stream.Features(stream.FeatAttributes|stream.FeatLayout), rust, "vmlinux", "fs/xfs/xfs.ko.BTF.1"},
		{"detached with a space", "-J -j --btf_features=" + kbuild611 + " --btf_features=attributes -j --lang_exclude=rust --btf_encode_detached vmlinux.btf.o vmlinux.unstripped", 0,
			kbuildSet | stream.Features(stream.FeatAttributes), rust, "", "vmlinux.btf.o"},
		// Spellings a person uses.
		{"bare file: kbuild 6.12's set", "vmlinux", 1, kbuildSet, rust, "", ""},
		{"-J alone: kbuild 6.12's set", "-J vmlinux", 1, kbuildSet, rust, "", ""},
		{"--mem-limit: kbuild 6.12's set", "--mem-limit 1G vmlinux", 1, kbuildSet, rust, "", ""},
		{"--lang_exclude alone: pahole's defaults", "-J --lang_exclude=rust vmlinux", 1, legacyFeatures, rust, "", ""},
		// pahole 1.32: --btf_gen_all is --btf_features=all, every feature
		// (1.31 knew no "all": nothing at all).
		{"--btf_gen_all", "-J --btf_gen_all vmlinux", 1, stream.AllFeatures, nil, "", ""},
		{"all in a list", "-J --btf_features=var,all --skip_encoding_btf_vars vmlinux", 1, stream.AllFeatures &^ stream.Features(stream.FeatVar), nil, "", ""},
		{"--btf_attributes", "-J --btf_attributes vmlinux", 1, legacyFeatures | stream.Features(stream.FeatAttributes), nil, "", ""},
		// Order matters to pahole: the first --btf_features drops what
		// came before it, switches after it still count.
		{"switch before --btf_features", "-J --btf_gen_floats --btf_features=var vmlinux", 1, stream.Features(stream.FeatVar), nil, "", ""},
		{"switch after --btf_features", "-J --btf_features=var --btf_gen_floats vmlinux", 1, stream.Features(stream.FeatVar | stream.FeatFloat), nil, "", ""},
		{"skip after --btf_features", "-J --btf_features=decl_tag,var --skip_encoding_btf_decl_tag vmlinux", 1, stream.Features(stream.FeatVar), nil, "", ""},
		{"--btf_features_strict then a list", "-J --btf_features_strict=var --btf_features=float vmlinux", 1, stream.Features(stream.FeatVar | stream.FeatFloat), nil, "", ""},
		{"-Jj4", "-Jj4 vmlinux", 4, kbuildSet, rust, "", ""},
		{"-JVj4 cluster", "-JVj4 vmlinux", 4, kbuildSet, rust, "", ""},
		{"-Jj alone", "-Jj vmlinux", 0, kbuildSet, rust, "", ""},
		{"-j 3 with a space", "-J -j 3 vmlinux", 3, kbuildSet, rust, "", ""},
		{"-Jj 3", "-Jj 3 vmlinux", 3, kbuildSet, rust, "", ""},
		{"--jobs 3", "--jobs 3 vmlinux", 3, kbuildSet, rust, "", ""},
		{"--jobs=2, dashes", "--jobs=2 --btf-encode-detached out.btf vmlinux", 2, kbuildSet, rust, "", "out.btf"},
		{"-j=5", "-j=5 vmlinux", 5, kbuildSet, rust, "", ""},
		{"a value that looks like -j", "--btf_encode_detached -jfoo vmlinux", 1, kbuildSet, rust, "", "-jfoo"},
	}
}

// TestEncodeFlagsKbuild parses every kbuildCase: each must keep pahole
// 1.32's meaning (TestKbuildSpellingsVsPahole runs pahole on them).
func TestEncodeFlagsKbuild(t *testing.T) {
	for _, c := range kbuildCases() {
		t.Run(c.name, func(t *testing.T) {
			args := strings.Fields(c.cmd)
			f, rest := parseEncode(t, args...)
			want := args[len(args)-1]
			if len(rest) != 1 || rest[0] != want {
				t.Errorf("operands %q, want [%s]", rest, want)
			}
			if f.jobs != c.jobs {
				t.Errorf("jobs %d, want %d", f.jobs, c.jobs)
			}
			opts, err := f.options()
			if err != nil {
				t.Fatal(err)
			}
			if opts.Features != c.feats {
				t.Errorf("features %v, want %v", opts.Features, c.feats)
			}
			if strings.Join(opts.LangExclude, ",") != strings.Join(c.langs, ",") {
				t.Errorf("lang_exclude %q, want %q", opts.LangExclude, c.langs)
			}
			if f.base != c.base || f.detached != c.detached {
				t.Errorf("base %q detached %q, want %q %q", f.base, f.detached, c.base, c.detached)
			}
			if opts.Jobs < 1 {
				t.Errorf("%d jobs", opts.Jobs)
			}
		})
	}
}

func TestEncodeFlagsStrict(t *testing.T) {
	f, _ := parseEncode(t, "--btf_features_strict=var,nonesuch", "x.o")
	if _, err := f.featureSet(); err == nil {
		t.Error("unknown strict feature accepted")
	}
	f, _ = parseEncode(t, "--btf_features=var,nonesuch", "x.o")
	if fs, err := f.featureSet(); err != nil || fs != stream.Features(stream.FeatVar) {
		t.Errorf("got %v, %v", fs, err)
	}
}

// runCaptured runs the command line through run with stdout and stderr
// captured.
func runCaptured(args ...string) (code int, out, errOut string) {
	var o, e bytes.Buffer
	saveOut, saveErr := stdout, stderr
	stdout, stderr = &o, &e
	defer func() { stdout, stderr = saveOut, saveErr }()
	code = run(args)
	return code, o.String(), e.String()
}

// TestFlagErrors: every command-line error of every subcommand exits 2
// and prints pflag's message (or ours) and a one-line hint, nothing else.
func TestFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--bogus", "vmlinux"}, "btfstream: unknown flag: --bogus"},
		{[]string{"-J", "--mem-limit"}, "btfstream: flag needs an argument: --mem-limit"},
		{[]string{"-x", "vmlinux"}, "btfstream: unknown shorthand flag: 'x' in -x"},
		{[]string{"-Jx", "vmlinux"}, "btfstream: unknown shorthand flag: 'x' in -x"},
		{[]string{"-J", "-j", "3"}, "btfstream: missing operand FILE"},
		{[]string{"-J"}, "btfstream: missing operand FILE"},
		{[]string{}, "btfstream: missing operand FILE"},
		{[]string{"-J", "a.o", "b.o"}, `btfstream: extra operand "b.o" (want FILE)`},
		{[]string{"-Jjx", "vmlinux"}, `btfstream: invalid job count "x" in -Jjx`},
		{[]string{"--jobs=x", "vmlinux"}, `invalid job count "x"`},
		{[]string{"-j", "x", "vmlinux"}, `btfstream: extra operand "vmlinux"`},
		{[]string{"--jobs=x", "vmlinux"}, `btfstream: invalid argument "x" for "-j, --jobs" flag`},
		{[]string{"--mem-limit", "lots", "vmlinux"}, `btfstream: --mem-limit: bad size "lots"`},
		// Negative or overflowing job counts, in every spelling (issue 19).
		{[]string{"-j", "-3", "vmlinux"}, "job count -3 is negative"},
		{[]string{"--jobs=-3", "vmlinux"}, "job count -3 is negative"},
		{[]string{"--jobs", "-3", "vmlinux"}, "job count -3 is negative"},
		{[]string{"-j-3", "vmlinux"}, "job count -3 is negative"},
		{[]string{"-Jj-3", "vmlinux"}, "job count -3 is negative"},
		{[]string{"-Jj", "-3", "vmlinux"}, "job count -3 is negative"},
		{[]string{"-j=-3", "vmlinux"}, "job count -3 is negative"},
		{[]string{"-j", "99999999999999999999", "vmlinux"}, "job count 99999999999999999999 is too large"},
		{[]string{"-Jj99999999999", "vmlinux"}, "job count 99999999999 is too large"},
		{[]string{"--jobs=9223372036854775808", "vmlinux"}, "is too large"},
		{[]string{"--mem-limit", "99999999999G", "vmlinux"}, `--mem-limit: size "99999999999G" overflows`},
		{[]string{"--mem-limit=99999999999999999999", "vmlinux"}, `overflows`},
		{[]string{"--btf_features_strict=var,nope", "vmlinux"}, `unknown BTF feature "nope"`},
		{[]string{"--progress=sometimes", "vmlinux"}, `invalid argument "sometimes" for --progress`},
		{[]string{"encode", "--bogus", "vmlinux"}, "btfstream encode: unknown flag: --bogus"},
		{[]string{"encode", "--mem-limit"}, "btfstream encode: flag needs an argument: --mem-limit"},
		{[]string{"dump", "--bogus", "a.btf"}, "btfstream dump: unknown flag: --bogus"},
		{[]string{"dump", "--base"}, "btfstream dump: flag needs an argument: --base"},
		{[]string{"dump"}, "btfstream dump: missing operand FILE"},
		{[]string{"dump", "a", "b"}, `btfstream dump: extra operand "b" (want FILE)`},
		{[]string{"dedup", "--bogus"}, "btfstream dedup: unknown flag: --bogus"},
		{[]string{"dedup", "in.btf"}, "btfstream dedup: missing -o OUT"},
		{[]string{"dedup", "-o"}, "btfstream dedup: flag needs an argument: 'o' in -o"},
		{[]string{"diff", "--bogus"}, "btfstream diff: unknown flag: --bogus"},
		{[]string{"diff", "a"}, "btfstream diff: missing operand B"},
		{[]string{"diff", "--max=x", "a", "b"}, `btfstream diff: invalid argument "x" for "--max" flag`},
		{[]string{"version", "--bogus"}, "btfstream version: unknown flag: --bogus"},
		{[]string{"version", "extra"}, `btfstream version: extra operand "extra"`},
	} {
		code, out, errOut := runCaptured(c.args...)
		sub := ""
		if _, ok := subcommands()[append(c.args, "")[0]]; ok {
			sub = " " + c.args[0]
		}
		lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
		hint := "Run 'btfstream" + sub + " --help' for usage."
		switch {
		case code != 2:
			t.Errorf("%q: exit %d, want 2 (stderr %q)", c.args, code, errOut)
		case out != "":
			t.Errorf("%q: stdout %q, want nothing", c.args, out)
		case len(lines) != 2 || !strings.Contains(lines[0], c.msg) || lines[1] != hint:
			t.Errorf("%q: stderr\n%s\nwant a line with %q, then %q", c.args, errOut, c.msg, hint)
		}
	}
}

// TestHelpAndVersion: --help goes to stdout with exit 0 in every
// subcommand; the encoder's --help names the default feature set;
// --version is what scripts/pahole-version.sh turns into 132.
func TestHelpAndVersion(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"encode", "--help"}, {"dump", "--help"}, {"dedup", "-h"}, {"diff", "--help"}, {"version", "--help"}} {
		code, out, errOut := runCaptured(args...)
		if code != 0 || !strings.HasPrefix(out, "usage: btfstream") || errOut != "" {
			t.Errorf("%q: exit %d, stdout %.40q, stderr %q", args, code, out, errOut)
		}
	}
	_, out, _ := runCaptured("--help")
	if !strings.Contains(out, "--btf_features="+kbuild611) && !strings.Contains(out, "--btf_features="+stream.DefaultFeatures.String()) {
		t.Errorf("--help does not name the default features:\n%s", out)
	}
	if !strings.Contains(out, "--lang_exclude=rust") {
		t.Error("--help does not name the default --lang_exclude")
	}
	// scripts/pahole-version.sh: "$@" --version | sed -E 's/v([0-9]+)\.([0-9]+)/\1\2/'
	// and kbuild compares the result as a number (CONFIG_PAHOLE_VERSION).
	code, out, _ := runCaptured("--version")
	if v := regexp.MustCompile(`v([0-9]+)\.([0-9]+)`).ReplaceAllString(out, "$1$2"); code != 0 || v != "132\n" {
		t.Errorf("--version: exit %d, %q, which pahole-version.sh turns into %q, want 132", code, out, v)
	}
	if code, out, _ := runCaptured("--numeric_version"); code != 0 || out != "132\n" {
		t.Errorf("--numeric_version: %d %q", code, out)
	}
	if code, out, _ := runCaptured("version"); code != 0 || !strings.HasPrefix(out, "btfstream ") || !strings.Contains(out, "pahole v1.32") {
		t.Errorf("version: %d %q", code, out)
	}
}

// capJobs: -j alone is the CPUs; more than jobsPerCPU per CPU is capped,
// with a note naming both counts.
func TestCapJobs(t *testing.T) {
	for _, c := range []struct{ jobs, cpus, want int }{
		{0, 2, 2}, {1, 2, 1}, {4, 2, 4}, {5, 2, 4}, {100000, 2, 4}, {3, 1, 2}, {0, 0, 1}, {64, 16, 32},
	} {
		got, note := capJobs(c.jobs, c.cpus)
		capped := c.jobs > jobsPerCPU*max(c.cpus, 1)
		if got != c.want || (note != "") != capped || capped && !strings.Contains(note, fmt.Sprintf("-j %d capped at %d", c.jobs, got)) {
			t.Errorf("capJobs(%d, %d) = %d, %q; want %d", c.jobs, c.cpus, got, note, c.want)
		}
	}
	// The note reaches stderr before anything else happens.
	code, _, errOut := runCaptured("-j100000", "/nonexistent/vmlinux")
	if code != 1 || !strings.HasPrefix(errOut, "btfstream: note: -j 100000 capped at ") {
		t.Errorf("-j100000: exit %d, %q", code, errOut)
	}
	if _, _, errOut := runCaptured("-q", "-j100000", "/nonexistent/vmlinux"); strings.Contains(errOut, "note") {
		t.Errorf("-q -j100000 printed the note: %q", errOut)
	}
}
