package wire

import (
	"crypto/sha256"
	"encoding/binary"
	"runtime"
	"sync"
)

// Block limits from consensus (BIP141).
const (
	// MaxBlockWeight is the consensus maximum block weight.
	MaxBlockWeight = 4000000
	// WitnessScaleFactor is the weight of a non-witness byte.
	WitnessScaleFactor = 4
	// MaxBlockSerializedSize is the largest serialized block: a block of
	// maximum weight made only of witness bytes.
	MaxBlockSerializedSize = MaxBlockWeight
	// BlockHeaderSize is the size of a serialized block header.
	BlockHeaderSize = 80
	// MaxTxPerBlock bounds the transaction count of a block by its size.
	MaxTxPerBlock = MaxBlockSerializedSize / MinTxSize
)

// BlockHeader is the 80-byte header of a block.
type BlockHeader struct {
	Version    int32
	PrevBlock  Hash
	MerkleRoot Hash
	Timestamp  uint32
	Bits       uint32
	Nonce      uint32
}

// AppendTo appends the 80-byte serialization of h to dst.
func (h *BlockHeader) AppendTo(dst []byte) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(h.Version))
	dst = append(dst, h.PrevBlock[:]...)
	dst = append(dst, h.MerkleRoot[:]...)
	dst = binary.LittleEndian.AppendUint32(dst, h.Timestamp)
	dst = binary.LittleEndian.AppendUint32(dst, h.Bits)
	return binary.LittleEndian.AppendUint32(dst, h.Nonce)
}

// Decode reads a header from the front of b.
func (h *BlockHeader) Decode(b []byte) error {
	r := newReader(b)
	h.decode(&r)
	return r.err
}

func (h *BlockHeader) decode(r *reader) {
	if !r.need(BlockHeaderSize) {
		return
	}
	h.Version = int32(r.u32())
	h.PrevBlock = r.hash()
	h.MerkleRoot = r.hash()
	h.Timestamp = r.u32()
	h.Bits = r.u32()
	h.Nonce = r.u32()
}

// BlockHash returns the block's hash, sha256d of the header.
func (h *BlockHeader) BlockHash() Hash {
	var buf [BlockHeaderSize]byte
	h.AppendTo(buf[:0])
	first := sha256.Sum256(buf[:])
	return Hash(sha256.Sum256(first[:]))
}

// MsgBlock is a block: a header and its transactions. A decoded block keeps
// all transactions, inputs, outputs, witness stacks and script bytes in a
// few block-wide arrays, and caches the txids and wtxids computed from the
// bytes it was decoded from. Code that modifies a decoded block's
// transactions must call ClearHashCache.
type MsgBlock struct {
	Header       BlockHeader
	Transactions []*MsgTx

	txids  []Hash
	wtxids []Hash
	// wroot caches the witness merkle root once CacheWitnessRoot ran.
	wroot    Hash
	hasWroot bool
}

// BlockHash returns the hash of the block's header.
func (b *MsgBlock) BlockHash() Hash { return b.Header.BlockHash() }

// ClearHashCache drops the txids and wtxids cached at decode time.
func (b *MsgBlock) ClearHashCache() { b.txids, b.wtxids, b.hasWroot = nil, nil, false }

// TxHashes returns the txid of every transaction, in order. For a decoded
// block they were computed once at decode; the returned slice must not be
// modified.
func (b *MsgBlock) TxHashes() []Hash {
	if len(b.txids) == len(b.Transactions) && b.txids != nil {
		return b.txids
	}
	out := make([]Hash, len(b.Transactions))
	for i, tx := range b.Transactions {
		out[i] = tx.TxHash()
	}
	return out
}

// WitnessHashes returns the wtxid of every transaction, in order.
func (b *MsgBlock) WitnessHashes() []Hash {
	if len(b.wtxids) == len(b.Transactions) && b.wtxids != nil {
		return b.wtxids
	}
	out := make([]Hash, len(b.Transactions))
	for i, tx := range b.Transactions {
		out[i] = tx.WitnessHash()
	}
	return out
}

// SerializeSize returns the size of the block with witness data.
func (b *MsgBlock) SerializeSize() int {
	n := BlockHeaderSize + VarIntSerializeSize(uint64(len(b.Transactions)))
	for _, tx := range b.Transactions {
		n += tx.SerializeSize()
	}
	return n
}

// SerializeSizeStripped returns the size of the block without witness data.
func (b *MsgBlock) SerializeSizeStripped() int {
	n := BlockHeaderSize + VarIntSerializeSize(uint64(len(b.Transactions)))
	for _, tx := range b.Transactions {
		n += tx.SerializeSizeStripped()
	}
	return n
}

// Weight returns the BIP141 block weight.
func (b *MsgBlock) Weight() int64 {
	return int64(b.SerializeSizeStripped())*(WitnessScaleFactor-1) + int64(b.SerializeSize())
}

// AppendTo appends the block's serialization, with witness data if witness
// is set, to dst.
func (b *MsgBlock) AppendTo(dst []byte, witness bool) []byte {
	dst = b.Header.AppendTo(dst)
	dst = AppendVarInt(dst, uint64(len(b.Transactions)))
	for _, tx := range b.Transactions {
		dst = tx.AppendTo(dst, witness)
	}
	return dst
}

// Bytes returns the block's serialization with witness data.
func (b *MsgBlock) Bytes() []byte {
	return b.AppendTo(make([]byte, 0, b.SerializeSize()), true)
}

// parallelHashThreshold is the transaction count above which a block's
// txids are hashed on several goroutines.
const parallelHashThreshold = 512

// Decode decodes a block from the front of buf and returns the bytes used.
// The block may be at most MaxBlockSerializedSize bytes. buf is not
// retained.
func (b *MsgBlock) Decode(buf []byte) (int, error) {
	r := newReader(buf)
	var hdr BlockHeader
	hdr.decode(&r)
	n := r.count("block transaction count", MaxTxPerBlock, MinTxSize)
	if r.err != nil {
		return 0, r.err
	}
	// Pass 1: validate and count.
	a := txArena{counting: true}
	var sp txSpan
	for i := 0; i < n && r.err == nil; i++ {
		decodeTx(&r, nil, &a, &sp)
		if r.off > MaxBlockSerializedSize {
			return 0, limitError("block size", uint64(r.off), MaxBlockSerializedSize)
		}
	}
	if r.err != nil {
		return 0, r.err
	}
	end := r.off

	// Pass 2: fill exactly sized arrays.
	a.alloc(a.nIn, a.nOut)
	a.counting = false
	txs := make([]MsgTx, n)
	ptrs := make([]*MsgTx, n)
	spans := make([]txSpan, n)
	r = newReader(buf[:end])
	r.off = BlockHeaderSize + VarIntSerializeSize(uint64(n))
	for i := range n {
		decodeTx(&r, &txs[i], &a, &spans[i])
		ptrs[i] = &txs[i]
	}
	if r.err != nil {
		return 0, r.err
	}
	hashes := make([]Hash, 2*n)
	hashSpans(buf, spans, hashes[:n:n], hashes[n:])
	b.Header = hdr
	b.Transactions = ptrs
	b.txids, b.wtxids = hashes[:n:n], hashes[n:]
	return end, nil
}

// hashSpans computes txids and wtxids of the transactions at spans in buf,
// spread over the available cores for large blocks.
func hashSpans(buf []byte, spans []txSpan, txids, wtxids []Hash) {
	work := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			sp := &spans[i]
			txids[i] = sp.txid(buf)
			if sp.witness {
				wtxids[i] = DoubleHashH(buf[sp.start:sp.end])
			} else {
				wtxids[i] = txids[i]
			}
		}
	}
	n := len(spans)
	workers := runtime.GOMAXPROCS(0)
	if n < parallelHashThreshold || workers < 2 {
		work(0, n)
		return
	}
	var wg sync.WaitGroup
	chunk := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(lo, hi)
		}()
	}
	wg.Wait()
}
