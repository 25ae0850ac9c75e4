package txscript

import (
	"errors"
	"strings"
)

// Bech32ErrorKind says why a string is not valid bech32/bech32m, with the
// granularity Core's bech32::Decode and LocateErrors report, so callers
// (validateaddress) can map it to their own messages.
type Bech32ErrorKind uint8

// Bech32 failure kinds.
const (
	Bech32ErrTooLong          Bech32ErrorKind = iota + 1 // over 90 characters
	Bech32ErrInvalidChar                                 // non-printable character or mixed case
	Bech32ErrMissingSeparator                            // no '1'
	Bech32ErrSeparatorPos                                // empty hrp or fewer than 6 checksum symbols
	Bech32ErrBase32Char                                  // data character outside the bech32 charset
	Bech32ErrChecksum                                    // checksum fails; likely errors unknown
	Bech32ErrChecksumBech32                              // fails; 1-2 substitutions make it valid bech32
	Bech32ErrChecksumBech32m                             // fails; 1-2 substitutions make it valid bech32m
)

// ErrBech32 is the sentinel every *Bech32Error matches with errors.Is.
var ErrBech32 = errors.New("invalid bech32 string")

// Bech32Error is a bech32 decoding failure with the string positions of
// the likely errors (Core's error_locations; empty when unknown).
type Bech32Error struct {
	Kind      Bech32ErrorKind
	Locations []int
}

func (e *Bech32Error) Error() string { return ErrBech32.Error() }

// Is makes errors.Is(err, ErrBech32) hold for every Bech32Error.
func (e *Bech32Error) Is(target error) bool { return target == ErrBech32 }

// DecodeBech32 decodes a bech32 or bech32m string (at most 90 characters)
// into its lower-case hrp and 5-bit data without the checksum; bech32m
// tells which checksum matched. On failure err is a *Bech32Error whose
// Locations, for checksum failures, come from searching for up to two
// substitution errors (as bitcoind's validateaddress reports them).
func DecodeBech32(s string) (hrp string, data []byte, bech32m bool, err error) {
	hrp, data, pm, e := bech32DecodeKind(s, true)
	if e != nil {
		return "", nil, false, e
	}
	return hrp, data, pm == bech32mConst, nil
}

// bech32DecodeKind is the decoder behind DecodeBech32 and bech32Decode;
// locate enables the (costly) checksum error search, which address
// decoding on the hot path does not need.
func bech32DecodeKind(s string, locate bool) (string, []byte, uint32, *Bech32Error) {
	if len(s) > 90 {
		var locs []int
		if locate {
			locs = make([]int, 0, len(s)-90)
			for i := 90; i < len(s); i++ {
				locs = append(locs, i)
			}
		}
		return "", nil, 0, &Bech32Error{Kind: Bech32ErrTooLong, Locations: locs}
	}
	var locs []int
	lower, upper := false, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z':
			if upper {
				locs = append(locs, i)
			} else {
				lower = true
			}
		case c >= 'A' && c <= 'Z':
			if lower {
				locs = append(locs, i)
			} else {
				upper = true
			}
		case c < 33 || c > 126:
			locs = append(locs, i)
		}
	}
	if len(locs) > 0 {
		return "", nil, 0, &Bech32Error{Kind: Bech32ErrInvalidChar, Locations: locs}
	}
	s = strings.ToLower(s)
	pos := strings.LastIndexByte(s, '1')
	if pos < 0 {
		return "", nil, 0, &Bech32Error{Kind: Bech32ErrMissingSeparator, Locations: []int{}}
	}
	if pos == 0 || pos+7 > len(s) {
		return "", nil, 0, &Bech32Error{Kind: Bech32ErrSeparatorPos, Locations: []int{pos}}
	}
	hrp := s[:pos]
	data := make([]byte, 0, len(s)-pos-1)
	for i := pos + 1; i < len(s); i++ {
		c := s[i]
		if bech32Rev[c] < 0 { // c is printable ASCII here, so c < 128
			return "", nil, 0, &Bech32Error{Kind: Bech32ErrBase32Char, Locations: []int{i}}
		}
		data = append(data, byte(bech32Rev[c]))
	}
	pm := bech32Polymod(hrp, data)
	if pm == bech32Const || pm == bech32mConst {
		return hrp, data[:len(data)-6], pm, nil
	}
	e := &Bech32Error{Kind: Bech32ErrChecksum, Locations: []int{}}
	if locate {
		e.Kind, e.Locations = locateBech32Errors(len(data), pos+1, pm)
	}
	return "", nil, 0, e
}

// locateBech32Errors finds up to two substitution errors in the data part
// of a bech32 string whose checksum failed, trying both encodings and
// keeping the one needing fewer corrections. n is the number of data
// symbols, dataStart the string index of the first one, chk the residue.
//
// The checksum is linear over GF(2): the residue of a corrupted string is
// that of its error pattern alone, so a pattern of at most two symbols is
// found by matching single-symbol residues (a distance-5 code explains a
// residue by at most one such pattern).
func locateBech32Errors(n, dataStart int, chk uint32) (Bech32ErrorKind, []int) {
	// effect[i*32+x] is the residue of symbol x at data index i: x followed
	// by n-i-1 zero symbols, from a zero state.
	effect := make([]uint32, n*32)
	for i := 0; i < n; i++ {
		for x := 1; x < 32; x++ {
			c := bech32Step(0, byte(x))
			for z := n - i - 1; z > 0; z-- {
				c = bech32Step(c, 0)
			}
			effect[i*32+x] = c
		}
	}
	var best []int
	bestKind := Bech32ErrChecksum
	for _, enc := range [...]struct {
		c    uint32
		kind Bech32ErrorKind
	}{{bech32Const, Bech32ErrChecksumBech32}, {bech32mConst, Bech32ErrChecksumBech32m}} {
		target := chk ^ enc.c
		var found []int
		index := make(map[uint32]int, len(effect))
		for k, e := range effect {
			if k%32 == 0 {
				continue
			}
			if e == target {
				found = []int{dataStart + k/32}
				break
			}
			index[e] = k
		}
		if found == nil {
			for k, e := range effect {
				if k%32 == 0 {
					continue
				}
				if k2, ok := index[target^e]; ok && k2/32 != k/32 {
					p1, p2 := dataStart+k/32, dataStart+k2/32
					found = []int{min(p1, p2), max(p1, p2)}
					break
				}
			}
		}
		if len(found) > 0 && (best == nil || len(found) < len(best)) {
			best, bestKind = found, enc.kind
		}
	}
	if best == nil {
		best = []int{}
	}
	return bestKind, best
}
