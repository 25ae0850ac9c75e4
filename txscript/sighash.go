package txscript

import (
	"crypto/sha256"
	"sync"
	"sync/atomic"

	"github.com/btcnode/btcd/wire"
)

// TxSigHashes holds the per-transaction midstates of the BIP143 and BIP341
// signature hashes. Each group is computed on first use and then shared by
// all inputs (safe for concurrent use by several verifying goroutines).
type TxSigHashes struct {
	tx       *wire.MsgTx
	prevOuts []wire.TxOut

	mu     sync.Mutex
	v0Done atomic.Bool
	// Single SHA-256 (BIP341) and double SHA-256 (BIP143) forms.
	shaPrevouts, shaSequences, shaOutputs   [32]byte
	hashPrevouts, hashSequence, hashOutputs [32]byte

	trDone        atomic.Bool
	trOK          bool
	shaAmounts    [32]byte
	shaScriptKeys [32]byte
}

// NewTxSigHashes prepares signature-hash midstates for tx. prevOuts must be
// the outputs spent by tx's inputs in input order; it may be nil when no
// input is a taproot spend (taproot hashes commit to every spent output).
func NewTxSigHashes(tx *wire.MsgTx, prevOuts []wire.TxOut) *TxSigHashes {
	h := new(TxSigHashes)
	h.Init(tx, prevOuts)
	return h
}

// Init (re)initialises h for tx so that a caller can reuse the struct.
// It must not be called while another goroutine uses h.
func (h *TxSigHashes) Init(tx *wire.MsgTx, prevOuts []wire.TxOut) {
	h.tx, h.prevOuts = tx, prevOuts
	h.v0Done.Store(false)
	h.trDone.Store(false)
	h.trOK = false
}

func (h *TxSigHashes) computeV0() {
	tx := h.tx
	w := hashWriterPool.Get().(*hashWriter)
	defer hashWriterPool.Put(w)
	w.reset()
	for i := range tx.TxIn {
		op := &tx.TxIn[i].PreviousOutPoint
		w.write(op.Hash[:])
		w.u32(op.Index)
	}
	w.sum(&h.shaPrevouts)
	w.reset()
	for i := range tx.TxIn {
		w.u32(tx.TxIn[i].Sequence)
	}
	w.sum(&h.shaSequences)
	w.reset()
	for i := range tx.TxOut {
		writeTxOut(w, &tx.TxOut[i])
	}
	w.sum(&h.shaOutputs)
	h.hashPrevouts = sha256.Sum256(h.shaPrevouts[:])
	h.hashSequence = sha256.Sum256(h.shaSequences[:])
	h.hashOutputs = sha256.Sum256(h.shaOutputs[:])
}

func (h *TxSigHashes) computeTaproot() {
	if len(h.prevOuts) != len(h.tx.TxIn) {
		return
	}
	w := hashWriterPool.Get().(*hashWriter)
	defer hashWriterPool.Put(w)
	w.reset()
	for i := range h.prevOuts {
		w.u64(uint64(h.prevOuts[i].Value))
	}
	w.sum(&h.shaAmounts)
	w.reset()
	for i := range h.prevOuts {
		w.varBytes(h.prevOuts[i].PkScript)
	}
	w.sum(&h.shaScriptKeys)
	h.trOK = true
}

// v0 makes sure the BIP143/BIP341 common midstates exist. A flag check
// rather than sync.Once.Do(h.computeV0) keeps the hot path free of the
// method-value allocation.
func (h *TxSigHashes) v0() {
	if h.v0Done.Load() {
		return
	}
	h.mu.Lock()
	if !h.v0Done.Load() {
		h.computeV0()
		h.v0Done.Store(true)
	}
	h.mu.Unlock()
}

// taproot makes sure the BIP341-only midstates exist and reports whether
// the spent outputs were available to compute them.
func (h *TxSigHashes) taproot() bool {
	if !h.trDone.Load() {
		h.mu.Lock()
		if !h.trDone.Load() {
			h.computeTaproot()
			h.trDone.Store(true)
		}
		h.mu.Unlock()
	}
	return h.trOK
}

func writeTxOut(w *hashWriter, o *wire.TxOut) {
	w.u64(uint64(o.Value))
	w.varBytes(o.PkScript)
}

// writeScriptCode serializes a legacy scriptCode with every
// OP_CODESEPARATOR removed, as Core's CTransactionSignatureSerializer does
// (an unparsable tail is written unchanged).
func writeScriptCode(w *hashWriter, script []byte) {
	t := scriptTokenizer{script: script}
	seps := 0
	for t.next() {
		if t.op == OP_CODESEPARATOR {
			seps++
		}
	}
	w.varInt(uint64(len(script) - seps))
	if seps == 0 {
		w.write(script)
		return
	}
	t = scriptTokenizer{script: script}
	start := 0
	for t.next() {
		if t.op == OP_CODESEPARATOR {
			w.write(script[start : t.pos-1])
			start = t.pos
		}
	}
	w.write(script[start:])
}

// legacySigHash computes the pre-segwit signature hash. scriptCode must
// already have had FindAndDelete applied. It reproduces Core's quirks: an
// out-of-range input or SIGHASH_SINGLE without a matching output hash to
// the number one.
func legacySigHash(w *hashWriter, scriptCode []byte, tx *wire.MsgTx, idx int, hashType uint32, out *[32]byte) {
	base := hashType & 0x1f
	if idx >= len(tx.TxIn) || (base == uint32(SigHashSingle) && idx >= len(tx.TxOut)) {
		*out = [32]byte{1}
		return
	}
	anyone := hashType&uint32(SigHashAnyOneCanPay) != 0
	w.reset()
	w.u32(tx.Version)
	if anyone {
		w.varInt(1)
	} else {
		w.varInt(uint64(len(tx.TxIn)))
	}
	for i := range tx.TxIn {
		if anyone && i != idx {
			continue
		}
		in := &tx.TxIn[i]
		w.write(in.PreviousOutPoint.Hash[:])
		w.u32(in.PreviousOutPoint.Index)
		if i == idx {
			writeScriptCode(w, scriptCode)
		} else {
			w.varInt(0)
		}
		if i != idx && (base == uint32(SigHashSingle) || base == uint32(SigHashNone)) {
			w.u32(0)
		} else {
			w.u32(in.Sequence)
		}
	}
	switch base {
	case uint32(SigHashNone):
		w.varInt(0)
	case uint32(SigHashSingle):
		w.varInt(uint64(idx + 1))
		for i := 0; i < idx; i++ {
			w.u64(^uint64(0)) // value -1
			w.varInt(0)
		}
		writeTxOut(w, &tx.TxOut[idx])
	default:
		w.varInt(uint64(len(tx.TxOut)))
		for i := range tx.TxOut {
			writeTxOut(w, &tx.TxOut[i])
		}
	}
	w.u32(tx.LockTime)
	w.u32(hashType)
	w.sumDouble(out)
}

// CalcSignatureHash returns the legacy signature hash of input idx for
// script (OP_CODESEPARATORs are removed; no FindAndDelete is applied).
func CalcSignatureHash(script []byte, hashType uint32, tx *wire.MsgTx, idx int) [32]byte {
	var out [32]byte
	legacySigHash(newHashWriter(), script, tx, idx, hashType, &out)
	return out
}

// witnessV0SigHash computes the BIP143 signature hash.
func witnessV0SigHash(w *hashWriter, scriptCode []byte, h *TxSigHashes, idx int, amount int64, hashType uint32, out *[32]byte) {
	tx := h.tx
	h.v0()
	base := hashType & 0x1f
	anyone := hashType&uint32(SigHashAnyOneCanPay) != 0
	w.reset()
	w.u32(tx.Version)
	if anyone {
		w.write(zeroHash[:])
	} else {
		w.write(h.hashPrevouts[:])
	}
	if !anyone && base != uint32(SigHashSingle) && base != uint32(SigHashNone) {
		w.write(h.hashSequence[:])
	} else {
		w.write(zeroHash[:])
	}
	in := &tx.TxIn[idx]
	w.write(in.PreviousOutPoint.Hash[:])
	w.u32(in.PreviousOutPoint.Index)
	w.varBytes(scriptCode)
	w.u64(uint64(amount))
	w.u32(in.Sequence)
	switch {
	case base != uint32(SigHashSingle) && base != uint32(SigHashNone):
		w.write(h.hashOutputs[:])
	case base == uint32(SigHashSingle) && idx < len(tx.TxOut):
		w.writeOutputHash(&tx.TxOut[idx], true)
	default:
		w.write(zeroHash[:])
	}
	w.u32(tx.LockTime)
	w.u32(hashType)
	w.sumDouble(out)
}

var zeroHash [32]byte

// writeOutputHash writes the (double) SHA-256 of one serialized output,
// hashed in a pooled writer so no result array escapes.
func (w *hashWriter) writeOutputHash(o *wire.TxOut, double bool) {
	w2 := hashWriterPool.Get().(*hashWriter)
	w2.reset()
	writeTxOut(w2, o)
	w2.flush()
	w2.h.Sum(w2.out[:0])
	if double {
		w2.out = sha256.Sum256(w2.out[:])
	}
	w.write(w2.out[:])
	hashWriterPool.Put(w2)
}

var hashWriterPool = sync.Pool{New: func() any { return newHashWriter() }}

// CalcWitnessSigHash returns the BIP143 signature hash of input idx.
func CalcWitnessSigHash(scriptCode []byte, h *TxSigHashes, hashType uint32, idx int, amount int64) [32]byte {
	var out [32]byte
	w := hashWriterPool.Get().(*hashWriter)
	witnessV0SigHash(w, scriptCode, h, idx, amount, hashType, &out)
	hashWriterPool.Put(w)
	return out
}

// TaprootSigHashOpts carries the script-path parts of a BIP341/342 hash.
type TaprootSigHashOpts struct {
	AnnexHash  *[32]byte // sha256(compact_size(annex) || annex), nil if absent
	LeafHash   *[32]byte // tapleaf hash for script path spends, nil for key path
	CodeSepPos uint32    // position of the last executed OP_CODESEPARATOR
}

// taprootSigHash computes the BIP341 signature hash (with the BIP342
// extension when opts.LeafHash is set). It fails, as Core's
// SignatureHashSchnorr does, for an undefined hash type or SIGHASH_SINGLE
// without a matching output.
func taprootSigHash(w *hashWriter, h *TxSigHashes, idx int, hashType byte, opts *TaprootSigHashOpts, out *[32]byte) error {
	if !(hashType <= 0x03 || (hashType >= 0x81 && hashType <= 0x83)) {
		return ErrSchnorrSigHashType
	}
	h.v0()
	if !h.taproot() {
		return ErrMissingPrevOuts
	}
	tx := h.tx
	outType := hashType & 3
	if hashType == byte(SigHashDefault) {
		outType = byte(SigHashAll)
	}
	anyone := hashType&0x80 != 0
	if outType == byte(SigHashSingle) && idx >= len(tx.TxOut) {
		return ErrSchnorrSigHashType
	}
	w.startTagged(tagTapSighash)
	w.u8(0) // epoch
	w.u8(hashType)
	w.u32(tx.Version)
	w.u32(tx.LockTime)
	if !anyone {
		w.write(h.shaPrevouts[:])
		w.write(h.shaAmounts[:])
		w.write(h.shaScriptKeys[:])
		w.write(h.shaSequences[:])
	}
	if outType == byte(SigHashAll) {
		w.write(h.shaOutputs[:])
	}
	var spendType byte
	if opts.LeafHash != nil {
		spendType = 2
	}
	if opts.AnnexHash != nil {
		spendType |= 1
	}
	w.u8(spendType)
	if anyone {
		in := &tx.TxIn[idx]
		w.write(in.PreviousOutPoint.Hash[:])
		w.u32(in.PreviousOutPoint.Index)
		writeTxOut(w, &h.prevOuts[idx])
		w.u32(in.Sequence)
	} else {
		w.u32(uint32(idx))
	}
	if opts.AnnexHash != nil {
		w.write(opts.AnnexHash[:])
	}
	if outType == byte(SigHashSingle) {
		w.writeOutputHash(&tx.TxOut[idx], false)
	}
	if opts.LeafHash != nil {
		w.write(opts.LeafHash[:])
		w.u8(0) // key_version
		w.u32(opts.CodeSepPos)
	}
	w.sum(out)
	return nil
}

// CalcTaprootSigHash returns the BIP341 signature hash of input idx; opts
// may be nil for a key path spend without annex.
func CalcTaprootSigHash(h *TxSigHashes, hashType byte, idx int, opts *TaprootSigHashOpts) ([32]byte, error) {
	var out [32]byte
	if opts == nil {
		opts = &TaprootSigHashOpts{CodeSepPos: 0xffffffff}
	}
	w := hashWriterPool.Get().(*hashWriter)
	err := taprootSigHash(w, h, idx, hashType, opts, &out)
	hashWriterPool.Put(w)
	return out, err
}
