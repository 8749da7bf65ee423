package elffile

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors that callers branch on with errors.Is. Every error about a
// position in an input file is an *Error wrapping one of these (or the I/O
// error that caused it).
var (
	// ErrFormat reports malformed input: ELF, DWARF or BTF data that
	// breaks its format's rules.
	ErrFormat = errors.New("malformed data")
	// ErrUnsupported reports valid input this program does not handle
	// (an unknown form, a relocation type, a compression type, a DWARF
	// tag BTF cannot express, ...).
	ErrUnsupported = errors.New("unsupported")
	// ErrNoSection reports a lookup of a section the file lacks.
	ErrNoSection = errors.New("no such section")
)

// Error locates a failure in an input file. It prints as
//
//	vmlinux: .debug_info+0x1a2b: unknown form 0x99
//	vmlinux: .debug_info+0x2c: DW_TAG_base_type @ <0x2c>: FLOAT 'x' of invalid size 3
//	xfs.ko: read: input/output error
//
// File is the name the user gave (it is filled in by the outermost layer
// that knows it, so lower layers may leave it empty); Section is empty
// for errors about the file as a whole. Err is the cause: a sentinel
// (ErrFormat, ErrUnsupported, ErrNoSection, or a package's own), an I/O
// error, or a lower-level error such as *btf.FormatError. Unwrap returns
// it, so errors.Is and errors.As see through an *Error.
type Error struct {
	File    string
	Section string
	Offset  uint64
	Msg     string
	Err     error
}

func (e *Error) Error() string {
	s := ""
	if e.File != "" {
		s = e.File + ": "
	}
	if e.Section != "" {
		s += fmt.Sprintf("%s+%#x: ", e.Section, e.Offset)
	}
	if e.Msg != "" {
		s += e.Msg
		// A bare sentinel adds nothing to a message that says what is
		// wrong, nor does a cause the message already begins with; any
		// other cause is printed after it.
		if e.Err != nil && e.Err != ErrFormat && e.Err != ErrUnsupported && e.Err != ErrNoSection &&
			!strings.HasPrefix(e.Msg, e.Err.Error()) {
			s += ": " + e.Err.Error()
		}
		return s
	}
	if e.Err != nil {
		s += e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// WithFile returns err with its file name set to file: an *Error found in
// err's chain without a file name gets it (in place), anything else is
// wrapped in a new *Error. nil stays nil.
func WithFile(file string, err error) error {
	if err == nil {
		return nil
	}
	var fe *Error
	if errors.As(err, &fe) {
		if fe.File == "" {
			fe.File = file
		}
		return err
	}
	return &Error{File: file, Err: err}
}

// FormatErr returns an *Error wrapping ErrFormat at section+off.
func FormatErr(section string, off uint64, format string, args ...any) *Error {
	return &Error{Section: section, Offset: off, Msg: fmt.Sprintf(format, args...), Err: ErrFormat}
}

// UnsupportedErr returns an *Error wrapping ErrUnsupported at section+off.
func UnsupportedErr(section string, off uint64, format string, args ...any) *Error {
	return &Error{Section: section, Offset: off, Msg: fmt.Sprintf(format, args...), Err: ErrUnsupported}
}

// ReadErr returns an *Error for a failed read at section+off, wrapping the
// I/O error (io.ErrUnexpectedEOF for a short read).
func ReadErr(section string, off uint64, err error) *Error {
	return &Error{Section: section, Offset: off, Msg: "read", Err: err}
}
