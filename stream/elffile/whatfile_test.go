package elffile

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// A file that is neither ELF nor raw BTF is named for what it is (issue
// 19: --btf_base /etc/passwd said only "BTF+0x0: magic 0x6f72").
func TestReadBTFSaysWhatTheFileIs(t *testing.T) {
	bz := make([]byte, 0x300)
	copy(bz, "MZ")
	copy(bz[0x202:], "HdrS")
	for _, c := range []struct {
		data []byte
		want string
	}{
		{[]byte("root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1::/usr/sbin:/usr/sbin/nologin\n"), `a text file ("root:x:0:0:root:/root:/bin/bash")`},
		{[]byte("a very long first line that goes on and on and on\n"), `a text file ("a very long first line that goes on a...")`},
		{nil, "an empty file"},
		{[]byte("\x1f\x8b\x08\x00rest"), "gzip-compressed data"},
		{[]byte("\x28\xb5\x2f\xfd...."), "zstd-compressed data"},
		{[]byte("!<arch>\nfoo.o/"), "an ar archive"},
		{bz, "a compressed kernel image (bzImage), not the vmlinux ELF"},
		{[]byte{0, 1, 2, 3, 0xff, 0xfe, 7, 8, 9}, "unknown data (00 01 02 03 ff fe 07 08)"},
	} {
		_, err := ReadBTF("f", bytes.NewReader(c.data), int64(len(c.data)))
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "f: neither an ELF file nor raw BTF: "+c.want) {
			t.Errorf("%.12q: %v; want %q", c.data, err, c.want)
		}
	}
	// Raw BTF with a bad header still gets the BTF parser's message.
	if _, err := ReadBTF("f", bytes.NewReader([]byte{0x9f, 0xeb, 9, 0}), 4); err == nil || strings.Contains(err.Error(), "neither") {
		t.Errorf("truncated BTF: %v", err)
	}
}
