package node

import (
	"encoding/json"
	"testing"

	"github.com/btcnode/btcd/wire"
)

// TestTxOutProofHeaderOnlyBlock: naming a block whose header is known but
// whose data is not gives Core's -1 "Block not available (not fully
// downloaded)" rather than a disk read error.
func TestTxOutProofHeaderOnlyBlock(t *testing.T) {
	n := newTestNode(t)
	hashes := n.mine(t, 2)
	var blk struct{ Tx []string }
	json.Unmarshal(n.must(t, "getblock", hashes[1].String()), &blk)
	var gb struct{ Hash, Hex string }
	json.Unmarshal(n.must(t, "generateblock", "raw(55)", []string{}, false), &gb)
	n.must(t, "submitheader", gb.Hex)
	_, rerr := n.rpcCall(t, "gettxoutproof", blk.Tx, gb.Hash)
	if rerr == nil || rerr.Code != -1 || rerr.Message != "Block not available (not fully downloaded)" {
		t.Fatalf("got %+v", rerr)
	}
}

// TestTxOutProofAnyUnspentTxid: without a txindex or block hash, the
// block is found through an unspent output of any of the txids, whatever
// their order (Core's lookup); it used to look at the first txid only.
func TestTxOutProofAnyUnspentTxid(t *testing.T) {
	n, w := mempoolNode(t, 101)
	parent, coins := w.split(n.coinbaseCoin(t, 1), 1, 1000)
	child, _ := w.split(coins[0], 1, 1000)
	for _, tx := range []*wire.MsgTx{parent, child} {
		if msg := n.sendTx(t, tx); msg != "" {
			t.Fatal(msg)
		}
	}
	n.mine(t, 1)
	// parent is fully spent; only child has an unspent output.
	for _, ids := range [][]string{{parent.TxHash().String(), child.TxHash().String()}, {child.TxHash().String(), parent.TxHash().String()}} {
		if _, rerr := n.rpcCall(t, "gettxoutproof", ids); rerr != nil {
			t.Errorf("gettxoutproof %v: %+v", ids, rerr)
		}
	}
}
