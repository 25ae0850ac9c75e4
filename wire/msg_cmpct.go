package wire

import (
	"encoding/binary"
	"math"
)

// Compact block (BIP152) facts.
const (
	// ShortTxIDSize is the size of a short transaction id on the wire.
	ShortTxIDSize = 6
	// MaxCmpctBlockTxs bounds short ids plus prefilled transactions, and
	// every transaction index, to 16 bits as Bitcoin Core does.
	MaxCmpctBlockTxs = math.MaxUint16
)

// PrefilledTx is a transaction sent in full inside a compact block, with
// its absolute index in the block (differentially encoded on the wire).
type PrefilledTx struct {
	Index uint32
	Tx    *MsgTx
}

// MsgCmpctBlock is a BIP152 compact block: the header, a nonce keying the
// short ids, the 48-bit short ids of the transactions the receiver is
// expected to have, and the transactions sent in full.
type MsgCmpctBlock struct {
	Header       BlockHeader
	Nonce        uint64
	ShortIDs     []uint64
	PrefilledTxs []PrefilledTx
}

// Command returns "cmpctblock".
func (m *MsgCmpctBlock) Command() string { return CmdCmpctBlock }

// SipHashKeys returns the key of the block's short ids.
func (m *MsgCmpctBlock) SipHashKeys() (k0, k1 uint64) { return ShortTxIDKeys(&m.Header, m.Nonce) }

// BlockTxCount is the number of transactions of the block.
func (m *MsgCmpctBlock) BlockTxCount() int { return len(m.ShortIDs) + len(m.PrefilledTxs) }

// readDiffIndex reads a differentially encoded index following prev (-1
// before the first) and checks it fits 16 bits.
func readDiffIndex(r *reader, prev int64) int64 {
	d := r.varint()
	if r.err != nil {
		return 0
	}
	if d > MaxCmpctBlockTxs || prev+1+int64(d) > MaxCmpctBlockTxs {
		r.fail(limitError("differential transaction index (16 bits)", uint64(prev+1)+d, MaxCmpctBlockTxs))
		return 0
	}
	return prev + 1 + int64(d)
}

// BtcDecode reads a compact block. Prefilled transactions are decoded into
// one set of backing arrays.
func (m *MsgCmpctBlock) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	r := newReader(p)
	var c MsgCmpctBlock
	c.Header.decode(&r)
	c.Nonce = r.u64()
	ns := r.count("short id count (16-bit indexes)", MaxCmpctBlockTxs, ShortTxIDSize)
	if r.err != nil {
		return r.err
	}
	if ns > 0 {
		c.ShortIDs = make([]uint64, ns)
		for i := range c.ShortIDs {
			b := r.bytes(ShortTxIDSize)
			c.ShortIDs[i] = uint64(binary.LittleEndian.Uint32(b)) | uint64(binary.LittleEndian.Uint16(b[4:]))<<32
		}
	}
	np := r.count("prefilled transaction count", MaxCmpctBlockTxs, 1+MinTxSize)
	if r.err != nil {
		return r.err
	}
	if ns+np > MaxCmpctBlockTxs {
		return limitError("compact block transaction count (16-bit indexes)", uint64(ns+np), MaxCmpctBlockTxs)
	}
	idx := make([]uint32, np)
	var prev int64
	txs := decodeTxSeq(&r, np, func(r *reader, i int, fill bool) {
		if i == 0 {
			prev = -1
		}
		prev = readDiffIndex(r, prev)
		idx[i] = uint32(prev)
	})
	if err := finish(&r); err != nil {
		return err
	}
	if !wantWitness(enc) {
		for i := range txs {
			if txs[i].HasWitness() {
				return errWitnessInBase
			}
		}
	}
	if np > 0 {
		c.PrefilledTxs = make([]PrefilledTx, np)
		for i := range c.PrefilledTxs {
			c.PrefilledTxs[i] = PrefilledTx{Index: idx[i], Tx: &txs[i]}
		}
	}
	*m = c
	return nil
}

// BtcEncode appends the compact block. Short ids must fit 48 bits and
// prefilled indexes must increase.
func (m *MsgCmpctBlock) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	if n := m.BlockTxCount(); n > MaxCmpctBlockTxs {
		return dst, limitError("compact block transaction count (16-bit indexes)", uint64(n), MaxCmpctBlockTxs)
	}
	dst = m.Header.AppendTo(dst)
	dst = binary.LittleEndian.AppendUint64(dst, m.Nonce)
	dst = AppendVarInt(dst, uint64(len(m.ShortIDs)))
	for _, id := range m.ShortIDs {
		if id > ShortTxIDMask {
			return dst, messageError(ErrMalformed, "short id %#x wider than 48 bits", id)
		}
		dst = binary.LittleEndian.AppendUint32(dst, uint32(id))
		dst = binary.LittleEndian.AppendUint16(dst, uint16(id>>32))
	}
	dst = AppendVarInt(dst, uint64(len(m.PrefilledTxs)))
	next := uint64(0)
	for _, pt := range m.PrefilledTxs {
		if uint64(pt.Index) < next || pt.Index > MaxCmpctBlockTxs {
			return dst, messageError(ErrMalformed, "prefilled index %d out of order or above 16 bits", pt.Index)
		}
		if pt.Tx == nil {
			return dst, messageError(ErrMalformed, "prefilled transaction %d is nil", pt.Index)
		}
		dst = AppendVarInt(dst, uint64(pt.Index)-next)
		next = uint64(pt.Index) + 1
		dst = pt.Tx.AppendTo(dst, wantWitness(enc))
	}
	return dst, nil
}

// MaxPayloadLength is the message size limit.
func (m *MsgCmpctBlock) MaxPayloadLength(pver uint32) uint32 { return MaxProtocolMessageLength }

func (m *MsgCmpctBlock) payloadSize(enc MessageEncoding) int {
	n := BlockHeaderSize + 8 + 9 + len(m.ShortIDs)*ShortTxIDSize + 9
	for _, pt := range m.PrefilledTxs {
		if pt.Tx != nil {
			n += 3 + pt.Tx.payloadSize(enc)
		}
	}
	return n
}

// MsgGetBlockTxn asks for the transactions of a block at the given
// absolute indexes (differentially encoded on the wire).
type MsgGetBlockTxn struct {
	BlockHash Hash
	Indexes   []uint32
}

// Command returns "getblocktxn".
func (m *MsgGetBlockTxn) Command() string { return CmdGetBlockTxn }

// BtcDecode reads the request. Indexes are 16-bit, as in Bitcoin Core, so
// at most 65,536 can be requested.
func (m *MsgGetBlockTxn) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	r := newReader(p)
	h := r.hash()
	n := r.count("getblocktxn index count (16-bit indexes)", MaxCmpctBlockTxs+1, 1)
	if r.err != nil {
		return r.err
	}
	var idx []uint32
	if n > 0 {
		idx = make([]uint32, n)
	}
	prev := int64(-1)
	for i := 0; i < n && r.err == nil; i++ {
		prev = readDiffIndex(&r, prev)
		idx[i] = uint32(prev)
	}
	if err := finish(&r); err != nil {
		return err
	}
	m.BlockHash, m.Indexes = h, idx
	return nil
}

// BtcEncode appends the request; indexes must increase and fit 16 bits.
func (m *MsgGetBlockTxn) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	dst = append(dst, m.BlockHash[:]...)
	dst = AppendVarInt(dst, uint64(len(m.Indexes)))
	next := uint64(0)
	for _, ix := range m.Indexes {
		if uint64(ix) < next || ix > MaxCmpctBlockTxs {
			return dst, messageError(ErrMalformed, "getblocktxn index %d out of order or above 16 bits", ix)
		}
		dst = AppendVarInt(dst, uint64(ix)-next)
		next = uint64(ix) + 1
	}
	return dst, nil
}

// MaxPayloadLength is the message size limit.
func (m *MsgGetBlockTxn) MaxPayloadLength(pver uint32) uint32 { return MaxProtocolMessageLength }

func (m *MsgGetBlockTxn) payloadSize(MessageEncoding) int { return HashSize + 9 + 3*len(m.Indexes) }

// MsgBlockTxn answers getblocktxn with the requested transactions.
type MsgBlockTxn struct {
	BlockHash    Hash
	Transactions []*MsgTx
}

// Command returns "blocktxn".
func (m *MsgBlockTxn) Command() string { return CmdBlockTxn }

// BtcDecode reads the transactions into one set of backing arrays; only
// the message size bounds their number.
func (m *MsgBlockTxn) BtcDecode(p []byte, pver uint32, enc MessageEncoding) error {
	r := newReader(p)
	h := r.hash()
	n := r.count("blocktxn transaction count", MaxTxPerBlock, MinTxSize)
	if r.err != nil {
		return r.err
	}
	txs := decodeTxSeq(&r, n, nil)
	if err := finish(&r); err != nil {
		return err
	}
	if !wantWitness(enc) {
		for i := range txs {
			if txs[i].HasWitness() {
				return errWitnessInBase
			}
		}
	}
	m.BlockHash, m.Transactions = h, txPointers(txs)
	return nil
}

// BtcEncode appends the transactions.
func (m *MsgBlockTxn) BtcEncode(dst []byte, pver uint32, enc MessageEncoding) ([]byte, error) {
	dst = append(dst, m.BlockHash[:]...)
	dst = AppendVarInt(dst, uint64(len(m.Transactions)))
	for _, tx := range m.Transactions {
		dst = tx.AppendTo(dst, wantWitness(enc))
	}
	return dst, nil
}

// MaxPayloadLength is the message size limit.
func (m *MsgBlockTxn) MaxPayloadLength(pver uint32) uint32 { return MaxProtocolMessageLength }

func (m *MsgBlockTxn) payloadSize(enc MessageEncoding) int {
	n := HashSize + 9
	for _, tx := range m.Transactions {
		n += tx.payloadSize(enc)
	}
	return n
}

// NewMsgCmpctBlock builds the compact form of blk keyed by nonce, with the
// coinbase prefilled (as Bitcoin Core sends it) and a short id for every
// other transaction.
func NewMsgCmpctBlock(blk *MsgBlock, nonce uint64) *MsgCmpctBlock {
	c := &MsgCmpctBlock{Header: blk.Header, Nonce: nonce}
	if len(blk.Transactions) == 0 {
		return c
	}
	c.PrefilledTxs = []PrefilledTx{{Index: 0, Tx: blk.Transactions[0]}}
	k0, k1 := c.SipHashKeys()
	wtxids := blk.WitnessHashes()
	c.ShortIDs = make([]uint64, len(wtxids)-1)
	for i := range c.ShortIDs {
		c.ShortIDs[i] = ShortTxID(k0, k1, wtxids[i+1])
	}
	return c
}
