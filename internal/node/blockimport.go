package node

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/btcnode/btcd/blockchain"
	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/wire"
)

// reindexDirName is where older versions' --reindex moved the block
// files; one left by an interrupted reindex is imported like --loadblock
// files and removed afterwards.
const reindexDirName = "blocks.reindex"

// prepareReindex deletes the block index, the chainstate and the undo
// files, so that the chain is rebuilt from the block files where they are
// (importStoredBlocks), as Core's -reindex does. It returns the directory
// of an older version's interrupted reindex, if there is one.
//
// A pruned node's files are deleted instead: it starts again from the
// genesis block, as Core's does.
func prepareReindex(dataDir, filesDir string, pruned bool) (string, error) {
	if err := database.ResetForReindexInPlace(dataDir, filesDir, pruned); err != nil {
		return "", err
	}
	old := filepath.Join(dataDir, reindexDirName)
	if _, err := os.Stat(old); err != nil {
		return "", nil
	}
	return old, nil
}

// importStoredBlocks is --reindex: it reads the node's own block files in
// place and indexes their blocks where they are (ProcessStoredBlock), so
// nothing is written to them and they may be read-only. Blocks whose
// parent comes later, in the same file or another, wait by position and
// are read again once it is known.
func (s *server) importStoredBlocks() {
	start := time.Now()
	nums, err := s.bdb.BlockFiles()
	if err != nil {
		srvrLog.Errorf("Reindex: %v", err)
		return
	}
	waiting := make(map[wire.Hash][]pendingBlock)
	var blocks, txs int
	for _, num := range nums {
		n, t, err := s.importFile(s.bdb.BlockFilePath(num), s.bdb.XorKey(), &num, waiting)
		blocks += n
		txs += t
		if err != nil {
			srvrLog.Errorf("Reindexing %s: %v", s.bdb.BlockFilePath(num), err)
		}
		select {
		case <-s.quit:
			return
		default:
		}
	}
	if n := len(waiting); n > 0 {
		srvrLog.Warnf("Reindex: %d blocks with unknown parents were skipped", n)
	}
	tip := s.chain.BestSnapshot()
	srvrLog.Infof("Reindexed %d blocks (%d transactions) in %v; tip %v at height %d",
		blocks, txs, time.Since(start).Round(time.Millisecond), tip.Hash, tip.Height)
	if err := s.chain.Flush(); err != nil {
		srvrLog.Errorf("Flushing after reindex: %v", err)
	}
	srvrLog.Info("Reindexing finished")
}

// pendingBlock is a block read before its parent: in memory for external
// files, by position for the node's own.
type pendingBlock struct {
	blk    *wire.MsgBlock
	loc    database.BlockLoc
	stored bool
}

// importBlocks feeds the blocks of Core-style blk files (or directories of
// them) to the chain, as --loadblock and --reindex do. Blocks whose parent
// is not yet known wait in the chain's orphan pool or, beyond it, are
// retried after the file.
func (s *server) importBlocks(paths []string) {
	start := time.Now()
	var blocks, txs int
	for _, p := range paths {
		files := []string{p}
		// The node's own block files (those --reindex moved aside) may
		// be obfuscated with the key stored beside them; external files
		// given to --loadblock are plain.
		var key [database.XorKeySize]byte
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			files = blkFilesIn(p)
			if strings.HasSuffix(p, reindexDirName) {
				if k, err := database.ReadXorKey(p); err == nil {
					key = k
				}
			}
		}
		for _, f := range files {
			n, t, err := s.importFile(f, key, nil, nil)
			blocks += n
			txs += t
			if err != nil {
				srvrLog.Errorf("Importing %s: %v", f, err)
			}
			select {
			case <-s.quit:
				return
			default:
			}
		}
		if strings.HasSuffix(p, reindexDirName) {
			// The files were read, not moved: a block file the
			// operator made immutable stays, and so does the copy.
			if err := os.RemoveAll(p); err != nil {
				srvrLog.Warnf("Removing %s after the reindex: %v", p, err)
			}
			srvrLog.Info("Reindexing finished")
		}
	}
	tip := s.chain.BestSnapshot()
	srvrLog.Infof("Imported %d blocks (%d transactions) in %v; tip %v at height %d",
		blocks, txs, time.Since(start).Round(time.Millisecond), tip.Hash, tip.Height)
	if err := s.chain.Flush(); err != nil {
		srvrLog.Errorf("Flushing after import: %v", err)
	}
}

// blkFilesIn lists blkNNNNN.dat files of dir in order.
func blkFilesIn(dir string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, "blk*.dat"))
	sort.Strings(m)
	return m
}

// importFile feeds one blk file's blocks to the chain. file is the
// number of one of the node's own block files (--reindex), nil for an
// external file; waiting holds blocks whose parent is not known yet, and
// is the file's own when nil.
func (s *server) importFile(path string, key [database.XorKeySize]byte, file *uint32, waiting map[wire.Hash][]pendingBlock) (blocks, txs int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	srvrLog.Infof("Importing blocks from %s", path)
	r := database.NewBlockFileReader(&database.XorReader{R: f, Key: key}, s.cfg.params.Net)
	perFile := waiting == nil
	if perFile {
		waiting = make(map[wire.Hash][]pendingBlock)
	}
	for {
		select {
		case <-s.quit:
			return blocks, txs, nil
		default:
		}
		raw, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return blocks, txs, err
		}
		blk := new(wire.MsgBlock)
		if _, err := blk.Decode(raw); err != nil {
			r.Resync()
			continue
		}
		pb := pendingBlock{blk: blk}
		if file != nil {
			pb = pendingBlock{blk: blk, loc: database.BlockLoc{File: *file, Offset: uint32(r.Offset()), Size: uint32(len(raw))}, stored: true}
		}
		if _, _, ok := s.chain.HeaderByHash(&blk.Header.PrevBlock); !ok {
			if pb.stored {
				pb.blk = nil // read again when its parent comes
			}
			waiting[blk.Header.PrevBlock] = append(waiting[blk.Header.PrevBlock], pb)
			continue
		}
		queue := []pendingBlock{pb}
		for len(queue) > 0 {
			p := queue[0]
			queue = queue[1:]
			if p.blk == nil {
				if p.blk, err = s.readStored(p.loc); err != nil {
					srvrLog.Errorf("Reindex: %v", err)
					continue
				}
			}
			if s.importBlock(p) {
				blocks++
				txs += len(p.blk.Transactions)
			}
			h := p.blk.BlockHash()
			if next := waiting[h]; next != nil {
				delete(waiting, h)
				queue = append(queue, next...)
			}
		}
	}
	if n := len(waiting); perFile && n > 0 {
		srvrLog.Warnf("%s: %d blocks with unknown parents were skipped", path, n)
	}
	return blocks, txs, nil
}

// readStored reads back a block of the node's own files.
func (s *server) readStored(loc database.BlockLoc) (*wire.MsgBlock, error) {
	raw, err := s.bdb.ReadBlock(loc, nil)
	if err != nil {
		return nil, err
	}
	blk := new(wire.MsgBlock)
	if _, err := blk.Decode(raw); err != nil {
		return nil, err
	}
	return blk, nil
}

func (s *server) importBlock(p pendingBlock) bool {
	b := p.blk
	var res blockchain.ProcessResult
	var err error
	if p.stored {
		res, err = s.chain.ProcessStoredBlock(b, p.loc)
	} else {
		res, err = s.processBlock(b)
	}
	if err != nil {
		var re *blockchain.RuleError
		if errors.As(err, &re) {
			srvrLog.Warnf("Imported block %v rejected: %v", b.BlockHash(), err)
		} else {
			srvrLog.Errorf("Importing block %v: %v", b.BlockHash(), err)
		}
		return false
	}
	return !res.Duplicate
}

// processBlock is ProcessBlock for the import and submit paths, timing
// the validation of blocks that were new. Those blocks are forced, as
// bitcoind's: the minimum chain work does not hold them back.
func (s *server) processBlock(b *wire.MsgBlock) (blockchain.ProcessResult, error) {
	start := time.Now()
	res, err := s.chain.ProcessBlockWithFlags(b, blockchain.BFForce)
	if err == nil && !res.Duplicate {
		s.metrics.BlockValidated(time.Since(start))
	}
	return res, err
}
