package database

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/btcnode/btcd/internal/indexdb"
	"github.com/btcnode/btcd/wire"
	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// The transaction index (txindex) is a LevelDB of its own under the data
// directory, indexes/txindex as in bitcoind's layout:
//
//	'V'          -> format version (uint32 LE, internal/indexdb)
//	't' || txid  -> TxLoc
//
// Its entries are queued by PutTxLoc and DeleteTxLoc and written by
// BlockDB.Flush right after the block index batch, so whatever the txindex
// holds refers to blocks the block index has recorded. Its batch is not
// fsynced: a crash may lose the last entries, which the chain indexes
// again from its progress record (kept among the entries, see blockchain).
//
// Nodes before this layout kept the same records in the block index
// (blocks/index, prefix 't'). OpenTxIndex moves them: it copies them into
// the new database and then deletes them from the block index, so an
// existing index is kept, not rebuilt. A crash during the move repeats it
// at the next open (the copy overwrites what it wrote before).

// TxIndexSubdir is where the transaction index lives under the data
// directory (slash-separated).
const TxIndexSubdir = "indexes/txindex"

// TxIndexVersion is the format version of the transaction index database.
const TxIndexVersion = 1

// txIndexMoveBatch is how many records one batch of the move from the
// block index copies or deletes.
const txIndexMoveBatch = 10_000

// Error kinds of the transaction index's database as internal/indexdb
// reports them (Open: version, journals, LevelDB's corruption);
// txIndexOpenErr adds this package's kind.
const (
	errTxIndexCorrupt indexdb.ErrorKind = "txindex corrupt"
	errTxIndexVersion indexdb.ErrorKind = "unknown txindex version"
	errTxIndexIO      indexdb.ErrorKind = "txindex I/O error"
)

var txIndexKinds = indexdb.Kinds{
	Corrupt:        errTxIndexCorrupt,
	UnknownVersion: errTxIndexVersion,
	NotFound:       indexdb.ErrorKind(ErrNotFound),
	NotContiguous:  errTxIndexCorrupt,
	InvalidArg:     indexdb.ErrorKind(ErrInvalidArg),
	IO:             errTxIndexIO,
	Closed:         indexdb.ErrorKind(ErrClosed),
	Rebuild: "rebuild the transaction index: delete " + TxIndexSubdir +
		" in the data directory and restart with -txindex",
	// Core's wording, which operators and its tests look for.
	LevelCorruption: "Fatal LevelDB error: Corruption: ",
}

// OpenTxIndex opens (creating if needed) the transaction index's database
// under the data directory the store was opened with, moving the records
// a former layout kept in the block index. PutTxLoc, DeleteTxLoc and TxLoc
// use it from then on; Close closes it. Opening twice is a no-op. The
// errors of the open itself wrap ErrCorrupt, ErrUnknownVersion or ErrIO
// and read as LevelDB's and Core's ("Fatal LevelDB error: Corruption:
// ...").
func (b *BlockDB) OpenTxIndex() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return newErr(ErrClosed, "open txindex")
	}
	if b.txdb != nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Join(b.dataDir, "indexes"), 0o755); err != nil {
		return wrapErr(ErrIO, err, "create %s", filepath.Join(b.dataDir, "indexes"))
	}
	db, err := indexdb.Open(b.dataDir, indexdb.Spec{Subdir: TxIndexSubdir, Version: TxIndexVersion, Kinds: &txIndexKinds},
		indexdb.Options{}, func(*indexdb.DB, indexdb.Tip) error { return nil })
	if err != nil {
		return txIndexOpenErr(err)
	}
	if err := moveLegacyTxIndex(b.idx, db.DB); err != nil {
		db.Close()
		return err
	}
	b.txdb = db
	return nil
}

// txIndexOpenErr gives an error of indexdb.Open this package's kind as
// well, so callers test it as any other database error.
func txIndexOpenErr(err error) error {
	kind := ErrIO
	switch {
	case errors.Is(err, errTxIndexCorrupt):
		kind = ErrCorrupt
	case errors.Is(err, errTxIndexVersion):
		kind = ErrUnknownVersion
	}
	return &txIndexError{kind: kind, err: err}
}

// txIndexError is an error opening the transaction index: its message is
// indexdb's, which names the txindex and its own remedy (not the block
// index's --reindex).
type txIndexError struct {
	kind ErrorKind
	err  error
}

func (e *txIndexError) Error() string   { return e.err.Error() }
func (e *txIndexError) Unwrap() []error { return []error{e.kind, e.err} }

// TxIndexOpen reports whether OpenTxIndex has opened the transaction index.
func (b *BlockDB) TxIndexOpen() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.txdb != nil
}

// moveLegacyTxIndex moves the txindex records from the block index to the
// transaction index's own database: all are copied first, then deleted,
// so a crash in between leaves them in the block index to be copied again.
func moveLegacyTxIndex(idx, txdb *leveldb.DB) error {
	prefix := util.BytesPrefix([]byte{prefixTxIndex})
	it := idx.NewIterator(prefix, nil)
	if !it.First() {
		err := it.Error()
		it.Release()
		if err != nil {
			return levelErr(err, "scan the block index for txindex records")
		}
		return nil
	}
	var batch leveldb.Batch
	n := 0
	write := func(db *leveldb.DB, what string) error {
		if batch.Len() == 0 {
			return nil
		}
		err := db.Write(&batch, nil)
		batch.Reset()
		if err != nil {
			return levelErr(err, what)
		}
		return nil
	}
	for ok := true; ok; ok = it.Next() {
		batch.Put(it.Key(), it.Value())
		n++
		if batch.Len() >= txIndexMoveBatch {
			if err := write(txdb, "copy txindex records"); err != nil {
				it.Release()
				return err
			}
		}
	}
	err := it.Error()
	it.Release()
	if err != nil {
		return levelErr(err, "read txindex records from the block index")
	}
	if err := write(txdb, "copy txindex records"); err != nil {
		return err
	}
	// Durable before the originals go.
	if err := txdb.Write(new(leveldb.Batch), &opt.WriteOptions{Sync: true}); err != nil {
		return levelErr(err, "sync the txindex")
	}
	it = idx.NewIterator(prefix, nil)
	for it.Next() {
		batch.Delete(it.Key())
		if batch.Len() >= txIndexMoveBatch {
			if err := write(idx, "delete moved txindex records"); err != nil {
				it.Release()
				return err
			}
		}
	}
	err = it.Error()
	it.Release()
	if err != nil {
		return levelErr(err, "read txindex records from the block index")
	}
	if err := write(idx, "delete moved txindex records"); err != nil {
		return err
	}
	log.Infof("Moved %d transaction index records from blocks/index to %s", n, TxIndexSubdir)
	return nil
}

// commitTxIndex writes the queued txindex entries. Called by Flush with
// b.mu held, after the block index batch.
func (b *BlockDB) commitTxIndex() error {
	if b.txdb == nil || b.txBatch.Len() == 0 {
		return nil
	}
	if err := b.txdb.Write(&b.txBatch, nil); err != nil {
		return levelErr(err, "write txindex")
	}
	b.txBatch.Reset()
	return nil
}

// closeTxIndex closes the transaction index's database. Called by Close
// with b.mu held, after the last Flush.
func (b *BlockDB) closeTxIndex() error {
	if b.txdb == nil {
		return nil
	}
	err := b.txdb.DB.Close()
	b.txdb = nil
	if err != nil {
		return levelErr(err, "close txindex")
	}
	return nil
}

func txIndexKey(txid *wire.Hash) [33]byte {
	var key [33]byte
	key[0] = prefixTxIndex
	copy(key[1:], txid[:])
	return key
}

// PutTxLoc queues a txindex entry, written at the next Flush.
func (b *BlockDB) PutTxLoc(txid *wire.Hash, l *TxLoc) {
	key := txIndexKey(txid)
	var val [25]byte
	b.mu.Lock()
	b.txBatch.Put(key[:], appendTxLoc(val[:0], l))
	b.mu.Unlock()
}

// DeleteTxLoc queues removal of a txindex entry (block disconnected).
func (b *BlockDB) DeleteTxLoc(txid *wire.Hash) {
	key := txIndexKey(txid)
	b.mu.Lock()
	b.txBatch.Delete(key[:])
	b.mu.Unlock()
}

// TxLoc looks a transaction up in the txindex (ErrNotFound if absent,
// ErrClosed before OpenTxIndex).
func (b *BlockDB) TxLoc(txid *wire.Hash) (TxLoc, error) {
	b.mu.Lock()
	txdb := b.txdb
	b.mu.Unlock()
	if txdb == nil {
		return TxLoc{}, newErr(ErrClosed, "txindex not open")
	}
	key := txIndexKey(txid)
	v, err := txdb.Get(key[:], nil)
	if err != nil {
		return TxLoc{}, levelErr(err, "txindex "+txid.String())
	}
	return DecodeTxLoc(v)
}
