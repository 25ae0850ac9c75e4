package wire

import (
	"encoding/binary"
	"math"
)

// Transaction size facts used to bound counts before allocating.
const (
	// MinTxInSize is the smallest serialized input: outpoint, empty script
	// length, sequence.
	MinTxInSize = 32 + 4 + 1 + 4
	// MinTxOutSize is the smallest serialized output: value and empty
	// script length.
	MinTxOutSize = 8 + 1
	// MinTxSize is the smallest serialized transaction: version, two empty
	// counts, lock time.
	MinTxSize = 4 + 1 + 1 + 4

	// MaxPrevOutIndex is the index of a coinbase input's null outpoint.
	MaxPrevOutIndex = math.MaxUint32
	// MaxTxInSequenceNum is the final sequence number.
	MaxTxInSequenceNum = math.MaxUint32

	// SequenceLockTimeDisabled, SequenceLockTimeIsSeconds, SequenceLockTimeMask
	// and SequenceLockTimeGranularity are the BIP68 fields of a sequence.
	SequenceLockTimeDisabled    = 1 << 31
	SequenceLockTimeIsSeconds   = 1 << 22
	SequenceLockTimeMask        = 0x0000ffff
	SequenceLockTimeGranularity = 9

	witnessMarker = 0x00
	witnessFlag   = 0x01
)

// OutPoint names a transaction output: the transaction's txid and the
// output's index.
type OutPoint struct {
	Hash  Hash
	Index uint32
}

// String returns "txid:index".
func (o OutPoint) String() string {
	return o.Hash.String() + ":" + uitoa(o.Index)
}

func uitoa(v uint32) string {
	var b [10]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			return string(b[i:])
		}
	}
}

// TxIn is a transaction input. Witness holds the BIP141 witness stack.
type TxIn struct {
	PreviousOutPoint OutPoint
	SignatureScript  []byte
	Witness          [][]byte
	Sequence         uint32
}

// TxOut is a transaction output.
type TxOut struct {
	Value    int64
	PkScript []byte
}

// SerializeSize returns the serialized size of the output.
func (o *TxOut) SerializeSize() int {
	return 8 + VarIntSerializeSize(uint64(len(o.PkScript))) + len(o.PkScript)
}

// MsgTx is a Bitcoin transaction. Inputs and outputs are held by value; a
// decoded transaction's scripts and witness items all slice one buffer.
// Version is unsigned because BIP68 compares it as unsigned (a signed
// comparison was CVE-2024-34478 in btcd).
type MsgTx struct {
	Version  uint32
	TxIn     []TxIn
	TxOut    []TxOut
	LockTime uint32
}

// IsCoinBase reports whether tx has the single null-outpoint input of a
// coinbase transaction.
func (tx *MsgTx) IsCoinBase() bool {
	if len(tx.TxIn) != 1 {
		return false
	}
	op := &tx.TxIn[0].PreviousOutPoint
	return op.Index == MaxPrevOutIndex && op.Hash == (Hash{})
}

// HasWitness reports whether any input carries witness data.
func (tx *MsgTx) HasWitness() bool {
	for i := range tx.TxIn {
		if len(tx.TxIn[i].Witness) != 0 {
			return true
		}
	}
	return false
}

// SerializeSizeStripped returns the size without witness data (the size
// that determines the txid).
func (tx *MsgTx) SerializeSizeStripped() int {
	n := 8 + VarIntSerializeSize(uint64(len(tx.TxIn))) + VarIntSerializeSize(uint64(len(tx.TxOut)))
	for i := range tx.TxIn {
		l := len(tx.TxIn[i].SignatureScript)
		n += 40 + VarIntSerializeSize(uint64(l)) + l
	}
	for i := range tx.TxOut {
		n += tx.TxOut[i].SerializeSize()
	}
	return n
}

// SerializeSize returns the size with witness data when there is any.
func (tx *MsgTx) SerializeSize() int {
	n := tx.SerializeSizeStripped()
	if !tx.HasWitness() {
		return n
	}
	n += 2
	for i := range tx.TxIn {
		w := tx.TxIn[i].Witness
		n += VarIntSerializeSize(uint64(len(w)))
		for _, item := range w {
			n += VarIntSerializeSize(uint64(len(item))) + len(item)
		}
	}
	return n
}

// Weight returns the BIP141 weight: stripped size times three plus the
// total size.
func (tx *MsgTx) Weight() int64 {
	return int64(tx.SerializeSizeStripped())*(WitnessScaleFactor-1) + int64(tx.SerializeSize())
}

// VirtualSize returns the weight divided by four, rounded up.
func (tx *MsgTx) VirtualSize() int64 {
	return (tx.Weight() + WitnessScaleFactor - 1) / WitnessScaleFactor
}

// AppendTo appends the serialization of tx to dst. With witness set and
// witness data present it uses the BIP144 form (marker, flag, witnesses).
func (tx *MsgTx) AppendTo(dst []byte, witness bool) []byte {
	withWit := witness && tx.HasWitness()
	dst = binary.LittleEndian.AppendUint32(dst, tx.Version)
	if withWit {
		dst = append(dst, witnessMarker, witnessFlag)
	}
	dst = AppendVarInt(dst, uint64(len(tx.TxIn)))
	for i := range tx.TxIn {
		in := &tx.TxIn[i]
		dst = append(dst, in.PreviousOutPoint.Hash[:]...)
		dst = binary.LittleEndian.AppendUint32(dst, in.PreviousOutPoint.Index)
		dst = AppendVarBytes(dst, in.SignatureScript)
		dst = binary.LittleEndian.AppendUint32(dst, in.Sequence)
	}
	dst = AppendVarInt(dst, uint64(len(tx.TxOut)))
	for i := range tx.TxOut {
		out := &tx.TxOut[i]
		dst = binary.LittleEndian.AppendUint64(dst, uint64(out.Value))
		dst = AppendVarBytes(dst, out.PkScript)
	}
	if withWit {
		for i := range tx.TxIn {
			w := tx.TxIn[i].Witness
			dst = AppendVarInt(dst, uint64(len(w)))
			for _, item := range w {
				dst = AppendVarBytes(dst, item)
			}
		}
	}
	return binary.LittleEndian.AppendUint32(dst, tx.LockTime)
}

// Bytes returns the serialization of tx with witness data.
func (tx *MsgTx) Bytes() []byte {
	return tx.AppendTo(make([]byte, 0, tx.SerializeSize()), true)
}

// TxHash returns the txid: sha256d of the serialization without witness.
// It serializes into a pooled buffer and does not allocate.
func (tx *MsgTx) TxHash() Hash {
	return tx.hash(false)
}

// WitnessHash returns the wtxid: sha256d of the full serialization. It
// equals the txid for a transaction without witness data.
func (tx *MsgTx) WitnessHash() Hash {
	return tx.hash(true)
}

func (tx *MsgTx) hash(witness bool) Hash {
	size := tx.SerializeSizeStripped()
	if witness {
		size = tx.SerializeSize()
	}
	bp := GetBuffer(size)
	b := tx.AppendTo((*bp)[:0], witness)
	h := DoubleHashH(b)
	*bp = b
	PutBuffer(bp)
	return h
}

// Copy returns a deep copy of tx whose scripts and witness items share one
// new buffer, independent of tx's (for example of a decoded block that is
// about to be released).
func (tx *MsgTx) Copy() *MsgTx {
	var a txArena
	for i := range tx.TxIn {
		a.nScript += len(tx.TxIn[i].SignatureScript)
		a.nWit += len(tx.TxIn[i].Witness)
		for _, w := range tx.TxIn[i].Witness {
			a.nScript += len(w)
		}
	}
	for i := range tx.TxOut {
		a.nScript += len(tx.TxOut[i].PkScript)
	}
	a.alloc(len(tx.TxIn), len(tx.TxOut))
	c := &MsgTx{Version: tx.Version, LockTime: tx.LockTime, TxIn: a.ins, TxOut: a.outs}
	for i := range tx.TxIn {
		src, dst := &tx.TxIn[i], &c.TxIn[i]
		dst.PreviousOutPoint = src.PreviousOutPoint
		dst.Sequence = src.Sequence
		dst.SignatureScript = a.copyBytes(src.SignatureScript)
		if k := len(src.Witness); k > 0 {
			dst.Witness = a.wits[:k:k]
			a.wits = a.wits[k:]
			for j, item := range src.Witness {
				dst.Witness[j] = a.copyBytes(item)
			}
		}
	}
	for i := range tx.TxOut {
		c.TxOut[i].Value = tx.TxOut[i].Value
		c.TxOut[i].PkScript = a.copyBytes(tx.TxOut[i].PkScript)
	}
	return c
}

// Decode decodes one transaction (BIP144 form accepted) from the front of b
// and returns the number of bytes it used. All scripts and witness items are
// copied into a single new buffer; b is not retained.
func (tx *MsgTx) Decode(b []byte) (int, error) {
	r := newReader(b)
	var a txArena
	a.counting = true
	var sp txSpan
	decodeTx(&r, nil, &a, &sp)
	if r.err != nil {
		return 0, r.err
	}
	a.alloc(a.nIn, a.nOut)
	r = newReader(b[:sp.end])
	a.counting = false
	decodeTx(&r, tx, &a, &sp)
	return sp.end, r.err
}

// txArena holds the backing arrays that decoded transactions slice into.
// In counting mode the decoder only tallies what it would need.
type txArena struct {
	counting bool
	nIn      int
	nOut     int
	nWit     int
	nScript  int

	ins     []TxIn
	outs    []TxOut
	wits    [][]byte
	scripts []byte
}

func (a *txArena) alloc(nIn, nOut int) {
	a.ins = make([]TxIn, nIn)
	a.outs = make([]TxOut, nOut)
	if a.nWit > 0 {
		a.wits = make([][]byte, a.nWit)
	}
	if a.nScript > 0 {
		a.scripts = make([]byte, a.nScript)
	}
}

// copyBytes copies src into the arena. Each result has its capacity capped
// so an append by a caller cannot overwrite its neighbour.
func (a *txArena) copyBytes(src []byte) []byte {
	n := len(src)
	if n == 0 {
		return nil
	}
	dst := a.scripts[:n:n]
	copy(dst, src)
	a.scripts = a.scripts[n:]
	return dst
}

// txSpan records where a decoded transaction's parts lie in the input, so
// its txid can be hashed from the original bytes without re-serializing.
type txSpan struct {
	start     int  // version
	body      int  // input count (after marker and flag)
	bodyEnd   int  // end of the outputs
	lockStart int  // lock time
	end       int  // end of the transaction
	witness   bool // BIP144 form
}

// txid hashes the transaction at sp within b.
func (sp *txSpan) txid(b []byte) Hash {
	if !sp.witness {
		return DoubleHashH(b[sp.start:sp.end])
	}
	return doubleHashPieces(b[sp.start:sp.start+4], b[sp.body:sp.bodyEnd], b[sp.lockStart:sp.end])
}

// decodeTx reads one transaction following Bitcoin Core's rules: an empty
// input list followed by a non-zero flag byte introduces the BIP144 form;
// the only defined flag is 1; a witness form whose witnesses are all empty
// is rejected ("superfluous witness record").
func decodeTx(r *reader, tx *MsgTx, a *txArena, sp *txSpan) {
	fill := !a.counting
	sp.start = r.off
	version := r.u32()
	sp.body = r.off
	nIn := r.count("transaction input count", math.MaxInt32, MinTxInSize)
	var flag uint8
	readOuts := true
	if nIn == 0 && r.err == nil {
		flag = r.u8()
		if flag != 0 {
			if flag != witnessFlag {
				r.fail(messageError(ErrMalformed, "unknown transaction optional data flag %#x", flag))
				return
			}
			sp.body = r.off
			nIn = r.count("transaction input count", math.MaxInt32, MinTxInSize)
		} else {
			// Bitcoin Core reads no output list after an empty input list
			// with a zero flag byte.
			readOuts = false
		}
	}
	if r.err != nil {
		return
	}
	sp.witness = flag == witnessFlag

	var ins []TxIn
	if fill {
		ins = a.ins[:nIn:nIn]
		a.ins = a.ins[nIn:]
		tx.Version = version
		tx.TxIn = ins
	} else {
		a.nIn += nIn
	}
	for i := 0; i < nIn && r.err == nil; i++ {
		h := r.hash()
		idx := r.u32()
		script := r.bytes(r.count("signature script length", math.MaxInt32, 1))
		seq := r.u32()
		if !fill {
			a.nScript += len(script)
			continue
		}
		in := &ins[i]
		in.PreviousOutPoint = OutPoint{Hash: h, Index: idx}
		in.SignatureScript = a.copyBytes(script)
		in.Witness = nil
		in.Sequence = seq
	}
	nOut := 0
	if readOuts {
		nOut = r.count("transaction output count", math.MaxInt32, MinTxOutSize)
	}
	if r.err != nil {
		return
	}
	var outs []TxOut
	if fill {
		outs = a.outs[:nOut:nOut]
		a.outs = a.outs[nOut:]
		tx.TxOut = outs
	} else {
		a.nOut += nOut
	}
	for i := 0; i < nOut && r.err == nil; i++ {
		value := r.u64()
		script := r.bytes(r.count("public key script length", math.MaxInt32, 1))
		if !fill {
			a.nScript += len(script)
			continue
		}
		outs[i] = TxOut{Value: int64(value), PkScript: a.copyBytes(script)}
	}
	sp.bodyEnd = r.off
	if sp.witness {
		any := false
		for i := 0; i < nIn && r.err == nil; i++ {
			k := r.count("witness item count", math.MaxInt32, 1)
			if k > 0 {
				any = true
			}
			var w [][]byte
			if !fill {
				a.nWit += k
			} else if k > 0 {
				w = a.wits[:k:k]
				a.wits = a.wits[k:]
				ins[i].Witness = w
			}
			for j := 0; j < k && r.err == nil; j++ {
				item := r.bytes(r.count("witness item length", math.MaxInt32, 1))
				if !fill {
					a.nScript += len(item)
					continue
				}
				w[j] = a.copyBytes(item)
			}
		}
		if !any && r.err == nil {
			r.fail(messageError(ErrMalformed, "superfluous witness record"))
			return
		}
	}
	sp.lockStart = r.off
	lock := r.u32()
	sp.end = r.off
	if fill && r.err == nil {
		tx.LockTime = lock
	}
}
