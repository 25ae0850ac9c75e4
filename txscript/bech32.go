package txscript

import (
	"errors"
	"strings"
)

// Bech32 (BIP173) and bech32m (BIP350) encoding of segwit addresses.

const bech32Charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

var bech32Rev = func() [128]int8 {
	var r [128]int8
	for i := range r {
		r[i] = -1
	}
	for i, c := range bech32Charset {
		r[c] = int8(i)
	}
	return r
}()

const (
	bech32Const  = 1
	bech32mConst = 0x2bc830a3
)

// bech32Step feeds one 5-bit value into the BCH checksum state.
func bech32Step(chk uint32, v byte) uint32 {
	gen := [5]uint32{0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3}
	b := chk >> 25
	chk = (chk&0x1ffffff)<<5 ^ uint32(v)
	for i := 0; i < 5; i++ {
		if (b>>i)&1 != 0 {
			chk ^= gen[i]
		}
	}
	return chk
}

func bech32Polymod(hrp string, data []byte) uint32 {
	chk := uint32(1)
	for i := 0; i < len(hrp); i++ {
		chk = bech32Step(chk, hrp[i]>>5)
	}
	chk = bech32Step(chk, 0)
	for i := 0; i < len(hrp); i++ {
		chk = bech32Step(chk, hrp[i]&31)
	}
	for _, v := range data {
		chk = bech32Step(chk, v)
	}
	return chk
}

// bech32Encode encodes 5-bit data with the given checksum constant.
func bech32Encode(hrp string, data []byte, constant uint32) string {
	vals := append(append([]byte{}, data...), 0, 0, 0, 0, 0, 0)
	pm := bech32Polymod(hrp, vals) ^ constant
	var sb strings.Builder
	sb.WriteString(hrp)
	sb.WriteByte('1')
	for _, v := range data {
		sb.WriteByte(bech32Charset[v])
	}
	for i := 0; i < 6; i++ {
		sb.WriteByte(bech32Charset[(pm>>uint(5*(5-i)))&31])
	}
	return sb.String()
}

var errBech32 = errors.New("invalid bech32 string")

// bech32Decode returns the lower-case hrp, 5-bit data (without checksum)
// and the checksum constant matched.
func bech32Decode(s string) (string, []byte, uint32, error) {
	hrp, data, pm, e := bech32DecodeKind(s, false)
	if e != nil {
		return "", nil, 0, errBech32
	}
	return hrp, data, pm, nil
}

// convertBits regroups bits; with pad false it rejects leftover non-zero
// or overlong padding, as BIP173 requires when decoding.
func convertBits(data []byte, from, to uint, pad bool) ([]byte, bool) {
	acc, nbits := uint32(0), uint(0)
	maxv := uint32(1)<<to - 1
	out := make([]byte, 0, len(data)*int(from)/int(to)+1)
	for _, v := range data {
		if uint32(v)>>from != 0 {
			return nil, false
		}
		acc = acc<<from | uint32(v)
		nbits += from
		for nbits >= to {
			nbits -= to
			out = append(out, byte(acc>>nbits&maxv))
		}
	}
	if pad {
		if nbits > 0 {
			out = append(out, byte(acc<<(to-nbits)&maxv))
		}
	} else if nbits >= from || (acc<<(to-nbits))&maxv != 0 {
		return nil, false
	}
	return out, true
}

// EncodeSegWitAddress encodes a witness program as bech32 (version 0) or
// bech32m (versions 1-16).
func EncodeSegWitAddress(hrp string, version byte, program []byte) (string, error) {
	if version > 16 || len(program) < 2 || len(program) > 40 {
		return "", errors.New("invalid witness program")
	}
	conv, _ := convertBits(program, 8, 5, true)
	data := append([]byte{version}, conv...)
	c := uint32(bech32Const)
	if version > 0 {
		c = bech32mConst
	}
	return bech32Encode(hrp, data, c), nil
}

// Bech32DataToBytes regroups a decoded bech32 data part (5-bit values)
// into bytes, rejecting non-zero or overlong padding as BIP173 requires.
func Bech32DataToBytes(data []byte) ([]byte, bool) { return convertBits(data, 5, 8, false) }

// DecodeSegWitAddress decodes and validates a segwit address for hrp.
func DecodeSegWitAddress(hrp, addr string) (version byte, program []byte, err error) {
	h, data, c, err := bech32Decode(addr)
	if err != nil {
		return 0, nil, err
	}
	if h != strings.ToLower(hrp) || len(data) < 1 {
		return 0, nil, errors.New("wrong address prefix")
	}
	version = data[0]
	if version > 16 {
		return 0, nil, errors.New("invalid witness version")
	}
	prog, ok := convertBits(data[1:], 5, 8, false)
	if !ok || len(prog) < 2 || len(prog) > 40 {
		return 0, nil, errors.New("invalid witness program")
	}
	if version == 0 && len(prog) != 20 && len(prog) != 32 {
		return 0, nil, errors.New("invalid v0 witness program length")
	}
	if (version == 0) != (c == bech32Const) {
		return 0, nil, errors.New("wrong checksum variant for witness version")
	}
	return version, prog, nil
}
