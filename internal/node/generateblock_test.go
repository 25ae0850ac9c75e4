package node

import (
	"strings"
	"testing"
)

// TestGenerateBlockOrderAndDetail: generateblock takes transactions in the
// order given, so a child listed before its parent fails, with Core's
// message including the detail (reason, then which transaction).
func TestGenerateBlockOrderAndDetail(t *testing.T) {
	n, w := mempoolNode(t, 101)
	parent, coins := w.split(n.coinbaseCoin(t, 1), 1, 1000)
	child, _ := w.split(coins[0], 1, 1000)
	const addr = "mjTkW3DjgyZck4KbiRusZsqTgaYTxdSz6z"
	_, rerr := n.rpcCall(t, "generateblock", addr, []string{txHex(child), txHex(parent)})
	want := "TestBlockValidity failed: bad-txns-inputs-missingorspent, CheckTxInputs: inputs missing/spent in transaction " + child.TxHash().String()
	if rerr == nil || rerr.Code != -25 || !strings.Contains(rerr.Message, want) {
		t.Fatalf("child before parent: %+v, want -25 %q", rerr, want)
	}
	if _, rerr := n.rpcCall(t, "generateblock", addr, []string{txHex(parent), txHex(child)}); rerr != nil {
		t.Fatalf("parent then child: %+v", rerr)
	}
}
