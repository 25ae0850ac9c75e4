package node

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestBlockMaxWeight: --blockmaxweight bounds the blocks the node
// assembles, leaving what does not fit in the mempool (Core's
// -blockmaxweight, used by tests to fill blocks quickly).
func TestBlockMaxWeight(t *testing.T) {
	const limit = 12000
	n, w := mempoolNode(t, 120, "--blockmaxweight=12000")
	for h := int32(1); h <= 15; h++ {
		tx, _ := w.split(n.coinbaseCoin(t, h), 2, 2000)
		if msg := n.sendTx(t, tx); msg != "" {
			t.Fatal(msg)
		}
	}
	hashes := n.mine(t, 1)
	blk, err := n.s.chain.BlockByHash(&hashes[0])
	if err != nil {
		t.Fatal(err)
	}
	weight := 0
	for _, tx := range blk.Transactions {
		weight += tx.SerializeSizeStripped()*3 + tx.SerializeSize()
	}
	if weight > limit || len(blk.Transactions) < 2 {
		t.Fatalf("block of %d transactions weighs %d, limit %d", len(blk.Transactions), weight, limit)
	}
	if left := n.s.pool.Count(); left == 0 {
		t.Fatal("every transaction fitted under the limit; the test proves nothing")
	}
}

// TestBlockAssemblyOptionErrors pins Core's init errors for the block
// assembler's limits.
func TestBlockAssemblyOptionErrors(t *testing.T) {
	for arg, want := range map[string]string{
		"--blockmaxweight=4000001":      "Specified -blockmaxweight (4000001) exceeds consensus maximum block weight (4000000)",
		"--blockreservedweight=1999":    "Specified -blockreservedweight (1999) is lower than minimum safety value of (2000)",
		"--blockreservedweight=4000001": "Specified -blockreservedweight (4000001) exceeds consensus maximum block weight (4000000)",
		"--blockmintxfee=-1":            "--blockmintxfee",
	} {
		_, err := loadConfig([]string{"--regtest", "--appdata=" + t.TempDir(), arg})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", arg, err, want)
		}
	}
}

// TestLongPollNewBlock: a getblocktemplate long poll on the tip returns
// as soon as a block is mined, with a template on the new tip; one naming
// an old tip returns at once.
func TestLongPollNewBlock(t *testing.T) {
	n := newTestNode(t)
	n.mine(t, 1)
	var tpl struct {
		LongPollID        string `json:"longpollid"`
		PreviousBlockHash string `json:"previousblockhash"`
	}
	if err := json.Unmarshal(n.must(t, "getblocktemplate", map[string]any{"rules": []string{"segwit"}}), &tpl); err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 1)
	go func() {
		res, rerr := n.rpcCall(t, "getblocktemplate", map[string]any{"rules": []string{"segwit"}, "longpollid": tpl.LongPollID})
		var next struct {
			PreviousBlockHash string `json:"previousblockhash"`
		}
		if rerr != nil || json.Unmarshal(res, &next) != nil {
			done <- "error"
			return
		}
		done <- next.PreviousBlockHash
	}()
	select {
	case <-done:
		t.Fatal("the long poll returned before anything changed")
	case <-time.After(200 * time.Millisecond):
	}
	tip := n.mine(t, 1)[0]
	select {
	case prev := <-done:
		if prev != tip.String() {
			t.Fatalf("template on %s, want the new tip %s", prev, tip)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the long poll did not return on a new block")
	}
	start := time.Now()
	n.must(t, "getblocktemplate", map[string]any{"rules": []string{"segwit"}, "longpollid": tpl.LongPollID})
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("a long poll on an old tip waited %v", d)
	}
}
