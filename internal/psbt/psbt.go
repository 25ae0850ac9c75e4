// Package psbt holds Partially Signed Bitcoin Transactions (BIP174, with
// the taproot fields of BIP371 and the MuSig2 fields of BIP373): the
// binary format with Bitcoin Core's strict checks, and the roles a node
// without a wallet plays (creator, combiner, updater and signer with the
// keys and scripts descriptors give, finalizer, extractor, and the
// analysis of what an input still lacks).
package psbt

import (
	"encoding/base64"
	"strings"

	"github.com/btcnode/btcd/wire"
)

// MaxSize bounds a serialized PSBT (as Core's limit on PSBT files); larger
// input is refused before it is parsed.
const MaxSize = 100_000_000

// magic opens every PSBT: "psbt" and 0xff.
var magic = []byte{0x70, 0x73, 0x62, 0x74, 0xff}

// HighestVersion is the highest PSBT version understood (Core's
// PSBT_HIGHEST_VERSION).
const HighestVersion = 0

// Global key types.
const (
	globalUnsignedTx  = 0x00
	globalXPub        = 0x01
	globalVersion     = 0xfb
	globalProprietary = 0xfc
)

// Input key types.
const (
	inNonWitnessUTXO   = 0x00
	inWitnessUTXO      = 0x01
	inPartialSig       = 0x02
	inSighash          = 0x03
	inRedeemScript     = 0x04
	inWitnessScript    = 0x05
	inBip32            = 0x06
	inFinalScriptSig   = 0x07
	inFinalWitness     = 0x08
	inRipemd160        = 0x0a
	inSha256           = 0x0b
	inHash160          = 0x0c
	inHash256          = 0x0d
	inTapKeySig        = 0x13
	inTapScriptSig     = 0x14
	inTapLeafScript    = 0x15
	inTapBip32         = 0x16
	inTapInternalKey   = 0x17
	inTapMerkleRoot    = 0x18
	inMuSigParticipant = 0x1a
	inMuSigPubNonce    = 0x1b
	inMuSigPartialSig  = 0x1c
	inProprietary      = 0xfc
)

// Output key types.
const (
	outRedeemScript     = 0x00
	outWitnessScript    = 0x01
	outBip32            = 0x02
	outTapInternalKey   = 0x05
	outTapTree          = 0x06
	outTapBip32         = 0x07
	outMuSigParticipant = 0x08
	outProprietary      = 0xfc
)

// KeyOrigin is a key's BIP32 origin: the master key fingerprint and the
// derivation path from it.
type KeyOrigin struct {
	Fingerprint [4]byte
	Path        []uint32
}

// XPub is a global extended public key (78 bytes, BIP32 serialization
// without the checksum) with its origin.
type XPub struct {
	Key    []byte
	Origin KeyOrigin
}

// Derivation is a public key with its BIP32 origin.
type Derivation struct {
	PubKey []byte
	Origin KeyOrigin
}

// TapDerivation is an x-only key with the leaves it signs in and its
// origin.
type TapDerivation struct {
	XOnly      []byte
	LeafHashes [][32]byte
	Origin     KeyOrigin
}

// PartialSig is one ECDSA signature (with its hash type byte) by PubKey.
type PartialSig struct {
	PubKey []byte
	Sig    []byte
}

// TapScriptSig is a Schnorr signature by XOnly for the leaf LeafHash.
type TapScriptSig struct {
	XOnly    []byte
	LeafHash [32]byte
	Sig      []byte
}

// TapLeafScript is a script leaf with the control block that proves it.
type TapLeafScript struct {
	ControlBlock []byte
	Script       []byte
	LeafVersion  byte
}

// TapLeaf is one leaf of an output's taproot tree, depth first.
type TapLeaf struct {
	Depth       byte
	LeafVersion byte
	Script      []byte
}

// Preimage is a hash preimage: Hash is the digest, Preimage its input.
type Preimage struct {
	Hash     []byte
	Preimage []byte
}

// Proprietary is a proprietary (0xfc) record. Key is the whole key, the
// other fields are its parsed parts.
type Proprietary struct {
	Key        []byte
	Identifier []byte
	Subtype    uint64
	KeyData    []byte
	Value      []byte
}

// Record is a raw key-value pair: unknown keys, kept as they came, and
// the size-checked MuSig2 records.
type Record struct {
	Key   []byte
	Value []byte
}

// Input is one input map.
type Input struct {
	NonWitnessUTXO     *wire.MsgTx
	WitnessUTXO        *wire.TxOut
	PartialSigs        []PartialSig
	SighashType        *uint32
	RedeemScript       []byte
	WitnessScript      []byte
	Bip32              []Derivation
	FinalScriptSig     []byte
	FinalScriptWitness [][]byte
	Ripemd160          []Preimage
	Sha256             []Preimage
	Hash160            []Preimage
	Hash256            []Preimage
	TapKeySig          []byte
	TapScriptSigs      []TapScriptSig
	TapLeafScripts     []TapLeafScript
	TapBip32           []TapDerivation
	TapInternalKey     []byte
	TapMerkleRoot      []byte
	MuSig              []Record
	Proprietary        []Proprietary
	Unknown            []Record
}

// IsFinal reports whether the input carries a final scriptSig or witness.
func (in *Input) IsFinal() bool {
	return len(in.FinalScriptSig) > 0 || len(in.FinalScriptWitness) > 0
}

// Output is one output map.
type Output struct {
	RedeemScript   []byte
	WitnessScript  []byte
	Bip32          []Derivation
	TapInternalKey []byte
	TapTree        []TapLeaf
	TapBip32       []TapDerivation
	MuSig          []Record
	Proprietary    []Proprietary
	Unknown        []Record
}

// Packet is a PSBT: the unsigned transaction and one map per input and
// output.
type Packet struct {
	Tx          *wire.MsgTx
	XPubs       []XPub
	Version     uint32
	Inputs      []Input
	Outputs     []Output
	Proprietary []Proprietary
	Unknown     []Record
}

// New returns a PSBT for tx, whose scriptSigs and witnesses must be
// empty (they are dropped from the copy kept).
func New(tx *wire.MsgTx) *Packet {
	c := tx.Copy()
	for i := range c.TxIn {
		c.TxIn[i].SignatureScript = nil
		c.TxIn[i].Witness = nil
	}
	return &Packet{Tx: c, Inputs: make([]Input, len(c.TxIn)), Outputs: make([]Output, len(c.TxOut))}
}

// DecodeBase64 decodes a base64 PSBT. The error text is Core's.
func DecodeBase64(s string) (*Packet, error) {
	if len(s) > MaxSize/3*4+4 {
		return nil, errorf("PSBT is too large")
	}
	// Go's decoder skips line breaks; Core's does not.
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || strings.ContainsAny(s, "\r\n") {
		return nil, errorf("invalid base64")
	}
	return Decode(b)
}

// Base64 returns the base64 serialization.
func (p *Packet) Base64() string { return base64.StdEncoding.EncodeToString(p.Encode()) }

// UTXO returns the output input i spends, from its witness UTXO or its
// full previous transaction, and whether one is known.
func (p *Packet) UTXO(i int) (wire.TxOut, bool) {
	in := &p.Inputs[i]
	if in.WitnessUTXO != nil {
		return *in.WitnessUTXO, true
	}
	if in.NonWitnessUTXO != nil {
		n := p.Tx.TxIn[i].PreviousOutPoint.Index
		if int(n) < len(in.NonWitnessUTXO.TxOut) {
			return in.NonWitnessUTXO.TxOut[n], true
		}
	}
	return wire.TxOut{}, false
}

// Error is a PSBT format or consistency error; its text is Core's.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func errorf(msg string) error { return &Error{Msg: msg} }
