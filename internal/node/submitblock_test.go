package node

import (
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/btcnode/btcd/wire"
)

// TestSubmitBlockMutatedDuplicateTxs: submitblock of a CVE-2012-2459
// mutation of a valid block (the last transaction repeated, so the merkle
// root and the hash stay the same) answers "bad-txns-duplicate", as Core,
// and does not mark the hash invalid: the real block is accepted next.
func TestSubmitBlockMutatedDuplicateTxs(t *testing.T) {
	n := newTestNode(t)
	n.mine(t, 102)
	var txs []string
	for h := int32(1); h <= 2; h++ {
		op, v := n.coinbaseOut(t, h)
		txs = append(txs, hex.EncodeToString(opTrueSpend(op, v, 1, 1_000).AppendTo(nil, true)))
	}
	const addr = "mjTkW3DjgyZck4KbiRusZsqTgaYTxdSz6z"
	var gb struct {
		Hex string `json:"hex"`
	}
	if err := json.Unmarshal(n.must(t, "generateblock", addr, txs, false), &gb); err != nil {
		t.Fatal(err)
	}
	raw, err := hex.DecodeString(gb.Hex)
	if err != nil {
		t.Fatal(err)
	}
	var blk wire.MsgBlock
	if _, err := blk.Decode(raw); err != nil {
		t.Fatal(err)
	}
	hash := blk.BlockHash()
	mut := blk
	mut.Transactions = append(append([]*wire.MsgTx(nil), blk.Transactions...), blk.Transactions[2])
	mut.ClearHashCache()
	if root, _ := mut.MerkleRoot(); root != blk.Header.MerkleRoot || mut.BlockHash() != hash {
		t.Fatal("the mutation changed the merkle root or the hash")
	}
	// With the header known, a failure that marked the hash would stick.
	n.must(t, "submitheader", hex.EncodeToString(blk.Header.AppendTo(nil)))
	if got := unquote(t, n.must(t, "submitblock", hex.EncodeToString(mut.Bytes()))); got != "bad-txns-duplicate" {
		t.Fatalf("submitblock of the mutated block: %q, want bad-txns-duplicate", got)
	}
	if r := n.must(t, "submitblock", gb.Hex); string(r) != "null" {
		t.Fatalf("submitblock of the real block after its mutation: %s", r)
	}
	if tip := n.s.chain.BestSnapshot().Hash; tip != hash {
		t.Fatalf("tip %v, want the real block %v", tip, hash)
	}
}
