package coinstats

import (
	"strconv"

	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/internal/indexdb"
	"github.com/btcnode/btcd/internal/muhash"
	"github.com/btcnode/btcd/wire"
)

// BlockFunc returns a stored block and the outputs its non-coinbase inputs
// spend, in input order (from its undo data). The spent slice need only
// stay valid until the next call.
type BlockFunc func(hash wire.Hash) (*wire.MsgBlock, []database.UtxoEntry, error)

// BlockConnected indexes block, connected to the chain at height; spent
// are the outputs its non-coinbase inputs spend, in input order. The block
// must extend the index tip (height 0 on an empty index). A block already
// indexed at height is accepted again as a no-op, so replays are harmless;
// anything else is ErrNotContiguous, and the caller should run CatchUp.
//
// The block's record, the new tip and the MuHash state are written in one
// batch, so after a crash the index is at a block it fully recorded.
func (x *Index) BlockConnected(block *wire.MsgBlock, height int32, spent []database.UtxoEntry) error {
	if height < 0 {
		return kinds.New(ErrInvalidArg, "height %d", height)
	}
	hash := block.BlockHash()
	x.mu.Lock()
	defer x.mu.Unlock()
	var prev Stats
	switch {
	case x.tipOK && height <= x.tip.Height:
		at, err := mustHeightRecord(x.db, height)
		if err != nil {
			return err
		}
		if at.Hash == hash {
			return nil
		}
		return kinds.New(ErrNotContiguous, "block %v at height %d, index holds %v there", hash, height, at.Hash)
	case x.tipOK && (height != x.tip.Height+1 || block.Header.PrevBlock != x.tip.Hash),
		!x.tipOK && height != 0:
		tip, th := x.tip.Hash, int32(-1)
		if x.tipOK {
			th = x.tip.Height
		}
		return kinds.New(ErrNotContiguous, "block %v at height %d, index tip %v at height %d", hash, height, tip, th)
	case x.tipOK:
		prev = x.tip
	}

	x.elems.reset()
	d, err := x.collect(block, &hash, height, spent, &x.elems)
	if err != nil {
		return err
	}
	st, err := next(&prev, &d, hash, height)
	if err != nil {
		return err
	}
	running, err := cloneMuHash(x.running)
	if err != nil {
		return err
	}
	running.Combine(x.delta(&x.elems.created, &x.elems.spent))
	st.MuHash = running.Finalize()
	state, err := running.MarshalBinary()
	if err != nil {
		return err
	}

	b := &x.batch
	b.Reset()
	k := heightKey(height)
	b.Put(k[:], encodeRecord(nil, &st))
	indexdb.PutTip(b, &hash, height)
	b.Put([]byte{keyMuHash}, state)
	if err := x.db.Commit(b, "write coinstats of block "+hash.String()); err != nil {
		return err
	}
	x.tip, x.tipOK, x.running = st, true, running
	return nil
}

// Rewind takes the index back to height (-1 empties it), undoing the
// blocks above it: their coins are taken out of the MuHash state and the
// coins they spent put back, which needs each block and its undo data
// from blockOf. The result must match the digest recorded at height, or
// the index is corrupt. The records of the blocks taken back stay
// readable by hash (Lookup), as a reorganised-out block's statistics do
// in Core. Everything is written in one batch.
func (x *Index) Rewind(height int32, blockOf BlockFunc) error {
	if height < -1 {
		return kinds.New(ErrInvalidArg, "height %d", height)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.rewind(height, blockOf)
}

func (x *Index) rewind(height int32, blockOf BlockFunc) error {
	if !x.tipOK || height >= x.tip.Height {
		return nil
	}
	b := &x.batch
	b.Reset()
	keep := func(st *Stats) {
		hk := hashKey(&st.Hash)
		b.Put(hk[:], encodeRecord(nil, st))
		k := heightKey(st.Height)
		b.Delete(k[:])
	}
	if height < 0 {
		// Nothing to verify against: the empty set needs no undoing.
		for h := int32(0); h <= x.tip.Height; h++ {
			st, err := mustHeightRecord(x.db, h)
			if err != nil {
				return err
			}
			keep(&st)
		}
		indexdb.DeleteTip(b)
		b.Delete([]byte{keyMuHash})
		if err := x.db.Commit(b, "empty coinstats index"); err != nil {
			return err
		}
		x.tip, x.tipOK, x.running = Stats{}, false, muhash.New()
		return nil
	}
	target, err := mustHeightRecord(x.db, height)
	if err != nil {
		return err
	}
	running, err := cloneMuHash(x.running)
	if err != nil {
		return err
	}
	for h := x.tip.Height; h > height; h-- {
		st, err := mustHeightRecord(x.db, h)
		if err != nil {
			return err
		}
		block, spent, err := blockOf(st.Hash)
		if err != nil {
			return kinds.Wrap(ErrIO, err, "read block %v to take it out of the coinstats index", st.Hash)
		}
		if block.BlockHash() != st.Hash {
			return kinds.New(ErrInvalidArg, "asked for block %v, got %v", st.Hash, block.BlockHash())
		}
		x.elems.reset()
		if _, err := x.collect(block, &st.Hash, h, spent, &x.elems); err != nil {
			return err
		}
		running.Combine(x.delta(&x.elems.spent, &x.elems.created))
		keep(&st)
	}
	if wire.Hash(running.Finalize()) != target.MuHash {
		return kinds.New(ErrCorrupt, "undoing the blocks above height %d does not give the MuHash recorded there", height)
	}
	state, err := running.MarshalBinary()
	if err != nil {
		return err
	}
	indexdb.PutTip(b, &target.Hash, height)
	b.Put([]byte{keyMuHash}, state)
	if err := x.db.Commit(b, "rewind coinstats index to height "+strconv.Itoa(int(height))); err != nil {
		return err
	}
	x.tip, x.running = target, running
	return nil
}
