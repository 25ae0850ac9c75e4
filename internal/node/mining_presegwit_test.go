package node

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestMiningBeforeSegwit: on a chain where segwit activates late,
// generatetoaddress mines blocks without witness data until activation
// and with the coinbase's witness nonce from then on; the commitment
// output is there throughout, as in Core's blocks. (The block assembler
// used to add the nonce always, and the node refused its own blocks with
// unexpected-witness.)
func TestMiningBeforeSegwit(t *testing.T) {
	n := newTestNode(t, "--testactivationheight=segwit@5")
	const addr = "mjTkW3DjgyZck4KbiRusZsqTgaYTxdSz6z"
	for h := 1; h <= 6; h++ {
		_, rerr := n.rpcCall(t, "generatetoaddress", 1, addr)
		if rerr != nil {
			t.Fatalf("height %d: generatetoaddress: %d %s", h, rerr.Code, rerr.Message)
		}
		tip := n.s.chain.BestSnapshot()
		blk, err := n.s.chain.BlockByHash(&tip.Hash)
		if err != nil {
			t.Fatal(err)
		}
		cb := blk.Transactions[0]
		hasCommit := false
		for _, out := range cb.TxOut {
			if len(out.PkScript) >= 38 && bytes.HasPrefix(out.PkScript, []byte{0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed}) {
				hasCommit = true
			}
		}
		segwit := int32(h) >= 5
		if !hasCommit || cb.HasWitness() != segwit {
			t.Errorf("height %d: commitment %v, coinbase witness %v; want true, %v", h, hasCommit, cb.HasWitness(), segwit)
		}
	}
}

// TestWitnessRevalidationAfterActivationMoved: blocks stored while segwit
// did not apply at their height stop start-up once the activation height
// moves below them (Core's NeedsRedownload, with its message), and a
// -reindex under the new height keeps only the blocks valid under it: the
// pre-segwit coinbases carry a commitment without a witness nonce, so the
// first block at the new height fails bad-witness-nonce-size.
func TestWitnessRevalidationAfterActivationMoved(t *testing.T) {
	n := newTestNode(t, "--testactivationheight=segwit@10")
	n.mine(t, 8)
	dir := n.dir
	n.s.Stop()
	args := []string{"--regtest", "--appdata=" + dir, "--datadir=" + filepath.Join(dir, "data"),
		"--nolisten", "--norpc", "--testactivationheight=segwit@5"}

	cfg, err := loadConfig(args)
	if err != nil {
		t.Fatal(err)
	}
	s, err := newServer(cfg)
	if err == nil {
		s.Stop()
		t.Fatal("start-up accepted blocks stored without segwit validation")
	}
	want := ": Witness data for blocks after height 5 requires validation. Please restart with -reindex..\n" +
		"Please restart with -reindex or -reindex-chainstate to recover."
	if got := ErrorLine(err); got != want {
		t.Fatalf("start-up error %q, want %q", got, want)
	}

	logged := captureLog(t)
	s = startServer(t, append(args, "--reindex")...)
	defer s.Stop()
	waitFor(t, 30e9, "reindex", func() bool { return strings.Contains(logged(), "Reindexing finished") })
	if h := s.chain.BestSnapshot().Height; h != 4 {
		t.Fatalf("reindexed to height %d, want 4", h)
	}
}

// TestMiningBeforeSegwitSkipsWitnessTxs: before segwit activates, a
// mempool transaction with witness data is left out of mined blocks
// (it would make the block unexpected-witness); from activation it is
// mined.
func TestMiningBeforeSegwitSkipsWitnessTxs(t *testing.T) {
	n := newTestNode(t, "--testactivationheight=segwit@105")
	n.mine(t, 101)
	op, v := n.coinbaseOut(t, 1)
	tx := opTrueSpend(op, v, 1, 1_000)
	if _, err := n.s.pool.AcceptTransaction(tx, mempoolOpts()); err != nil {
		t.Skipf("the mempool refuses witness spends before segwit: %v", err)
	}
	for h := int32(102); h <= 105; h++ {
		n.mine(t, 1)
		tip := n.s.chain.BestSnapshot()
		blk, err := n.s.chain.BlockByHash(&tip.Hash)
		if err != nil {
			t.Fatal(err)
		}
		if mined := len(blk.Transactions) > 1; mined != (h >= 105) {
			t.Fatalf("height %d: witness transaction mined %v", h, mined)
		}
	}
}
