package database

// blockIndexRecordVersion is the serialization version written first in
// every BlockIndexRecord value.
const blockIndexRecordVersion = 1

// blockIndexMaxLen bounds an encoded BlockIndexRecord: version, nine
// VARINTs of at most 5 bytes, a 1+32 byte chain work and the 80-byte header.
const blockIndexMaxLen = 1 + 9*5 + 33 + 80

// BlockIndexRecord is what the block index stores per block hash. The
// blockchain package decides what Status bits and ChainWork mean; this
// package only stores them.
type BlockIndexRecord struct {
	Header [80]byte // serialized block header
	Height int32
	Status uint32 // validation/data-availability flags, owned by the chain
	NumTx  uint32

	// Block data location (meaningful when the chain's status says so).
	File       uint32
	DataOffset uint32
	DataSize   uint32

	// Undo data location.
	UndoFile   uint32
	UndoOffset uint32
	UndoSize   uint32

	// ChainWork is the cumulative work up to and including this block as a
	// 256-bit big-endian integer.
	ChainWork [32]byte
}

// AppendTo appends the versioned serialization: VARINT(version), VARINTs of
// height, status, numTx, file, offset, size, undo file, offset, size, then
// the chain work with leading zero bytes stripped (length byte + bytes), then
// the 80-byte header.
func (r *BlockIndexRecord) AppendTo(dst []byte) []byte {
	dst = AppendVarInt(dst, blockIndexRecordVersion)
	for _, v := range [...]uint32{uint32(r.Height), r.Status, r.NumTx, r.File, r.DataOffset,
		r.DataSize, r.UndoFile, r.UndoOffset, r.UndoSize} {
		dst = AppendVarInt(dst, uint64(v))
	}
	w := r.ChainWork[:]
	for len(w) > 0 && w[0] == 0 {
		w = w[1:]
	}
	dst = append(dst, byte(len(w)))
	dst = append(dst, w...)
	return append(dst, r.Header[:]...)
}

// DecodeBlockIndexRecord decodes a value written by AppendTo. Unknown
// versions are ErrUnknownVersion, anything malformed ErrCorrupt.
func DecodeBlockIndexRecord(b []byte) (BlockIndexRecord, error) {
	var r BlockIndexRecord
	d := varDecoder{b: b}
	if v := d.next(); d.err == nil && v != blockIndexRecordVersion {
		return r, newErr(ErrUnknownVersion, "block index record version %d", v)
	}
	r.Height = int32(d.u32())
	r.Status = d.u32()
	r.NumTx = d.u32()
	r.File = d.u32()
	r.DataOffset = d.u32()
	r.DataSize = d.u32()
	r.UndoFile = d.u32()
	r.UndoOffset = d.u32()
	r.UndoSize = d.u32()
	if d.err == nil {
		if len(d.b) < 1 || int(d.b[0]) > 32 || len(d.b) != 1+int(d.b[0])+80 {
			return BlockIndexRecord{}, newErr(ErrCorrupt, "block index record tail of %d bytes", len(d.b))
		}
		n := int(d.b[0])
		if n > 0 && d.b[1] == 0 {
			return BlockIndexRecord{}, newErr(ErrCorrupt, "block index chain work not minimal")
		}
		copy(r.ChainWork[32-n:], d.b[1:1+n])
		copy(r.Header[:], d.b[1+n:])
		d.b = nil
	}
	if err := d.finish("block index record"); err != nil {
		return BlockIndexRecord{}, err
	}
	if r.Height < 0 {
		return BlockIndexRecord{}, newErr(ErrCorrupt, "block index height %d", r.Height)
	}
	return r, nil
}

// varDecoder reads a sequence of Core VARINTs, remembering the first error so
// that decoders check once at the end.
type varDecoder struct {
	b   []byte
	err error
}

func (d *varDecoder) next() uint64 {
	if d.err != nil {
		return 0
	}
	v, n, err := ReadVarInt(d.b)
	if err != nil {
		d.err = err
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *varDecoder) u32() uint32 {
	v := d.next()
	if v > 0xffffffff && d.err == nil {
		d.err = newErr(ErrCorrupt, "value %d overflows 32 bits", v)
	}
	return uint32(v)
}

// finish reports the first error, or trailing bytes as corruption.
func (d *varDecoder) finish(what string) error {
	if d.err != nil {
		return wrapErr(ErrCorrupt, d.err, "decode %s", what)
	}
	if len(d.b) != 0 {
		return newErr(ErrCorrupt, "%d trailing bytes after %s", len(d.b), what)
	}
	return nil
}

// TxLoc locates a transaction for the txindex: the block's location and the
// transaction's offset and size within the block's bytes.
type TxLoc struct {
	Block    BlockLoc
	TxOffset uint32
	TxSize   uint32
}

func appendTxLoc(dst []byte, l *TxLoc) []byte {
	dst = AppendVarInt(dst, uint64(l.Block.File))
	dst = AppendVarInt(dst, uint64(l.Block.Offset))
	dst = AppendVarInt(dst, uint64(l.Block.Size))
	dst = AppendVarInt(dst, uint64(l.TxOffset))
	return AppendVarInt(dst, uint64(l.TxSize))
}

// DecodeTxLoc decodes a txindex value.
func DecodeTxLoc(b []byte) (TxLoc, error) {
	d := varDecoder{b: b}
	l := TxLoc{Block: BlockLoc{File: d.u32(), Offset: d.u32(), Size: d.u32()}, TxOffset: d.u32(), TxSize: d.u32()}
	if err := d.finish("tx location"); err != nil {
		return TxLoc{}, err
	}
	if uint64(l.TxOffset)+uint64(l.TxSize) > uint64(l.Block.Size) {
		return TxLoc{}, newErr(ErrCorrupt, "tx location outside its block")
	}
	return l, nil
}

// ReadTx reads one indexed transaction's bytes into dst.
func (b *BlockDB) ReadTx(l TxLoc, dst []byte) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	h, err := b.blk.handle(l.Block.File, false)
	if err != nil {
		return dst, err
	}
	if uint64(l.TxOffset)+uint64(l.TxSize) > uint64(l.Block.Size) || l.TxSize > maxRecordSize {
		return dst, newErr(ErrInvalidArg, "tx location outside its block")
	}
	if cap(dst) < int(l.TxSize) {
		dst = make([]byte, l.TxSize)
	}
	dst = dst[:l.TxSize]
	if _, err := h.ReadAt(dst, int64(l.Block.Offset)+int64(l.TxOffset)); err != nil {
		return dst[:0], wrapErr(ErrIO, err, "read tx at blk%05d", l.Block.File)
	}
	xorAt(&b.blk.key, dst, int64(l.Block.Offset)+int64(l.TxOffset))
	return dst, nil
}
