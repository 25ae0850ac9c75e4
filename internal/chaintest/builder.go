package chaintest

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/big"

	"github.com/btcnode/btcd/chaincfg"
	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/ecdsa"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
)

// Kind is the type of output the builder creates and knows how to spend.
type Kind int

// Output kinds.
const (
	P2WPKH Kind = iota // the default
	OpTrue             // anyone can spend: scriptPubKey OP_TRUE
	P2PKH
	P2TR // BIP86 key-path-only taproot output
)

// Output is an output the builder created.
type Output struct {
	OutPoint wire.OutPoint
	Value    int64
	PkScript []byte
	Kind     Kind
	Height   int32
	Coinbase bool
}

// Entry is a block the builder made (or the genesis block).
type Entry struct {
	Block  *wire.MsgBlock
	Hash   wire.Hash
	Height int32
	Parent *Entry
}

// Builder makes blocks on top of any block it knows.
type Builder struct {
	Params *chaincfg.Params
	Key    *btcec.PrivateKey

	pubKey     []byte   // compressed
	pkHash     [20]byte // hash160 of pubKey
	trScript   []byte
	trTweaked  *btcec.PrivateKey
	entries    map[wire.Hash]*Entry
	outputs    map[wire.OutPoint]*Output
	Tip        *Entry
	extraNonce uint32
}

// New returns a builder for params (normally regtest) whose tip is the
// genesis block. The key is derived from a fixed seed so that runs are
// reproducible.
func New(params *chaincfg.Params) *Builder {
	seed := sha256.Sum256([]byte("chaintest key"))
	key, _ := btcec.PrivKeyFromBytes(seed[:])
	b := &Builder{
		Params:  params,
		Key:     key,
		entries: make(map[wire.Hash]*Entry),
		outputs: make(map[wire.OutPoint]*Output),
	}
	b.pubKey = key.PubKey().SerializeCompressed()
	b.pkHash = txscript.Hash160(b.pubKey)
	b.initTaproot()
	g := &Entry{Block: params.GenesisBlock, Hash: params.GenesisHash, Height: 0}
	b.entries[g.Hash] = g
	b.Tip = g
	return b
}

// initTaproot derives the BIP86 output key and the tweaked private key.
func (b *Builder) initTaproot() {
	d := new(btcec.ModNScalar)
	d.Set(&b.Key.Key)
	pub := b.Key.PubKey()
	if pub.SerializeCompressed()[0] == 0x03 {
		d.Negate()
	}
	xonly := schnorr.SerializePubKey(pub)
	t := txscript.TapTweakHash(xonly, nil)
	var tw btcec.ModNScalar
	tw.SetBytes(&t)
	d.Add(&tw)
	b.trTweaked = btcec.PrivKeyFromScalar(d)
	outKey, _, _ := txscript.ComputeTaprootOutputKey(xonly, nil)
	b.trScript = append([]byte{0x51, 0x20}, outKey[:]...)
}

// Script returns the output script of a kind, paying to the builder's key.
func (b *Builder) Script(k Kind) []byte {
	switch k {
	case P2PKH:
		s := []byte{0x76, 0xa9, 0x14}
		s = append(s, b.pkHash[:]...)
		return append(s, 0x88, 0xac)
	case P2WPKH:
		return append([]byte{0x00, 0x14}, b.pkHash[:]...)
	case P2TR:
		return append([]byte(nil), b.trScript...)
	}
	return []byte{0x51}
}

// Entry returns a block the builder knows.
func (b *Builder) Entry(h wire.Hash) *Entry { return b.entries[h] }

// Output returns a known output.
func (b *Builder) Output(op wire.OutPoint) *Output { return b.outputs[op] }

// Subsidy returns the block subsidy at height.
func (b *Builder) Subsidy(height int32) int64 {
	halvings := height / b.Params.SubsidyHalvingInterval
	if halvings >= 64 {
		return 0
	}
	return (50 * 100_000_000) >> uint(halvings)
}

// HeightScript returns the BIP34 push of height.
func HeightScript(height int32) []byte {
	switch {
	case height == 0:
		return []byte{0x00}
	case height <= 16:
		return []byte{byte(0x50 + height)}
	}
	var num []byte
	for v := uint32(height); v > 0; v >>= 8 {
		num = append(num, byte(v))
	}
	if num[len(num)-1]&0x80 != 0 {
		num = append(num, 0)
	}
	return append([]byte{byte(len(num))}, num...)
}

// BlockOpts adjusts a block being built.
type BlockOpts struct {
	// CoinbaseKind is what the coinbase pays to (default P2WPKH).
	CoinbaseKind Kind
	// CoinbaseExtra is added to the coinbase value (to break bad-cb-amount).
	CoinbaseExtra int64
	// Time overrides the timestamp (default parent's + 1).
	Time uint32
	// Version overrides the block version (default 0x20000000).
	Version int32
	// NoWitnessCommitment omits the commitment even with witness data.
	NoWitnessCommitment bool
	// Mutate runs on the block before the merkle root, commitment and
	// header are finalised (Finalize=true) or after (Finalize=false), to
	// break rules.
	Mutate   func(*wire.MsgBlock)
	Finalize bool
	// NoSolve leaves the nonce unsolved.
	NoSolve bool
}

// NextBlock builds a block on parent (nil: the current tip) holding txs,
// with a coinbase paying the subsidy plus the fees of txs, makes it the
// builder's tip and remembers its outputs.
func (b *Builder) NextBlock(parent *Entry, txs []*wire.MsgTx, o *BlockOpts) *Entry {
	if parent == nil {
		parent = b.Tip
	}
	if o == nil {
		o = &BlockOpts{}
	}
	height := parent.Height + 1
	var fees int64
	for _, tx := range txs {
		fees += b.fee(tx)
	}
	b.extraNonce++
	sig := append(HeightScript(height), 0x04)
	sig = append(sig, byte(b.extraNonce), byte(b.extraNonce>>8), byte(b.extraNonce>>16), byte(b.extraNonce>>24))
	cbKind := o.CoinbaseKind
	cb := &wire.MsgTx{
		Version: 2,
		TxIn: []wire.TxIn{{
			PreviousOutPoint: wire.OutPoint{Index: wire.MaxPrevOutIndex},
			SignatureScript:  sig,
			Sequence:         wire.MaxTxInSequenceNum,
		}},
		TxOut: []wire.TxOut{{Value: b.Subsidy(height) + fees + o.CoinbaseExtra, PkScript: b.Script(cbKind)}},
	}
	blk := &wire.MsgBlock{
		Header: wire.BlockHeader{
			Version:   0x20000000,
			PrevBlock: parent.Hash,
			Timestamp: parent.Block.Header.Timestamp + 1,
			Bits:      b.Params.PowLimitBits,
		},
		Transactions: append([]*wire.MsgTx{cb}, txs...),
	}
	if o.Version != 0 {
		blk.Header.Version = o.Version
	}
	if o.Time != 0 {
		blk.Header.Timestamp = o.Time
	}
	if o.Mutate != nil && o.Finalize {
		o.Mutate(blk)
	}
	if !o.NoWitnessCommitment {
		AddWitnessCommitment(blk)
	}
	blk.ClearHashCache()
	blk.Header.MerkleRoot, _ = blk.MerkleRoot()
	if o.Mutate != nil && !o.Finalize {
		o.Mutate(blk)
	}
	if !o.NoSolve {
		Solve(&blk.Header, b.Params.PowLimit)
	}
	e := &Entry{Block: blk, Hash: blk.BlockHash(), Height: height, Parent: parent}
	b.entries[e.Hash] = e
	b.Tip = e
	for i, tx := range blk.Transactions {
		txid := tx.TxHash()
		for o := range tx.TxOut {
			op := wire.OutPoint{Hash: txid, Index: uint32(o)}
			b.outputs[op] = &Output{OutPoint: op, Value: tx.TxOut[o].Value, PkScript: tx.TxOut[o].PkScript,
				Kind: b.kindOf(tx.TxOut[o].PkScript), Height: height, Coinbase: i == 0}
		}
	}
	return e
}

// Rehash recomputes the merkle root and solves the header again after a
// test changed a block built by NextBlock, and updates the entry.
func (b *Builder) Rehash(e *Entry) {
	delete(b.entries, e.Hash)
	e.Block.ClearHashCache()
	e.Block.Header.MerkleRoot, _ = e.Block.MerkleRoot()
	Solve(&e.Block.Header, b.Params.PowLimit)
	e.Hash = e.Block.BlockHash()
	b.entries[e.Hash] = e
}

func (b *Builder) kindOf(pk []byte) Kind {
	switch {
	case bytes.Equal(pk, b.Script(P2PKH)):
		return P2PKH
	case bytes.Equal(pk, b.Script(P2WPKH)):
		return P2WPKH
	case bytes.Equal(pk, b.trScript):
		return P2TR
	case bytes.Equal(pk, []byte{0x51}):
		return OpTrue
	}
	return -1
}

// fee returns the fee of tx from the known values of its inputs.
func (b *Builder) fee(tx *wire.MsgTx) int64 {
	var in, out int64
	for i := range tx.TxIn {
		if o := b.outputs[tx.TxIn[i].PreviousOutPoint]; o != nil {
			in += o.Value
		}
	}
	for i := range tx.TxOut {
		out += tx.TxOut[i].Value
	}
	if in < out {
		return 0
	}
	return in - out
}

// AddWitnessCommitment gives the coinbase a 32-byte zero witness nonce and
// a commitment output to the block's witness root (the commitment is
// added even without witness data, as Core's miner does).
func AddWitnessCommitment(blk *wire.MsgBlock) {
	cb := blk.Transactions[0]
	cb.TxIn[0].Witness = [][]byte{make([]byte, 32)}
	blk.ClearHashCache()
	root := blk.WitnessMerkleRoot()
	var buf [64]byte
	copy(buf[:32], root[:])
	c := wire.DoubleHashH(buf[:])
	pk := append([]byte{0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed}, c[:]...)
	cb.TxOut = append(cb.TxOut, wire.TxOut{Value: 0, PkScript: pk})
	blk.ClearHashCache()
}

// Solve grinds the nonce until the header meets its target.
func Solve(h *wire.BlockHeader, powLimit *big.Int) {
	target := chaincfg.CompactToBig(h.Bits)
	for nonce := uint32(0); ; nonce++ {
		h.Nonce = nonce
		hash := h.BlockHash()
		var be [32]byte
		for i := range be {
			be[i] = hash[31-i]
		}
		if new(big.Int).SetBytes(be[:]).Cmp(target) <= 0 {
			return
		}
		if nonce == ^uint32(0) {
			h.Timestamp++
		}
	}
}

// MineCoinbases extends the tip with n blocks holding only coinbases.
func (b *Builder) MineCoinbases(n int) []*Entry {
	out := make([]*Entry, n)
	for i := range out {
		out[i] = b.NextBlock(nil, nil, nil)
	}
	return out
}

// MatureCoinbases returns the coinbase outputs of the chain ending at tip
// that may be spent in a block on tip, oldest first.
func (b *Builder) MatureCoinbases(tip *Entry) []*Output {
	var out []*Output
	for e := tip; e != nil && e.Parent != nil; e = e.Parent {
		if tip.Height+1-e.Height < b.Params.CoinbaseMaturity {
			continue
		}
		cb := e.Block.Transactions[0]
		op := wire.OutPoint{Hash: cb.TxHash(), Index: 0}
		out = append(out, b.outputs[op])
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// Spend builds and signs a transaction spending ins (outputs the builder
// created) to outs. With outs nil it pays everything minus fee to one
// P2WPKH output.
func (b *Builder) Spend(ins []*Output, outs []wire.TxOut, fee int64) *wire.MsgTx {
	tx := &wire.MsgTx{Version: 2}
	var total int64
	for _, in := range ins {
		tx.TxIn = append(tx.TxIn, wire.TxIn{PreviousOutPoint: in.OutPoint, Sequence: wire.MaxTxInSequenceNum})
		total += in.Value
	}
	if outs == nil {
		outs = []wire.TxOut{{Value: total - fee, PkScript: b.Script(P2WPKH)}}
	}
	tx.TxOut = outs
	if err := b.Sign(tx); err != nil {
		panic(err)
	}
	return tx
}

// Sign fills the scriptSig or witness of every input of tx that spends a
// known output, with SIGHASH_ALL (taproot: SIGHASH_DEFAULT).
func (b *Builder) Sign(tx *wire.MsgTx) error {
	prevs := make([]wire.TxOut, len(tx.TxIn))
	for i := range tx.TxIn {
		o := b.outputs[tx.TxIn[i].PreviousOutPoint]
		if o == nil {
			return fmt.Errorf("chaintest: unknown output %v", tx.TxIn[i].PreviousOutPoint)
		}
		prevs[i] = wire.TxOut{Value: o.Value, PkScript: o.PkScript}
	}
	hashes := txscript.NewTxSigHashes(tx, prevs)
	for i := range tx.TxIn {
		o := b.outputs[tx.TxIn[i].PreviousOutPoint]
		in := &tx.TxIn[i]
		switch o.Kind {
		case OpTrue:
			in.SignatureScript, in.Witness = nil, nil
		case P2PKH:
			h := txscript.CalcSignatureHash(o.PkScript, 1, tx, i)
			sig := append(ecdsa.Sign(b.Key, h[:]).Serialize(), 1)
			s := append([]byte{byte(len(sig))}, sig...)
			s = append(s, byte(len(b.pubKey)))
			in.SignatureScript = append(s, b.pubKey...)
		case P2WPKH:
			h := txscript.CalcWitnessSigHash(b.Script(P2PKH), hashes, 1, i, o.Value)
			sig := append(ecdsa.Sign(b.Key, h[:]).Serialize(), 1)
			in.Witness = [][]byte{sig, b.pubKey}
		case P2TR:
			h, err := txscript.CalcTaprootSigHash(hashes, 0, i, &txscript.TaprootSigHashOpts{})
			if err != nil {
				return err
			}
			sig, err := schnorr.Sign(b.trTweaked, h[:])
			if err != nil {
				return err
			}
			in.Witness = [][]byte{sig.Serialize()}
		}
	}
	return nil
}

// Chain returns the entries from genesis's child to e, in order.
func Chain(e *Entry) []*Entry {
	var out []*Entry
	for ; e != nil && e.Parent != nil; e = e.Parent {
		out = append(out, e)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}
