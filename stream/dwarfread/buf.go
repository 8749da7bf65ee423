package dwarfread

import (
	"bytes"
	"encoding/binary"

	"github.com/btfstream/btfstream/stream/elffile"
)

// buf reads little- or big-endian integers and LEB128 numbers from a byte
// slice. Its error is sticky, as in debug/dwarf: after the first failure it
// records a *DecodeError and every read returns zero, so hot loops check
// b.err once at the end.
type buf struct {
	data    []byte
	pos     uint32
	base    uint64 // section offset of data[0], for error messages
	order   binary.ByteOrder
	section string
	err     error
}

func makeBuf(section string, base uint64, order binary.ByteOrder, data []byte) buf {
	return buf{data: data, base: base, order: order, section: section}
}

func (b *buf) off() uint64 { return b.base + uint64(b.pos) }

func (b *buf) fail(msg string) {
	if b.err == nil {
		b.err = &elffile.Error{Section: b.section, Offset: b.off(), Msg: msg, Err: elffile.ErrFormat}
	}
	b.pos = uint32(len(b.data))
}

func (b *buf) failErr(err error) {
	if b.err == nil {
		b.err = err
	}
	b.pos = uint32(len(b.data))
}

func (b *buf) remaining() uint32 { return uint32(len(b.data)) - b.pos }

func (b *buf) u8() uint8 {
	if b.pos >= uint32(len(b.data)) {
		b.fail("unexpected end of data")
		return 0
	}
	v := b.data[b.pos]
	b.pos++
	return v
}

func (b *buf) bytes(n uint64) []byte {
	if n > uint64(b.remaining()) {
		b.fail("unexpected end of data")
		return nil
	}
	p := b.data[b.pos : b.pos+uint32(n)]
	b.pos += uint32(n)
	return p
}

func (b *buf) skip(n uint64) {
	if n > uint64(b.remaining()) {
		b.fail("unexpected end of data")
		return
	}
	b.pos += uint32(n)
}

func (b *buf) u16() uint16 {
	if b.remaining() < 2 {
		b.fail("unexpected end of data")
		return 0
	}
	v := b.order.Uint16(b.data[b.pos:])
	b.pos += 2
	return v
}

func (b *buf) u24() uint32 {
	p := b.bytes(3)
	if p == nil {
		return 0
	}
	if b.order == binary.BigEndian {
		return uint32(p[0])<<16 | uint32(p[1])<<8 | uint32(p[2])
	}
	return uint32(p[2])<<16 | uint32(p[1])<<8 | uint32(p[0])
}

func (b *buf) u32() uint32 {
	if b.remaining() < 4 {
		b.fail("unexpected end of data")
		return 0
	}
	v := b.order.Uint32(b.data[b.pos:])
	b.pos += 4
	return v
}

func (b *buf) u64() uint64 {
	if b.remaining() < 8 {
		b.fail("unexpected end of data")
		return 0
	}
	v := b.order.Uint64(b.data[b.pos:])
	b.pos += 8
	return v
}

// uN reads an unsigned integer of n (1, 2, 4 or 8) bytes.
func (b *buf) uN(n uint8) uint64 {
	switch n {
	case 1:
		return uint64(b.u8())
	case 2:
		return uint64(b.u16())
	case 4:
		return uint64(b.u32())
	case 8:
		return b.u64()
	}
	b.fail("bad integer size")
	return 0
}

func (b *buf) uleb() uint64 {
	var v uint64
	var shift uint
	d := b.data
	for i := b.pos; i < uint32(len(d)); i++ {
		c := d[i]
		if shift < 64 {
			v |= uint64(c&0x7f) << shift
		}
		shift += 7
		if c&0x80 == 0 {
			b.pos = i + 1
			return v
		}
	}
	b.fail("unterminated LEB128")
	return 0
}

func (b *buf) sleb() int64 {
	var v int64
	var shift uint
	d := b.data
	for i := b.pos; i < uint32(len(d)); i++ {
		c := d[i]
		if shift < 64 {
			v |= int64(c&0x7f) << shift
		}
		shift += 7
		if c&0x80 == 0 {
			b.pos = i + 1
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return v
		}
	}
	b.fail("unterminated LEB128")
	return 0
}

// skipLEB skips one LEB128 number.
func (b *buf) skipLEB() {
	d := b.data
	for i := b.pos; i < uint32(len(d)); i++ {
		if d[i]&0x80 == 0 {
			b.pos = i + 1
			return
		}
	}
	b.fail("unterminated LEB128")
}

// cstring returns the NUL-terminated string at the current position,
// without the NUL, sharing the buffer.
func (b *buf) cstring() []byte {
	i := bytes.IndexByte(b.data[b.pos:], 0)
	if i < 0 {
		b.fail("unterminated string")
		return nil
	}
	s := b.data[b.pos : b.pos+uint32(i)]
	b.pos += uint32(i) + 1
	return s
}
