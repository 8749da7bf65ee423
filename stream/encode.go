package stream

import (
	"errors"

	"github.com/btfstream/btfstream/btf"
)

func encodeFile(path string, opts EncodeOptions) (*btf.Spec, EncodeStats, error) {
	return nil, EncodeStats{}, errors.New("encode: not implemented yet")
}
