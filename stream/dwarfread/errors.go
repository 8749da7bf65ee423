package dwarfread

import (
	"errors"

	"github.com/btfstream/btfstream/stream/elffile"
)

// Sentinels this package adds to elffile's (ErrFormat, ErrUnsupported,
// ErrNoSection), which its *elffile.Error values also wrap.
var (
	// ErrNoDWARF reports a file without a .debug_info section.
	ErrNoDWARF = errors.New("no DWARF debug information")
	// ErrUnknownLanguage reports a language name the filter does not know.
	ErrUnknownLanguage = errors.New("unknown DW_LANG name")
)

func formatErr(section string, off uint64, format string, args ...any) error {
	return elffile.FormatErr(section, off, format, args...)
}

func unsupportedErr(section string, off uint64, format string, args ...any) error {
	return elffile.UnsupportedErr(section, off, format, args...)
}
