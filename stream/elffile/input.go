package elffile

import (
	"io/fs"
	"os"
	"syscall"
)

// OpenInput opens the input file at path for reading by offset. It opens
// with O_NONBLOCK, so a FIFO or a device cannot block the open, then
// refuses anything but a regular file, saying what it is. Errors are
// *Error naming the file as name.
func OpenInput(path, name string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, &Error{File: name, Err: err}
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, &Error{File: name, Err: err}
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, &Error{File: name, Msg: "is " + fileKind(st.Mode()) + ", not a regular file (the input is read by offset)", Err: ErrFormat}
	}
	return f, st, nil
}

// fileKind names what a non-regular file is.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "not a plain file (" + m.Type().String() + ")"
}
