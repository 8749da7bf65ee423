package main

import (
	"strings"
	"testing"
)

// FuzzEncodeArgs feeds command lines (NUL-separated arguments) to the
// encoder's parser: paholeArgs and pflag must not panic; arguments that
// cannot be -j spellings pass unchanged.
func FuzzEncodeArgs(f *testing.F) {
	for _, s := range []string{
		"-J\x00-j\x00--btf_features=encode_force,var\x00-j\x00--lang_exclude=rust\x00vmlinux",
		"-Jj4\x00x.ko", "-j\x003\x00f", "--jobs\x002\x00f", "-JVqj\x00f", "--btf_base\x00-jfoo\x00f",
		"--\x00-j4", "-j=7\x00f", "--mem-limit\x00", "-Jjx\x00f", "-x", "--btf-encode-detached=o\x00f",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, "\x00")
		var fl encodeFlags
		fs := newEncodeFlagSet(&fl)
		norm, err := paholeArgs(fs, args)
		if err == nil {
			touched := false
			for _, a := range args {
				touched = touched || strings.Contains(a, "j") || a == "--"
			}
			if !touched && strings.Join(norm, "\x00") != line {
				t.Fatalf("%q rewritten to %q", args, norm)
			}
		}
		var fl2 encodeFlags
		fs2 := newEncodeFlagSet(&fl2)
		if fl2.parse(fs2, args) == nil {
			fl2.options()
		}
	})
}
