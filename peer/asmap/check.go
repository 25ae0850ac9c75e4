package asmap

import "math/bits"

// Check reports whether data is a well-formed ASMap for 128-bit inputs:
// every path through the program decodes, consumes at most 128 address
// bits and ends in a RETURN (or a failing MATCH); jumps land exactly where
// the code they skip ends in a RETURN, nest without crossing, and stay in
// the program; no DEFAULT directly precedes a RETURN or another DEFAULT;
// a run of MATCHes has no two partial ones in a row; and the program ends
// with at most 7 zero padding bits. Core refuses to load a map failing any
// of these, so lookups on a checked map always terminate.
func Check(data []byte) bool {
	r := &reader{prog: data, end: len(data) * 8}
	type target struct {
		pos  int // bit offset the jump lands on
		left int // address bits left there
	}
	var pending []target // innermost last
	left := 128
	prev := opJump
	partialMatch := false
	for r.pos < r.end {
		if n := len(pending); n > 0 && r.pos >= pending[n-1].pos {
			return false // flows into (or past) a jump's landing point
		}
		op, err := r.read(typeCode)
		if err != nil {
			return false
		}
		switch op {
		case opReturn:
			if prev == opDefault {
				return false
			}
			if _, err := r.read(asnCode); err != nil {
				return false
			}
			n := len(pending)
			if n == 0 {
				if r.end-r.pos > 7 {
					return false
				}
				for r.pos < r.end {
					if b, _ := r.bit(); b != 0 {
						return false
					}
				}
				return true
			}
			if r.pos != pending[n-1].pos {
				return false // code nothing reaches
			}
			left = pending[n-1].left
			pending = pending[:n-1]
			prev = opJump
		case opJump:
			off, err := r.read(jumpCode)
			if err != nil || int(off) > r.end-r.pos || left == 0 {
				return false
			}
			left--
			to := r.pos + int(off)
			if n := len(pending); n > 0 && to >= pending[n-1].pos {
				return false // crosses an enclosing jump
			}
			pending = append(pending, target{pos: to, left: left})
			prev = opJump
		case opMatch:
			pat, err := r.read(matchCode)
			if err != nil {
				return false
			}
			n := bits.Len32(pat) - 1
			if prev != opMatch {
				partialMatch = false
			}
			if n < 8 && partialMatch {
				return false
			}
			partialMatch = n < 8
			if left < n {
				return false
			}
			left -= n
			prev = opMatch
		case opDefault:
			if prev == opDefault {
				return false
			}
			if _, err := r.read(asnCode); err != nil {
				return false
			}
			prev = opDefault
		default:
			return false
		}
	}
	return false
}
