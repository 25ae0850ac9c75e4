package node

import (
	"bytes"
	"testing"
)

// TestMiningBeforeSegwit: on a chain where segwit activates late,
// generatetoaddress mines blocks without witness data or a witness
// commitment until activation, and with a commitment from then on. (The
// block assembler used to add the commitment always, and the node refused
// its own blocks with unexpected-witness.)
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
		if hasCommit != segwit || cb.HasWitness() != segwit {
			t.Errorf("height %d: commitment %v, coinbase witness %v; want %v", h, hasCommit, cb.HasWitness(), segwit)
		}
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
