package blockfilter

import (
	"encoding/binary"

	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/internal/indexdb"
	"github.com/btcnode/btcd/wire"
)

// BlockConnected indexes block, connected to the main chain at height.
// prevScripts are the output scripts its non-coinbase inputs spend (from
// the block's undo data; see ScriptsFromUndo); they are not retained.
//
// The block must extend the index tip, or its parent must be in the
// indexed chain (then the blocks above the parent are dropped first: a
// reorganisation the index learns of from the new branch). A block already
// indexed at height is accepted again as a no-op, so replayed
// notifications are harmless. Anything else is ErrNotContiguous and the
// caller should run CatchUp.
//
// The block's entries and the new tip are written in one batch.
func (x *Index) BlockConnected(block *wire.MsgBlock, height int32, prevScripts [][]byte) error {
	if height < 0 {
		return kinds.New(ErrInvalidArg, "height %d", height)
	}
	hash := block.BlockHash()
	x.mu.Lock()
	defer x.mu.Unlock()

	var prevHeader wire.Hash
	rewindFrom := int32(-1) // first height to drop, if any
	switch {
	case height == x.tipHeight+1 && (height == 0 || block.Header.PrevBlock == x.tipHash):
		prevHeader = x.tipHeader
	case height <= x.tipHeight:
		at, err := mustHeightEntry(x.db, height)
		if err != nil {
			return err
		}
		if at.hash == hash {
			return nil // already indexed
		}
		if height > 0 {
			parent, err := mustHeightEntry(x.db, height-1)
			if err != nil {
				return err
			}
			if parent.hash != block.Header.PrevBlock {
				return kinds.New(ErrNotContiguous, "block %v at height %d: parent %v is not indexed",
					hash, height, block.Header.PrevBlock)
			}
			prevHeader = parent.header
		}
		rewindFrom = height
	default:
		return kinds.New(ErrNotContiguous, "block %v at height %d, index tip %v at height %d",
			hash, height, x.tipHash, x.tipHeight)
	}

	x.filterBuf = x.b.AppendBasic(x.filterBuf[:0], block, prevScripts)
	filterHash := wire.DoubleHashH(x.filterBuf)
	header := HeaderFromHash(filterHash, &prevHeader)

	b := &x.batch
	b.Reset()
	if rewindFrom >= 0 {
		for h := rewindFrom; h <= x.tipHeight; h++ {
			k := heightKey(h)
			b.Delete(k[:])
		}
	}
	fk := hashKey(prefixFilter, &hash)
	b.Put(fk[:], x.filterBuf)
	var val [heightValLen]byte
	binary.LittleEndian.PutUint32(val[:], uint32(height))
	copy(val[4:], filterHash[:])
	copy(val[36:], header[:])
	hk := hashKey(prefixHash, &hash)
	b.Put(hk[:], val[:hashValLen])
	copy(val[:], hash[:])
	copy(val[32:], filterHash[:])
	copy(val[64:], header[:])
	k := heightKey(height)
	b.Put(k[:], val[:])
	indexdb.PutTip(b, &hash, height)
	if err := x.db.Commit(b, "write filter of block "+hash.String()); err != nil {
		return err
	}
	x.tipHash, x.tipHeight, x.tipHeader = hash, height, header
	if height%10000 == 0 {
		log.Debugf("Filter index at height %d (%v)", height, hash)
	}
	return nil
}

// BlockDisconnected removes block hash at height from the indexed main
// chain (and everything above it, if the index was ahead). A block the
// index does not hold at that height is ignored, so notifications for
// blocks indexed before or never are harmless. The filter stays
// retrievable by hash.
func (x *Index) BlockDisconnected(hash wire.Hash, height int32) error {
	if height < 0 {
		return kinds.New(ErrInvalidArg, "height %d", height)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if height > x.tipHeight {
		return nil
	}
	at, err := mustHeightEntry(x.db, height)
	if err != nil {
		return err
	}
	if at.hash != hash {
		return nil
	}
	return x.rewind(height - 1)
}

// Rewind drops the indexed main chain above height (-1 empties it), for
// a node that finds its chain reorganised while it was down. Filters stay
// retrievable by hash.
func (x *Index) Rewind(height int32) error {
	if height < -1 {
		return kinds.New(ErrInvalidArg, "height %d", height)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.rewind(height)
}

func (x *Index) rewind(height int32) error {
	if height >= x.tipHeight {
		return nil
	}
	var e heightEntry
	if height >= 0 {
		var err error
		if e, err = mustHeightEntry(x.db, height); err != nil {
			return err
		}
	}
	b := &x.batch
	b.Reset()
	for h := height + 1; h <= x.tipHeight; h++ {
		k := heightKey(h)
		b.Delete(k[:])
	}
	if height >= 0 {
		indexdb.PutTip(b, &e.hash, height)
	} else {
		indexdb.DeleteTip(b)
	}
	if err := x.db.Commit(b, "rewind filter index to height "+itoaHeight(height)); err != nil {
		return err
	}
	x.tipHash, x.tipHeight, x.tipHeader = e.hash, height, e.header
	return nil
}

// ScriptsFromUndo appends to dst the scripts spent by a block, from its
// decoded undo record, in input order: the prevScripts BlockConnected
// needs. The scripts alias u's buffer and are valid until u is reused.
func ScriptsFromUndo(dst [][]byte, u *database.BlockUndo) [][]byte {
	for i := range u.Spent {
		dst = append(dst, u.Spent[i].PkScript)
	}
	return dst
}

// ScriptsFromEntries is ScriptsFromUndo for a slice of spent outputs, as
// the chain's connect path holds them.
func ScriptsFromEntries(dst [][]byte, spent []database.UtxoEntry) [][]byte {
	for i := range spent {
		dst = append(dst, spent[i].PkScript)
	}
	return dst
}
