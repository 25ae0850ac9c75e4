package blockchain

import (
	"bytes"

	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/wire"
)

// storedBlock is a block -reindex found in an existing block file: its
// data is indexed where it is instead of being written again.
type storedBlock struct {
	hash wire.Hash
	loc  database.BlockLoc
}

// ProcessStoredBlock is ProcessBlockWithFlags (with BFForce) for a block
// read from the node's own block files at loc during -reindex: if the
// block is new its data is recorded at loc rather than appended again, so
// the files are read in place, as Core reindexes (they may even be
// read-only). Blocks it makes connectable (orphans waiting for it) are
// stored as usual.
func (b *BlockChain) ProcessStoredBlock(block *wire.MsgBlock, loc database.BlockLoc) (ProcessResult, error) {
	b.mu.Lock()
	b.stored = &storedBlock{hash: block.BlockHash(), loc: loc}
	res, err := b.processBlock(block, BFForce)
	b.stored = nil
	b.mu.Unlock()
	b.deliver()
	return res, err
}

// storeBlock writes the data of the block of n, or notes where it already
// is (ProcessStoredBlock).
func (b *BlockChain) storeBlock(n *blockNode, block *wire.MsgBlock) (database.BlockLoc, error) {
	if st := b.stored; st != nil && st.hash == n.hash {
		b.db.NoteExistingBlock(st.loc, n.height)
		return st.loc, nil
	}
	size := block.SerializeSize()
	bp := wire.GetBuffer(size)
	raw := block.AppendTo((*bp)[:0], true)
	loc, err := b.db.WriteBlock(raw, n.height)
	*bp = raw
	wire.PutBuffer(bp)
	return loc, err
}

// storeGenesis stores the genesis block of a new block index: where the
// first block file already holds it (a -reindex reads the files in place),
// else by appending it.
func (b *BlockChain) storeGenesis(raw []byte) (database.BlockLoc, error) {
	loc := database.BlockLoc{File: 0, Offset: database.RecordHeaderSize, Size: uint32(len(raw))}
	if got, err := b.db.ReadBlock(loc, nil); err == nil && bytes.Equal(got, raw) {
		b.db.NoteExistingBlock(loc, 0)
		return loc, nil
	}
	return b.db.WriteBlock(raw, 0)
}
