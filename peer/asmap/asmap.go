// Package asmap reads Bitcoin Core's ASMap files, which map IP addresses to
// the autonomous system (AS) that announces them, so the address manager
// can spread its buckets over networks operators control rather than over
// /16 prefixes (Core's -asmap).
//
// The file is a program for a small bit-level machine, read least
// significant bit first in each byte. Its instructions are RETURN (give
// an ASN), JUMP (skip ahead when the next address bit is set), MATCH (give
// up unless the next address bits are a given pattern, then answering the
// default ASN) and DEFAULT (set that default). Numbers use a prefix code:
// a run of class bits picks a class, whose mantissa has a class-specific
// width. A file is accepted only when every path through it is well formed
// (Check), so a lookup never fails.
package asmap

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math/bits"
	"net/netip"
)

// Instruction codes, as the class index of the type prefix code.
const (
	opReturn = iota
	opJump
	opMatch
	opDefault
)

// Prefix codes: the smallest value and the mantissa widths of each class.
var (
	typeCode  = code{min: 0, widths: []uint8{0, 0, 1}}
	asnCode   = code{min: 1, widths: seq(15, 24)}
	matchCode = code{min: 2, widths: seq(1, 8)}
	jumpCode  = code{min: 17, widths: seq(5, 30)}
)

func seq(lo, hi uint8) []uint8 {
	out := make([]uint8, 0, hi-lo+1)
	for w := lo; w <= hi; w++ {
		out = append(out, w)
	}
	return out
}

type code struct {
	min    uint32
	widths []uint8
}

// errEOF is a number or instruction cut off by the end of the program.
var errEOF = errors.New("asmap: truncated program")

// reader walks the program's bits.
type reader struct {
	prog []byte
	pos  int // bit offset
	end  int // bit length
}

func (r *reader) bit() (uint32, bool) {
	if r.pos >= r.end {
		return 0, false
	}
	b := uint32(r.prog[r.pos>>3]>>(r.pos&7)) & 1
	r.pos++
	return b, true
}

// read decodes one number of code c. Each class but the last is announced
// by a 1 bit (move on to the next class) or a 0 bit (this class: read its
// mantissa, most significant bit first); the last class needs no bit.
func (r *reader) read(c code) (uint32, error) {
	v := c.min
	for i, w := range c.widths {
		more := uint32(0)
		if i < len(c.widths)-1 {
			b, ok := r.bit()
			if !ok {
				return 0, errEOF
			}
			more = b
		}
		if more == 1 {
			v += 1 << w
			continue
		}
		for k := int(w) - 1; k >= 0; k-- {
			b, ok := r.bit()
			if !ok {
				return 0, errEOF
			}
			v += b << k
		}
		return v, nil
	}
	return 0, errEOF
}

// Map is a loaded, checked ASMap.
type Map struct {
	prog []byte
}

// New checks data as an ASMap for 128-bit (IPv6 and IPv4-mapped) inputs.
func New(data []byte) (*Map, error) {
	if !Check(data) {
		return nil, errors.New("asmap: not a valid map")
	}
	return &Map{prog: append([]byte(nil), data...)}, nil
}

// Size is the program's length in bytes.
func (m *Map) Size() int { return len(m.prog) }

// Version identifies the map as Core does: the double SHA-256 of the
// program serialized as Core's vector of bits (a compact-size bit count,
// then one byte per bit), shown byte-reversed.
func (m *Map) Version() string {
	n := uint64(len(m.prog) * 8)
	buf := appendCompactSize(make([]byte, 0, 9+n), n)
	for i := 0; i < int(n); i++ {
		buf = append(buf, (m.prog[i>>3]>>(i&7))&1)
	}
	first := sha256.Sum256(buf)
	h := sha256.Sum256(first[:])
	for i, j := 0, len(h)-1; i < j; i, j = i+1, j-1 {
		h[i], h[j] = h[j], h[i]
	}
	return hex.EncodeToString(h[:])
}

func appendCompactSize(b []byte, n uint64) []byte {
	switch {
	case n < 0xfd:
		return append(b, byte(n))
	case n <= 0xffff:
		return append(b, 0xfd, byte(n), byte(n>>8))
	case n <= 0xffffffff:
		return append(b, 0xfe, byte(n), byte(n>>8), byte(n>>16), byte(n>>24))
	}
	return append(b, 0xff, byte(n), byte(n>>8), byte(n>>16), byte(n>>24), byte(n>>32), byte(n>>40), byte(n>>48), byte(n>>56))
}

// Lookup returns the ASN of addr, or 0 for an address the map leaves
// unmapped and for addresses that are not IPv4 or IPv6 (which Core does
// not map either).
func (m *Map) Lookup(addr netip.Addr) uint32 {
	if !addr.IsValid() {
		return 0
	}
	ip := addr.As16() // IPv4 as ::ffff:a.b.c.d, as Core
	asn, _ := run(m.prog, ip)
	return asn
}

// run executes the program on the 128 address bits, most significant
// first. Programs that passed Check always end in a RETURN or a failed
// MATCH.
func run(prog []byte, ip [16]byte) (uint32, error) {
	r := &reader{prog: prog, end: len(prog) * 8}
	next := 0 // index of the next address bit
	ipBit := func(i int) uint32 { return uint32(ip[i>>3]>>(7-i&7)) & 1 }
	var def uint32
	for r.pos < r.end {
		op, err := r.read(typeCode)
		if err != nil {
			return 0, err
		}
		switch op {
		case opReturn:
			return r.read(asnCode)
		case opJump:
			off, err := r.read(jumpCode)
			if err != nil {
				return 0, err
			}
			if next >= 128 || int(off) >= r.end-r.pos {
				return 0, errEOF
			}
			if ipBit(next) == 1 {
				r.pos += int(off)
			}
			next++
		case opMatch:
			pat, err := r.read(matchCode)
			if err != nil {
				return 0, err
			}
			n := bits.Len32(pat) - 1 // the leading 1 marks the length
			if 128-next < n {
				return 0, errEOF
			}
			for k := n - 1; k >= 0; k-- {
				if ipBit(next) != (pat>>k)&1 {
					return def, nil
				}
				next++
			}
		case opDefault:
			if def, err = r.read(asnCode); err != nil {
				return 0, err
			}
		default:
			return 0, errEOF
		}
	}
	return 0, errEOF
}
