package dwarfread

import (
	"fmt"
	"strings"
)

// langNames maps DW_LANG_* codes to their names without the prefix, as
// spelled in the DWARF 5 specification and the DWARF language registry.
var langNames = map[uint16]string{
	0x01: "C89", 0x02: "C", 0x03: "Ada83", 0x04: "C_plus_plus", 0x05: "Cobol74",
	0x06: "Cobol85", 0x07: "Fortran77", 0x08: "Fortran90", 0x09: "Pascal83",
	0x0a: "Modula2", 0x0b: "Java", 0x0c: "C99", 0x0d: "Ada95", 0x0e: "Fortran95",
	0x0f: "PLI", 0x10: "ObjC", 0x11: "ObjC_plus_plus", 0x12: "UPC", 0x13: "D",
	0x14: "Python", 0x15: "OpenCL", 0x16: "Go", 0x17: "Modula3", 0x18: "Haskell",
	0x19: "C_plus_plus_03", 0x1a: "C_plus_plus_11", 0x1b: "OCaml", 0x1c: "Rust",
	0x1d: "C11", 0x1e: "Swift", 0x1f: "Julia", 0x20: "Dylan", 0x21: "C_plus_plus_14",
	0x22: "Fortran03", 0x23: "Fortran08", 0x24: "RenderScript", 0x25: "BLISS",
	0x26: "Kotlin", 0x27: "Zig", 0x28: "Crystal", 0x29: "C_plus_plus_17",
	0x2a: "C_plus_plus_20", 0x2b: "C17", 0x2c: "Fortran18", 0x2d: "Ada2005",
	0x2e: "Ada2012", 0x2f: "HIP", 0x30: "Assembly", 0x31: "C_sharp", 0x32: "Mojo",
	0x33: "GLSL", 0x34: "GLSL_ES", 0x35: "HLSL", 0x36: "OpenCL_CPP",
	0x37: "CPP_for_OpenCL", 0x38: "SYCL", 0x39: "C_plus_plus_23", 0x3a: "Odin",
	0x3b: "P4", 0x3c: "Metal", 0x3d: "C23", 0x3e: "Fortran23", 0x3f: "Ruby",
	0x40: "Move", 0x41: "Hylo",
	0x8001: "Mips_Assembler", 0x8e57: "GOOGLE_RenderScript", 0xb000: "BORLAND_Delphi",
}

// LangName returns the DW_LANG name of code without its prefix ("Rust"),
// or a hex number if unknown.
func LangName(code uint16) string {
	if s, ok := langNames[code]; ok {
		return s
	}
	return fmt.Sprintf("%#x", code)
}

// ParseLang returns the DW_LANG code of a name, matched case-insensitively
// with or without the DW_LANG_ prefix: "rust", "Rust", "DW_LANG_Rust",
// "c_plus_plus". The error wraps ErrUnknownLanguage.
func ParseLang(name string) (uint16, error) {
	n := strings.TrimPrefix(strings.ToLower(strings.TrimSpace(name)), "dw_lang_")
	for code, s := range langNames {
		if strings.ToLower(s) == n {
			return code, nil
		}
	}
	return 0, fmt.Errorf("%w %q", ErrUnknownLanguage, name)
}

// langSet is a small set of DW_LANG codes.
type langSet []uint16

// ParseLangs parses --lang_exclude names (each may be a comma-separated
// list). The error wraps ErrUnknownLanguage.
func ParseLangs(names []string) ([]uint16, error) { return parseLangs(names) }

func parseLangs(names []string) (langSet, error) {
	var s langSet
	for _, n := range names {
		for _, part := range strings.Split(n, ",") {
			if strings.TrimSpace(part) == "" {
				continue
			}
			c, err := ParseLang(part)
			if err != nil {
				return nil, err
			}
			s = append(s, c)
		}
	}
	return s, nil
}

func (s langSet) has(c uint16) bool {
	for _, x := range s {
		if x == c {
			return true
		}
	}
	return false
}
