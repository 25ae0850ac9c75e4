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
