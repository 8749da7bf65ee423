package elffile

import (
	"bytes"
	"fmt"
	"io"
	"unicode/utf8"
)

// notBTF is the error for an input that is neither ELF nor raw BTF: it
// says what the file looks like, from its first bytes.
func notBTF(name string, r io.ReaderAt) error {
	var head [1024]byte
	n, _ := r.ReadAt(head[:], 0)
	return &Error{File: name, Msg: "neither an ELF file nor raw BTF: " + fileLooksLike(head[:n]) +
		" (want a vmlinux or module with .BTF, or a raw .btf file)", Err: ErrFormat}
}

// fileLooksLike names a file's kind from its first bytes.
func fileLooksLike(b []byte) string {
	for _, m := range []struct{ magic, kind string }{
		{"\x1f\x8b", "gzip-compressed data"},
		{"\x28\xb5\x2f\xfd", "zstd-compressed data"},
		{"\xfd7zXZ\x00", "xz-compressed data"},
		{"BZh", "bzip2-compressed data"},
		{"\x02\x21\x4c\x18", "lz4-compressed data"},
		{"!<arch>\n", "an ar archive"},
		{"\x89PNG", "a PNG image"},
		{"%PDF", "a PDF document"},
		{"PK\x03\x04", "a zip archive"},
	} {
		if bytes.HasPrefix(b, []byte(m.magic)) {
			return m.kind
		}
	}
	switch {
	case len(b) == 0:
		return "an empty file"
	case len(b) >= 0x206 && string(b[:2]) == "MZ" && string(b[0x202:0x206]) == "HdrS":
		return "a compressed kernel image (bzImage), not the vmlinux ELF"
	case utf8.Valid(b) || utf8.Valid(b[:len(b)-min(len(b), 3)]):
		if bytes.IndexFunc(b, func(r rune) bool { return r < ' ' && r != '\n' && r != '\t' && r != '\r' }) < 0 {
			line, _, _ := bytes.Cut(b, []byte("\n"))
			if len(line) > 40 {
				line = append(line[:37:37], "..."...)
			}
			return fmt.Sprintf("a text file (%q)", line)
		}
	}
	return fmt.Sprintf("unknown data (% x)", b[:min(len(b), 8)])
}
