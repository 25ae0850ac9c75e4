package wire

// The block and transaction messages reuse the two-pass decoders of
// block.go and tx.go; this file adds the Message methods.

// wantWitness reports whether enc serializes witness data.
func wantWitness(enc MessageEncoding) bool { return enc&WitnessEncoding != 0 }

var errWitnessInBase = messageError(ErrMalformed, "witness data in a message without witness encoding")

// Command returns "tx".
func (tx *MsgTx) Command() string { return CmdTx }

// BtcDecode decodes one transaction filling the whole payload. Without
// WitnessEncoding a BIP144 (witness) serialization is an error.
func (tx *MsgTx) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	var t MsgTx
	n, err := t.Decode(p)
	if err != nil {
		return err
	}
	if n != len(p) {
		return messageError(ErrTrailingData, "%d bytes after the transaction", len(p)-n)
	}
	if !wantWitness(enc) && t.HasWitness() {
		return errWitnessInBase
	}
	*tx = t
	return nil
}

// BtcEncode appends the transaction, with witness data only under
// WitnessEncoding.
func (tx *MsgTx) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	return tx.AppendTo(dst, wantWitness(enc)), nil
}

// MaxPayloadLength is the message size limit; only the block size bounds a
// transaction.
func (tx *MsgTx) MaxPayloadLength(pver uint32) uint32 { return MaxProtocolMessageLength }

func (tx *MsgTx) payloadSize(enc MessageEncoding) int {
	if wantWitness(enc) {
		return tx.SerializeSize()
	}
	return tx.SerializeSizeStripped()
}

// Command returns "block".
func (b *MsgBlock) Command() string { return CmdBlock }

// BtcDecode decodes a block filling the whole payload. Without
// WitnessEncoding any witness data is an error.
func (b *MsgBlock) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	var blk MsgBlock
	n, err := blk.Decode(p)
	if err != nil {
		return err
	}
	if n != len(p) {
		return messageError(ErrTrailingData, "%d bytes after the block", len(p)-n)
	}
	if !wantWitness(enc) {
		for _, tx := range blk.Transactions {
			if tx.HasWitness() {
				return errWitnessInBase
			}
		}
	}
	*b = blk
	return nil
}

// BtcEncode appends the block, with witness data only under
// WitnessEncoding.
func (b *MsgBlock) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	return b.AppendTo(dst, wantWitness(enc)), nil
}

// MaxPayloadLength is MaxBlockSerializedSize.
func (b *MsgBlock) MaxPayloadLength(pver uint32) uint32 { return MaxBlockSerializedSize }

func (b *MsgBlock) payloadSize(enc MessageEncoding) int {
	if wantWitness(enc) {
		return b.SerializeSize()
	}
	return b.SerializeSizeStripped()
}

// decodeTxSeq decodes n transactions from r in two passes, as a block
// does: the first validates and counts, the second fills one set of
// backing arrays for all of them. pre, if not nil, reads the data in front
// of each transaction (it runs in both passes; fill is set in the second).
func decodeTxSeq(r *reader, n int, pre func(r *reader, i int, fill bool)) []MsgTx {
	start := r.off
	a := txArena{counting: true}
	var sp txSpan
	for i := 0; i < n && r.err == nil; i++ {
		if pre != nil {
			pre(r, i, false)
		}
		if r.err == nil {
			decodeTx(r, nil, &a, &sp)
		}
	}
	if r.err != nil {
		return nil
	}
	a.alloc(a.nIn, a.nOut)
	a.counting = false
	txs := make([]MsgTx, n)
	r2 := newReader(r.b[:r.off])
	r2.off = start
	for i := range txs {
		if pre != nil {
			pre(&r2, i, true)
		}
		decodeTx(&r2, &txs[i], &a, &sp)
	}
	if r2.err != nil {
		r.fail(r2.err)
		return nil
	}
	return txs
}

func txPointers(txs []MsgTx) []*MsgTx {
	if len(txs) == 0 {
		return nil
	}
	ptrs := make([]*MsgTx, len(txs))
	for i := range txs {
		ptrs[i] = &txs[i]
	}
	return ptrs
}
