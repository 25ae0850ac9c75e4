package descriptor

import (
	"errors"
	"fmt"
	"strings"
)

// checksumInput is the descriptor character set. Its order is part of the
// checksum definition: a character contributes its position within its
// group of 32 and, every three characters, the groups combined, so that the
// likely typing mistakes change a single symbol.
const checksumInput = "0123456789()[],'/*abcdefgh@:$%{}" +
	"IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~" +
	"ijklmnopqrstuvwxyzABCDEFGH`#\"\\ "

// checksumAlphabet spells the checksum (bech32's alphabet).
const checksumAlphabet = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

// checksumLen is the number of checksum characters after '#'.
const checksumLen = 8

var checksumPos = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for i := 0; i < len(checksumInput); i++ {
		t[checksumInput[i]] = int8(i)
	}
	return t
}()

// polymod feeds one 5-bit symbol into the BCH code's remainder, c being the
// degree-8 polynomial over GF(32) packed five bits per coefficient.
func polymod(c uint64, v uint64) uint64 {
	top := c >> 35
	c = (c&0x7ffffffff)<<5 ^ v
	if top&1 != 0 {
		c ^= 0xf5dee51989
	}
	if top&2 != 0 {
		c ^= 0xa9fdca3312
	}
	if top&4 != 0 {
		c ^= 0x1bab10e32d
	}
	if top&8 != 0 {
		c ^= 0x3706b1677a
	}
	if top&16 != 0 {
		c ^= 0x644d626ffd
	}
	return c
}

// Checksum returns the BIP380 checksum of payload (a descriptor without its
// "#checksum" part), or "" when payload holds a character outside the
// descriptor character set.
func Checksum(payload string) string {
	c := uint64(1)
	groups, n := uint64(0), 0
	for i := 0; i < len(payload); i++ {
		p := checksumPos[payload[i]]
		if p < 0 {
			return ""
		}
		c = polymod(c, uint64(p)&31)
		groups = groups*3 + uint64(p)>>5
		if n++; n == 3 {
			c = polymod(c, groups)
			groups, n = 0, 0
		}
	}
	if n > 0 {
		c = polymod(c, groups)
	}
	for range checksumLen {
		c = polymod(c, 0)
	}
	c ^= 1
	var out [checksumLen]byte
	for j := range out {
		out[j] = checksumAlphabet[(c>>(5*(7-uint(j))))&31]
	}
	return string(out[:])
}

// AddChecksum returns payload followed by '#' and its checksum.
func AddChecksum(payload string) string { return payload + "#" + Checksum(payload) }

// ErrMissingChecksum is returned when a checksum is required but absent.
var ErrMissingChecksum = errors.New("Missing checksum")

// SplitChecksum separates desc into its payload and checksum, verifying the
// checksum when one is given (or required), with Core's messages. It
// returns the payload and the checksum computed over it.
func SplitChecksum(desc string, require bool) (payload, checksum string, err error) {
	payload, given, has := strings.Cut(desc, "#")
	if has && strings.IndexByte(given, '#') >= 0 {
		return "", "", errors.New("Multiple '#' symbols")
	}
	if !has && require {
		return "", "", ErrMissingChecksum
	}
	if has && len(given) != checksumLen {
		return "", "", fmt.Errorf("Expected %d character checksum, not %d characters", checksumLen, len(given))
	}
	checksum = Checksum(payload)
	if checksum == "" {
		return "", "", errors.New("Invalid characters in payload")
	}
	if has && given != checksum {
		return "", "", fmt.Errorf("Provided checksum '%s' does not match computed checksum '%s'", given, checksum)
	}
	return payload, checksum, nil
}
