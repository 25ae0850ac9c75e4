package txscript

import (
	"crypto/sha256"
	"errors"
	"math/big"
)

// AddressParams are the per-network address prefixes (held by chain
// params, which this package does not import).
type AddressParams struct {
	PubKeyHashAddrID byte
	ScriptHashAddrID byte
	Bech32HRP        string
}

// AddressType distinguishes the address forms.
type AddressType uint8

// Address forms.
const (
	AddrP2PKH AddressType = iota + 1
	AddrP2SH
	AddrWitness // any segwit version; see Address.WitnessVersion
)

// Address is a decoded address: a public key hash, script hash or witness
// program, independent of network.
type Address struct {
	Type           AddressType
	WitnessVersion byte
	Hash           []byte // 20-byte hash for P2PKH/P2SH, else witness program
}

// ErrInvalidAddress is returned for strings that are not addresses of the
// requested network.
var ErrInvalidAddress = errors.New("invalid address")

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

var base58Rev = func() [256]int16 {
	var r [256]int16
	for i := range r {
		r[i] = -1
	}
	for i := 0; i < len(base58Alphabet); i++ {
		r[base58Alphabet[i]] = int16(i)
	}
	return r
}()

// Base58Encode encodes b in Bitcoin's base58 alphabet.
func Base58Encode(b []byte) string {
	zeros := 0
	for zeros < len(b) && b[zeros] == 0 {
		zeros++
	}
	n := new(big.Int).SetBytes(b)
	radix, mod := big.NewInt(58), new(big.Int)
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

// Base58Decode decodes a base58 string; inputs are capped at 200
// characters since no address is longer.
func Base58Decode(s string) ([]byte, error) {
	if len(s) > 200 {
		return nil, ErrInvalidAddress
	}
	n := new(big.Int)
	radix := big.NewInt(58)
	zeros := 0
	for zeros < len(s) && s[zeros] == '1' {
		zeros++
	}
	for i := 0; i < len(s); i++ {
		v := base58Rev[s[i]]
		if v < 0 {
			return nil, ErrInvalidAddress
		}
		n.Mul(n, radix)
		n.Add(n, big.NewInt(int64(v)))
	}
	body := n.Bytes()
	out := make([]byte, zeros+len(body))
	copy(out[zeros:], body)
	return out, nil
}

// Base58CheckEncode encodes version||payload with a 4-byte checksum.
func Base58CheckEncode(version byte, payload []byte) string {
	b := append([]byte{version}, payload...)
	h := sha256.Sum256(b)
	h = sha256.Sum256(h[:])
	return Base58Encode(append(b, h[:4]...))
}

// Base58CheckDecode checks the checksum and splits off the version byte.
func Base58CheckDecode(s string) (version byte, payload []byte, err error) {
	b, err := Base58Decode(s)
	if err != nil || len(b) < 5 {
		return 0, nil, ErrInvalidAddress
	}
	body, sum := b[:len(b)-4], b[len(b)-4:]
	h := sha256.Sum256(body)
	h = sha256.Sum256(h[:])
	if string(h[:4]) != string(sum) {
		return 0, nil, ErrInvalidAddress
	}
	return body[0], body[1:], nil
}

// DecodeAddress parses an address of the network described by p.
func DecodeAddress(s string, p *AddressParams) (Address, error) {
	if len(s) > len(p.Bech32HRP)+1 && len(s) <= 90 {
		if v, prog, err := DecodeSegWitAddress(p.Bech32HRP, s); err == nil {
			return Address{Type: AddrWitness, WitnessVersion: v, Hash: prog}, nil
		}
	}
	ver, payload, err := Base58CheckDecode(s)
	if err != nil || len(payload) != 20 {
		return Address{}, ErrInvalidAddress
	}
	switch ver {
	case p.PubKeyHashAddrID:
		return Address{Type: AddrP2PKH, Hash: payload}, nil
	case p.ScriptHashAddrID:
		return Address{Type: AddrP2SH, Hash: payload}, nil
	}
	return Address{}, ErrInvalidAddress
}

// Encode returns the address string for network p ("" for an invalid
// Address value).
func (a Address) Encode(p *AddressParams) string {
	switch a.Type {
	case AddrP2PKH:
		return Base58CheckEncode(p.PubKeyHashAddrID, a.Hash)
	case AddrP2SH:
		return Base58CheckEncode(p.ScriptHashAddrID, a.Hash)
	case AddrWitness:
		s, err := EncodeSegWitAddress(p.Bech32HRP, a.WitnessVersion, a.Hash)
		if err != nil {
			return ""
		}
		return s
	}
	return ""
}

// PkScript returns the output script paying to a.
func (a Address) PkScript() []byte {
	switch a.Type {
	case AddrP2PKH:
		s := []byte{OP_DUP, OP_HASH160, OP_DATA_20}
		s = append(s, a.Hash...)
		return append(s, OP_EQUALVERIFY, OP_CHECKSIG)
	case AddrP2SH:
		s := []byte{OP_HASH160, OP_DATA_20}
		s = append(s, a.Hash...)
		return append(s, OP_EQUAL)
	case AddrWitness:
		s := []byte{smallIntOp(int(a.WitnessVersion)), byte(len(a.Hash))}
		return append(s, a.Hash...)
	}
	return nil
}

// AddressFromPkScript returns the address an output script pays to, if it
// has one (P2PKH, P2SH or a witness program).
func AddressFromPkScript(pk []byte) (Address, bool) {
	switch {
	case isP2PKH(pk):
		return Address{Type: AddrP2PKH, Hash: pk[3:23]}, true
	case IsPayToScriptHash(pk):
		return Address{Type: AddrP2SH, Hash: pk[2:22]}, true
	}
	if v, prog, ok := IsWitnessProgram(pk); ok {
		return Address{Type: AddrWitness, WitnessVersion: byte(v), Hash: prog}, true
	}
	return Address{}, false
}

func isP2PKH(pk []byte) bool {
	return len(pk) == 25 && pk[0] == OP_DUP && pk[1] == OP_HASH160 &&
		pk[2] == OP_DATA_20 && pk[23] == OP_EQUALVERIFY && pk[24] == OP_CHECKSIG
}
