package blockchain

import (
	"compress/bzip2"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/wire"
)

// vectorsDir is ../shared/vectors from the project root.
var vectorsDir = filepath.Join("..", "..", "shared", "vectors")

// loadMainnetBlocks reads blocks1-256.dat.bz2 (Core blk file framing).
func loadMainnetBlocks(t testing.TB) []*wire.MsgBlock {
	f, err := os.Open(filepath.Join(vectorsDir, "mainnet", "blocks1-256.dat.bz2"))
	if err != nil {
		t.Skip("../shared/vectors not present")
	}
	defer f.Close()
	r := database.NewBlockFileReader(bzip2.NewReader(f), wire.MainNet)
	var out []*wire.MsgBlock
	for {
		raw, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		blk := new(wire.MsgBlock)
		if _, err := blk.Decode(raw); err != nil {
			t.Fatal(err)
		}
		out = append(out, blk)
	}
	return out
}

// TestMainnetBlocks connects the first real mainnet blocks with mainnet
// parameters: real 2009 difficulty, P2PK coinbases and the first spends.
func TestMainnetBlocks(t *testing.T) {
	blocks := loadMainnetBlocks(t)
	if len(blocks) < 255 {
		t.Fatalf("only %d blocks", len(blocks))
	}
	tc := newTestChain(t, params(t, "main"), nil)
	for i, blk := range blocks {
		res, err := tc.chain.ProcessBlock(blk)
		if err != nil {
			t.Fatalf("block %d: %v", i+1, err)
		}
		if !res.MainChain {
			t.Fatalf("block %d not on the main chain (%+v)", i+1, res)
		}
	}
	if h := tc.chain.BestSnapshot().Height; int(h) != len(blocks) {
		t.Fatalf("height %d, want %d", h, len(blocks))
	}
	// Headers 1-255 again through ProcessHeaders are known already.
	hdrs := make([]wire.BlockHeader, 0, len(blocks))
	for _, blk := range blocks {
		hdrs = append(hdrs, blk.Header)
	}
	if _, h, err := tc.chain.ProcessHeaders(hdrs); err != nil || int(h) != len(blocks) {
		t.Fatalf("headers: %d %v", h, err)
	}
	// The tip survives a restart.
	tc.reopen()
	if h := tc.chain.BestSnapshot().Height; int(h) != len(blocks) {
		t.Fatalf("after reopen height %d", h)
	}
}
