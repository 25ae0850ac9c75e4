package rpc

import (
	"crypto/sha256"
	"math/big"
	"strings"
)

// NetParams is the address encoding of a network. The daemon fills it from
// chaincfg.Params (PubKeyHashAddrID, ScriptHashAddrID, Bech32HRPSegwit);
// keeping a copy here lets this package build without chaincfg.
type NetParams struct {
	Name             string // bitcoind's chain name: main, test, testnet4, signet, regtest
	PubKeyHashAddrID byte
	ScriptHashAddrID byte
	Bech32HRP        string
}

// Address encodings of the built-in networks.
var (
	MainNetParams  = NetParams{Name: "main", PubKeyHashAddrID: 0x00, ScriptHashAddrID: 0x05, Bech32HRP: "bc"}
	TestNet3Params = NetParams{Name: "test", PubKeyHashAddrID: 0x6f, ScriptHashAddrID: 0xc4, Bech32HRP: "tb"}
	TestNet4Params = NetParams{Name: "testnet4", PubKeyHashAddrID: 0x6f, ScriptHashAddrID: 0xc4, Bech32HRP: "tb"}
	SigNetParams   = NetParams{Name: "signet", PubKeyHashAddrID: 0x6f, ScriptHashAddrID: 0xc4, Bech32HRP: "tb"}
	RegTestParams  = NetParams{Name: "regtest", PubKeyHashAddrID: 0x6f, ScriptHashAddrID: 0xc4, Bech32HRP: "bcrt"}
)

// addrKind is the kind of a decoded address.
type addrKind uint8

const (
	addrP2PKH addrKind = iota + 1
	addrP2SH
	addrWitness
)

// address is a decoded destination.
type address struct {
	kind    addrKind
	version int    // witness version
	program []byte // hash160 for base58 kinds, witness program otherwise
}

// script returns the scriptPubKey paying to a.
func (a address) script() []byte {
	switch a.kind {
	case addrP2PKH:
		s := []byte{opDup, opHash160, 20}
		s = append(s, a.program...)
		return append(s, opEqualVerify, opCheckSig)
	case addrP2SH:
		s := []byte{opHash160, 20}
		s = append(s, a.program...)
		return append(s, opEqual)
	case addrWitness:
		v := byte(op0)
		if a.version > 0 {
			v = byte(op1 + a.version - 1)
		}
		return append([]byte{v, byte(len(a.program))}, a.program...)
	}
	return nil
}

// encode returns a's string form on net.
func (a address) encode(net *NetParams) string {
	switch a.kind {
	case addrP2PKH:
		return base58CheckEncode(net.PubKeyHashAddrID, a.program)
	case addrP2SH:
		return base58CheckEncode(net.ScriptHashAddrID, a.program)
	case addrWitness:
		return encodeSegwit(net.Bech32HRP, a.version, a.program)
	}
	return ""
}

// decodeAddress decodes an address for net. On failure it returns
// bitcoind's DecodeDestination message.
func decodeAddress(s string, net *NetParams) (address, string) {
	a, msg, _ := decodeAddressDetail(s, net)
	return a, msg
}

// decodeAddressDetail is decodeAddress that also returns, for a bech32
// string, the positions of likely errors (validateaddress's
// error_locations).
func decodeAddressDetail(s string, net *NetParams) (address, string, []int) {
	hrp := net.Bech32HRP
	isBech32 := len(s) >= len(hrp) && strings.EqualFold(s[:len(hrp)], hrp)
	if !isBech32 {
		if len(s) > 100 {
			return address{}, "Invalid or unsupported Segwit (Bech32) or Base58 encoding.", nil
		}
		data, ok := base58Decode(s)
		if !ok {
			return address{}, "Invalid or unsupported Segwit (Bech32) or Base58 encoding.", nil
		}
		if len(data) < 4 || !checksumOK(data) || len(data)-4 > 21 {
			return address{}, "Invalid checksum or length of Base58 address (P2PKH or P2SH)", nil
		}
		payload := data[:len(data)-4]
		if len(payload) == 21 && payload[0] == net.PubKeyHashAddrID {
			return address{kind: addrP2PKH, program: payload[1:]}, "", nil
		}
		if len(payload) == 21 && payload[0] == net.ScriptHashAddrID {
			return address{kind: addrP2SH, program: payload[1:]}, "", nil
		}
		if len(payload) >= 1 && (payload[0] == net.PubKeyHashAddrID || payload[0] == net.ScriptHashAddrID) {
			return address{}, "Invalid length for Base58 address (P2PKH or P2SH)", nil
		}
		return address{}, "Invalid or unsupported Base58-encoded address.", nil
	}
	gotHRP, data, enc, msg, locs := bech32Decode(s)
	if msg != "" {
		return address{}, msg, locs
	}
	if len(data) == 0 {
		return address{}, "Empty Bech32 data section", nil
	}
	if gotHRP != hrp {
		return address{}, "Invalid or unsupported prefix for Segwit (Bech32) address (expected " + hrp + ", got " + gotHRP + ").", nil
	}
	version := int(data[0])
	if version == 0 && enc != bech32Plain {
		return address{}, "Version 0 witness address must use Bech32 checksum", nil
	}
	if version != 0 && enc != bech32M {
		return address{}, "Version 1+ witness address must use Bech32m checksum", nil
	}
	prog, ok := convertBits(data[1:], 5, 8, false)
	if !ok {
		return address{}, "Invalid padding in Bech32 data section", nil
	}
	unit := "bytes"
	if len(prog) == 1 {
		unit = "byte"
	}
	if version == 0 {
		if len(prog) == 20 || len(prog) == 32 {
			return address{kind: addrWitness, program: prog}, "", nil
		}
		return address{}, "Invalid Bech32 v0 address program size (" + itoa(len(prog)) + " " + unit + "), per BIP141", nil
	}
	if version > 16 {
		return address{}, "Invalid Bech32 address witness version", nil
	}
	if len(prog) < 2 || len(prog) > 40 {
		return address{}, "Invalid Bech32 address program size (" + itoa(len(prog)) + " " + unit + ")", nil
	}
	return address{kind: addrWitness, version: version, program: prog}, "", nil
}

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

var base58Index = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for i := 0; i < len(base58Alphabet); i++ {
		t[base58Alphabet[i]] = int8(i)
	}
	return t
}()

// base58Decode decodes a base58 string. Callers bound its length.
func base58Decode(s string) ([]byte, bool) {
	if s == "" {
		return nil, false
	}
	n := new(big.Int)
	radix := big.NewInt(58)
	zeros := 0
	for zeros < len(s) && s[zeros] == '1' {
		zeros++
	}
	for i := 0; i < len(s); i++ {
		v := base58Index[s[i]]
		if v < 0 {
			return nil, false
		}
		n.Mul(n, radix)
		n.Add(n, big.NewInt(int64(v)))
	}
	b := n.Bytes()
	out := make([]byte, zeros+len(b))
	copy(out[zeros:], b)
	return out, true
}

func base58Encode(b []byte) string {
	zeros := 0
	for zeros < len(b) && b[zeros] == 0 {
		zeros++
	}
	n := new(big.Int).SetBytes(b)
	radix := big.NewInt(58)
	mod := new(big.Int)
	var out []byte
	for n.Sign() > 0 {
		n.DivMod(n, radix, mod)
		out = append(out, base58Alphabet[mod.Int64()])
	}
	for i := 0; i < zeros; i++ {
		out = append(out, '1')
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return string(out)
}

func checksumOK(data []byte) bool {
	p := data[:len(data)-4]
	h := sha256.Sum256(p)
	h = sha256.Sum256(h[:])
	return string(h[:4]) == string(data[len(data)-4:])
}

func base58CheckEncode(version byte, payload []byte) string {
	b := append([]byte{version}, payload...)
	h := sha256.Sum256(b)
	h = sha256.Sum256(h[:])
	return base58Encode(append(b, h[:4]...))
}

// Bech32 (BIP173) and bech32m (BIP350).
const bech32Charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

type bech32Encoding uint8

const (
	bech32Invalid bech32Encoding = iota
	bech32Plain
	bech32M
)

const bech32MConst = 0x2bc830a3

func bech32Polymod(values []byte, chk uint32) uint32 {
	gen := [5]uint32{0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3}
	for _, v := range values {
		b := chk >> 25
		chk = (chk&0x1ffffff)<<5 ^ uint32(v)
		for i := 0; i < 5; i++ {
			if (b>>uint(i))&1 == 1 {
				chk ^= gen[i]
			}
		}
	}
	return chk
}

func bech32HRPExpand(hrp string) []byte {
	out := make([]byte, 0, 2*len(hrp)+1)
	for i := 0; i < len(hrp); i++ {
		out = append(out, hrp[i]>>5)
	}
	out = append(out, 0)
	for i := 0; i < len(hrp); i++ {
		out = append(out, hrp[i]&31)
	}
	return out
}

// bech32Decode decodes a bech32 or bech32m string (at most 90 characters)
// into its lower-case HRP and 5-bit data without the checksum. On failure
// it returns bitcoind's message and the string positions of the likely
// errors (bech32::LocateErrors).
func bech32Decode(s string) (string, []byte, bech32Encoding, string, []int) {
	if len(s) > 90 {
		locs := make([]int, 0, len(s)-90)
		for i := 90; i < len(s); i++ {
			locs = append(locs, i)
		}
		return "", nil, 0, "Bech32 string too long", locs
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
		return "", nil, 0, "Invalid character or mixed case", locs
	}
	s = strings.ToLower(s)
	pos := strings.LastIndexByte(s, '1')
	if pos < 0 {
		return "", nil, 0, "Missing separator", []int{}
	}
	if pos == 0 || pos+7 > len(s) {
		return "", nil, 0, "Invalid separator position", []int{pos}
	}
	hrp := s[:pos]
	values := bech32HRPExpand(hrp)
	nHRP := len(values)
	for i := pos + 1; i < len(s); i++ {
		v := strings.IndexByte(bech32Charset, s[i])
		if v < 0 {
			return "", nil, 0, "Invalid Base 32 character", []int{i}
		}
		values = append(values, byte(v))
	}
	chk := bech32Polymod(values, 1)
	switch chk {
	case 1:
		return hrp, values[nHRP : len(values)-6], bech32Plain, "", nil
	case bech32MConst:
		return hrp, values[nHRP : len(values)-6], bech32M, "", nil
	}
	msg, locs := locateBech32Errors(values, nHRP, pos+1, chk)
	return "", nil, 0, msg, locs
}

// locateBech32Errors finds up to two substitution errors in the data part
// of a bech32 string whose checksum failed, trying both encodings and
// keeping the one needing fewer corrections, as bitcoind reports them.
// values are the expanded HRP followed by the data symbols; dataStart is
// the string index of the first data symbol; chk is the polymod of values.
//
// The checksum is linear over GF(2): the residue of a corrupted string is
// the residue of its error pattern alone, so an error pattern of at most
// two symbols is found by matching single-symbol residues (a code of
// distance 5 explains a residue by at most one such pattern).
func locateBech32Errors(values []byte, nHRP, dataStart int, chk uint32) (string, []int) {
	n := len(values) - nHRP
	// effect[i*32+x] is the residue of the symbol x at data index i.
	effect := make([]uint32, n*32)
	for i := 0; i < n; i++ {
		for x := 1; x < 32; x++ {
			effect[i*32+x] = bech32Residue(len(values)-nHRP-i-1, byte(x))
		}
	}
	var best []int
	bestMsg := "Invalid checksum"
	for _, enc := range []struct {
		c   uint32
		msg string
	}{{1, "Invalid Bech32 checksum"}, {bech32MConst, "Invalid Bech32m checksum"}} {
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
		if best == nil || (len(found) > 0 && len(found) < len(best)) {
			if len(found) > 0 {
				best, bestMsg = found, enc.msg
			}
		}
	}
	if best == nil {
		best = []int{}
	}
	return bestMsg, best
}

// bech32Residue is the linear polymod contribution of symbol x followed by
// zeros symbols.
func bech32Residue(zeros int, x byte) uint32 {
	c := bech32Polymod([]byte{x}, 0)
	for ; zeros > 0; zeros-- {
		c = bech32Polymod([]byte{0}, c)
	}
	return c
}

// encodeSegwit encodes a witness program: bech32 for version 0, bech32m
// otherwise.
func encodeSegwit(hrp string, version int, program []byte) string {
	conv, _ := convertBits(program, 8, 5, true)
	data := append([]byte{byte(version)}, conv...)
	c := uint32(1)
	if version != 0 {
		c = bech32MConst
	}
	values := append(bech32HRPExpand(hrp), data...)
	values = append(values, 0, 0, 0, 0, 0, 0)
	mod := bech32Polymod(values, 1) ^ c
	var b strings.Builder
	b.WriteString(hrp)
	b.WriteByte('1')
	for _, d := range data {
		b.WriteByte(bech32Charset[d])
	}
	for i := 0; i < 6; i++ {
		b.WriteByte(bech32Charset[(mod>>uint(5*(5-i)))&31])
	}
	return b.String()
}

// convertBits regroups bits, as BIP173's convertbits.
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
	} else if nbits >= from || acc<<(to-nbits)&maxv != 0 {
		return nil, false
	}
	return out, true
}
