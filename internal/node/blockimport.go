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

// reindexDirName is where --reindex moves the old block files; they are
// imported like --loadblock files and removed afterwards.
const reindexDirName = "blocks.reindex"

// prepareReindex moves the block files aside and deletes the index and
// chainstate, so the chain is rebuilt by importing the old files. A
// previous interrupted reindex is resumed from the files still there.
func prepareReindex(dataDir string) (string, error) {
	old := filepath.Join(dataDir, reindexDirName)
	blocks := filepath.Join(dataDir, "blocks")
	if _, err := os.Stat(old); errors.Is(err, os.ErrNotExist) {
		if _, err := os.Stat(blocks); err == nil {
			if err := os.Rename(blocks, old); err != nil {
				return "", err
			}
		}
	}
	if err := database.ResetForReindex(dataDir); err != nil {
		return "", err
	}
	if err := os.RemoveAll(blocks); err != nil {
		return "", err
	}
	if _, err := os.Stat(old); err != nil {
		return "", nil
	}
	return old, nil
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
			n, t, err := s.importFile(f, key)
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

func (s *server) importFile(path string, key [database.XorKeySize]byte) (blocks, txs int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	srvrLog.Infof("Importing blocks from %s", path)
	r := database.NewBlockFileReader(&database.XorReader{R: f, Key: key}, s.cfg.params.Net)
	// Blocks out of order beyond the orphan pool's reach wait here until
	// the end of the file, keyed by parent.
	waiting := make(map[wire.Hash][]*wire.MsgBlock)
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
		if _, _, ok := s.chain.HeaderByHash(&blk.Header.PrevBlock); !ok {
			waiting[blk.Header.PrevBlock] = append(waiting[blk.Header.PrevBlock], blk)
			continue
		}
		queue := []*wire.MsgBlock{blk}
		for len(queue) > 0 {
			b := queue[0]
			queue = queue[1:]
			if s.importBlock(b) {
				blocks++
				txs += len(b.Transactions)
			}
			h := b.BlockHash()
			if next := waiting[h]; next != nil {
				delete(waiting, h)
				queue = append(queue, next...)
			}
		}
	}
	if n := len(waiting); n > 0 {
		srvrLog.Warnf("%s: %d blocks with unknown parents were skipped", path, n)
	}
	return blocks, txs, nil
}

func (s *server) importBlock(b *wire.MsgBlock) bool {
	res, err := s.processBlock(b)
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
