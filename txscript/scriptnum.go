package txscript

// Script number rules: numbers on the stack are little-endian
// sign-magnitude, at most 4 bytes as operands (5 for the locktime opcodes),
// while results may overflow to 5 bytes.
const (
	defaultScriptNumLen  = 4
	lockTimeScriptNumLen = 5
)

// parseScriptNum decodes a stack element as a number with Core's
// CScriptNum rules; requireMinimal rejects encodings with needless
// trailing zero bytes.
func parseScriptNum(v []byte, requireMinimal bool, maxLen int) (int64, error) {
	n := len(v)
	if n > maxLen {
		return 0, ErrScriptNum
	}
	if n == 0 {
		return 0, nil
	}
	if requireMinimal && v[n-1]&0x7f == 0 {
		// The last byte may only be 0x00/0x80 when it carries a sign
		// bit that the previous byte could not hold.
		if n == 1 || v[n-2]&0x80 == 0 {
			return 0, ErrScriptNum
		}
	}
	var r int64
	for i := 0; i < n; i++ {
		r |= int64(v[i]) << (8 * uint(i))
	}
	if v[n-1]&0x80 != 0 {
		return -(r & ^(int64(0x80) << (8 * uint(n-1)))), nil
	}
	return r, nil
}

// appendScriptNum appends the minimal encoding of n.
func appendScriptNum(dst []byte, n int64) []byte {
	if n == 0 {
		return dst
	}
	neg := n < 0
	var abs uint64
	if neg {
		abs = uint64(-n)
	} else {
		abs = uint64(n)
	}
	for abs > 0 {
		dst = append(dst, byte(abs))
		abs >>= 8
	}
	// A set high bit would be read as the sign, so add a byte for it.
	if dst[len(dst)-1]&0x80 != 0 {
		if neg {
			dst = append(dst, 0x80)
		} else {
			dst = append(dst, 0x00)
		}
	} else if neg {
		dst[len(dst)-1] |= 0x80
	}
	return dst
}

// clampInt32 is Core's CScriptNum::getint.
func clampInt32(n int64) int {
	if n > 0x7fffffff {
		return 0x7fffffff
	}
	if n < -0x80000000 {
		return -0x80000000
	}
	return int(n)
}

// castToBool is Core's CastToBool: any non-zero byte is true, except that a
// lone sign bit in the last byte ("negative zero") is false.
func castToBool(v []byte) bool {
	for i, b := range v {
		if b != 0 {
			if i == len(v)-1 && b == 0x80 {
				return false
			}
			return true
		}
	}
	return false
}
