package stream

import (
	"errors"
	"fmt"
)

// Sentinel errors that callers branch on with errors.Is. Every error
// returned by this package that concerns a position in the file wraps one of
// these inside an *Error.
var (
	// ErrFormat reports malformed ELF or DWARF data.
	ErrFormat = errors.New("malformed data")
	// ErrUnsupported reports valid input this reader does not handle
	// (an unknown form, a relocation type, a compression type, ...).
	ErrUnsupported = errors.New("unsupported")
	// ErrNoDWARF reports a file without a .debug_info section.
	ErrNoDWARF = errors.New("no DWARF debug information")
	// ErrNoSection reports a lookup of a section the file lacks.
	ErrNoSection = errors.New("no such section")
	// ErrUnknownLanguage reports a language name the filter does not know.
	ErrUnknownLanguage = errors.New("unknown DW_LANG name")
)

// Error locates a failure: it prints as
//
//	vmlinux: .debug_info+0x1a2b: unknown form 0x99
//
// Section is empty for errors about the file as a whole.
type Error struct {
	File    string
	Section string
	Offset  uint64
	Msg     string
	Err     error // a sentinel above, or an I/O error
}

func (e *Error) Error() string {
	s := e.File + ": "
	if e.Section != "" {
		s += fmt.Sprintf("%s+%#x: ", e.Section, e.Offset)
	}
	if e.Msg != "" {
		s += e.Msg
		if e.Err != nil && e.Err != ErrFormat && e.Err != ErrUnsupported && e.Err != ErrNoSection {
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

// DecodeError is the sticky error of a byte buffer: the first failure while
// decoding, with the section and offset where it happened.
type DecodeError struct {
	Section string
	Offset  uint64
	Msg     string
	Err     error
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("%s+%#x: %s", e.Section, e.Offset, e.Msg)
}

func (e *DecodeError) Unwrap() error { return e.Err }

// fileErr attaches the file name to err, turning a *DecodeError into an *Error.
func fileErr(file string, err error) error {
	if err == nil {
		return nil
	}
	var fe *Error
	if errors.As(err, &fe) {
		if fe.File == "" {
			fe.File = file
		}
		return fe
	}
	var de *DecodeError
	if errors.As(err, &de) {
		return &Error{File: file, Section: de.Section, Offset: de.Offset, Msg: de.Msg, Err: de.Err}
	}
	return &Error{File: file, Err: err}
}

func formatErr(section string, off uint64, format string, args ...any) error {
	return &DecodeError{Section: section, Offset: off, Msg: fmt.Sprintf(format, args...), Err: ErrFormat}
}

func unsupportedErr(section string, off uint64, format string, args ...any) error {
	return &DecodeError{Section: section, Offset: off, Msg: fmt.Sprintf(format, args...), Err: ErrUnsupported}
}
