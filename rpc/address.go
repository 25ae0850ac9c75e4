package rpc

import (
	"crypto/sha256"
	"errors"
	"strings"

	"github.com/btcnode/btcd/chaincfg"

	"github.com/btcnode/btcd/txscript"
)

// NetParams is the address encoding of a network, as the RPC methods
// need it: NetParamsOf derives it from the network's chaincfg.Params.
type NetParams struct {
	Name             string // bitcoind's chain name: main, test, testnet4, signet, regtest
	PubKeyHashAddrID byte
	ScriptHashAddrID byte
	Bech32HRP        string
}

// NetParamsOf returns the address encoding of p.
func NetParamsOf(p *chaincfg.Params) NetParams {
	return NetParams{
		Name:             p.Name,
		PubKeyHashAddrID: p.PubKeyHashAddrID,
		ScriptHashAddrID: p.ScriptHashAddrID,
		Bech32HRP:        p.Bech32HRPSegwit,
	}
}

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

// tx returns a as a txscript.Address, which owns the encodings.
func (a address) tx() txscript.Address {
	t := txscript.Address{Hash: a.program, WitnessVersion: byte(a.version)}
	switch a.kind {
	case addrP2PKH:
		t.Type = txscript.AddrP2PKH
	case addrP2SH:
		t.Type = txscript.AddrP2SH
	case addrWitness:
		t.Type = txscript.AddrWitness
	}
	return t
}

// script returns the scriptPubKey paying to a.
func (a address) script() []byte { return a.tx().PkScript() }

// encode returns a's string form on net.
func (a address) encode(net *NetParams) string {
	return a.tx().Encode(&txscript.AddressParams{
		PubKeyHashAddrID: net.PubKeyHashAddrID,
		ScriptHashAddrID: net.ScriptHashAddrID,
		Bech32HRP:        net.Bech32HRP,
	})
}

// decodeAddress decodes an address for net. On failure it returns
// bitcoind's DecodeDestination message.
func decodeAddress(s string, net *NetParams) (address, string) {
	a, msg, _ := decodeAddressDetail(s, net)
	return a, msg
}

// bech32Messages are bitcoind's texts for txscript's bech32 failure kinds.
var bech32Messages = map[txscript.Bech32ErrorKind]string{
	txscript.Bech32ErrTooLong:          "Bech32 string too long",
	txscript.Bech32ErrInvalidChar:      "Invalid character or mixed case",
	txscript.Bech32ErrMissingSeparator: "Missing separator",
	txscript.Bech32ErrSeparatorPos:     "Invalid separator position",
	txscript.Bech32ErrBase32Char:       "Invalid Base 32 character",
	txscript.Bech32ErrChecksum:         "Invalid checksum",
	txscript.Bech32ErrChecksumBech32:   "Invalid Bech32 checksum",
	txscript.Bech32ErrChecksumBech32m:  "Invalid Bech32m checksum",
}

// decodeAddressDetail is decodeAddress that also returns, for a bech32
// string, the positions of likely errors (validateaddress's
// error_locations). The decoding itself is txscript's; this maps its
// failures to bitcoind's DecodeDestination messages.
func decodeAddressDetail(s string, net *NetParams) (address, string, []int) {
	hrp := net.Bech32HRP
	isBech32 := len(s) >= len(hrp) && strings.EqualFold(s[:len(hrp)], hrp)
	if !isBech32 {
		if len(s) > 100 || s == "" {
			return address{}, "Invalid or unsupported Segwit (Bech32) or Base58 encoding.", nil
		}
		data, err := txscript.Base58Decode(s)
		if err != nil {
			return address{}, "Invalid or unsupported Segwit (Bech32) or Base58 encoding.", nil
		}
		if len(data) < 4 || len(data)-4 > 21 || !base58ChecksumOK(data) {
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
	gotHRP, data, bech32m, err := txscript.DecodeBech32(s)
	if err != nil {
		var be *txscript.Bech32Error
		if errors.As(err, &be) {
			return address{}, bech32Messages[be.Kind], be.Locations
		}
		return address{}, "Invalid checksum", []int{}
	}
	if len(data) == 0 {
		return address{}, "Empty Bech32 data section", nil
	}
	if gotHRP != hrp {
		return address{}, "Invalid or unsupported prefix for Segwit (Bech32) address (expected " + hrp + ", got " + gotHRP + ").", nil
	}
	version := int(data[0])
	if version == 0 && bech32m {
		return address{}, "Version 0 witness address must use Bech32 checksum", nil
	}
	if version != 0 && !bech32m {
		return address{}, "Version 1+ witness address must use Bech32m checksum", nil
	}
	prog, ok := txscript.Bech32DataToBytes(data[1:])
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

// base58ChecksumOK checks the 4-byte checksum of decoded base58check data
// of any payload length; txscript.Base58CheckDecode also splits off a
// version byte and so cannot tell bitcoind's length and checksum errors
// apart.
func base58ChecksumOK(data []byte) bool {
	h := sha256.Sum256(data[:len(data)-4])
	h = sha256.Sum256(h[:])
	return string(h[:4]) == string(data[len(data)-4:])
}
