//go:build !linux

package outfile

import (
	"errors"
	"os"
)

var errNoUnnamed = errors.New("unnamed files need Linux")

func openUnnamed(dir string, perm uint32) (*os.File, error) { return nil, errNoUnnamed }

func linkFD(f *os.File, path string) error { return errNoUnnamed }

// FreeSpace is unknown here: it reports no limit.
func FreeSpace(path string) (int64, error) { return 1<<63 - 1, nil }
