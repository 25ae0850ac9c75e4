package node

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btcnode/btcd/database"
)

// TestLoadBlockAndReindex: a node imports another node's blk file with
// --loadblock, and rebuilds its own chain state with --reindex from its
// own files, which --blocksxor obfuscates.
func TestLoadBlockAndReindex(t *testing.T) {
	a := newTestNode(t)
	a.mine(t, 120)
	a.addTxs(t, 1, 5)
	a.mine(t, 5)
	want := a.s.chain.BestSnapshot()
	outs, amount, hash := utxoStats(t, a)
	blk := filepath.Join(a.s.cfg.DataDir, "blocks", "blk00000.dat")

	d := newTestNode(t, "--loadblock="+blk, "--blocksxor")
	if d.s.bdb.XorKey() == ([database.XorKeySize]byte{}) {
		t.Fatal("--blocksxor on a fresh node left the files plain")
	}
	waitFor(t, 60e9, "import", func() bool { return d.s.chain.BestSnapshot().Hash == want.Hash })
	if o, v, h := utxoStats(t, d); o != outs || v != amount || h != hash {
		t.Fatalf("imported UTXO set differs")
	}

	// Restart d with --reindex: same tip and UTXO set from its own files,
	// which are read where they are and not written, and Core's words
	// when it is done.
	logged := captureLog(t)
	dataDir := d.dir
	ownBlk := filepath.Join(d.s.cfg.DataDir, "blocks", "blk00000.dat")
	d.s.Stop()
	before, err := os.ReadFile(ownBlk)
	if err != nil {
		t.Fatal(err)
	}
	s := startServer(t, "--regtest", "--appdata="+dataDir, "--datadir="+filepath.Join(dataDir, "data"),
		"--nolisten", "--norpc", "--reindex", "--blocksxor")
	defer s.Stop()
	r := &testNode{s: s}
	waitFor(t, 60e9, "reindex", func() bool { return s.chain.BestSnapshot().Hash == want.Hash })
	if o, v, h := utxoStats(t, r); o != outs || v != amount || h != hash {
		t.Fatalf("reindexed UTXO set differs")
	}
	waitFor(t, 10e9, "Reindexing finished", func() bool { return strings.Contains(logged(), "Reindexing finished") })
	after, err := os.ReadFile(ownBlk)
	if err != nil || !bytes.Equal(before, after) {
		t.Errorf("the reindex rewrote blk00000.dat (%d bytes before, %d after, %v)", len(before), len(after), err)
	}
	if _, err := os.Stat(filepath.Join(s.cfg.DataDir, reindexDirName)); err == nil {
		t.Errorf("the block files were moved to %s", reindexDirName)
	}
}
