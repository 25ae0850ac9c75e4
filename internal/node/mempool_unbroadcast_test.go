package node

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

// unbroadcastState returns getmempoolinfo's unbroadcastcount and
// getmempoolentry's unbroadcast for txid.
func unbroadcastState(t *testing.T, n *testNode, txid wire.Hash) (count int64, entry bool) {
	t.Helper()
	var info struct {
		Unbroadcast int64 `json:"unbroadcastcount"`
	}
	if err := json.Unmarshal(n.must(t, "getmempoolinfo"), &info); err != nil {
		t.Fatal(err)
	}
	var e struct {
		Unbroadcast bool `json:"unbroadcast"`
	}
	if err := json.Unmarshal(n.must(t, "getmempoolentry", txid.String()), &e); err != nil {
		t.Fatal(err)
	}
	return info.Unbroadcast, e.Unbroadcast
}

// TestSendRawTransactionUnbroadcast: a transaction submitted while the
// node has no peers stays unbroadcast, is announced again by the
// scheduler once a peer is there, and leaves the set when the peer asks
// for it. Submitting it again does not put it back.
func TestSendRawTransactionUnbroadcast(t *testing.T) {
	n, w := mempoolNode(t, 101, "--whitelist=127.0.0.1")
	cb := n.coinbaseCoin(t, 1)
	tx := w.build([]mpCoin{cb}, []wire.TxOut{{Value: cb.value - 10_000, PkScript: w.pkScript}})
	n.mustSend(t, tx)
	if count, entry := unbroadcastState(t, n, tx.TxHash()); count != 1 || !entry {
		t.Fatalf("after sendrawtransaction: unbroadcastcount %d, unbroadcast %v", count, entry)
	}

	p := dialRelayPeer(t, n)
	// The peer reaches the relay set a moment after its handshake; until
	// then a re-announcement has no one to go to, so the scheduler is
	// moved on again until one arrives.
	announced := false
	for deadline := time.Now().Add(30 * time.Second); !announced && time.Now().Before(deadline); {
		n.must(t, "mockscheduler", 15*60)
		announced = p.waitInv(tx.WitnessHash(), time.Second)
	}
	if !announced {
		t.Fatal("unbroadcast transaction not announced again")
	}
	p.send(t, &wire.MsgGetData{InvList: []wire.InvVect{{Type: wire.InvTypeWTx, Hash: tx.WitnessHash()}}})
	waitFor(t, 30*time.Second, "the requested transaction to leave the unbroadcast set", func() bool {
		count, entry := unbroadcastState(t, n, tx.TxHash())
		return count == 0 && !entry
	})

	n.mustSend(t, tx)
	if count, entry := unbroadcastState(t, n, tx.TxHash()); count != 0 || entry {
		t.Fatalf("resubmitted pool transaction is unbroadcast again (%d, %v)", count, entry)
	}
}

// TestSendRawTransactionReannounces: sendrawtransaction of a transaction
// already in the pool announces the pool's copy to peers that lack it, as
// Core's BroadcastTransaction does.
func TestSendRawTransactionReannounces(t *testing.T) {
	n, w := mempoolNode(t, 101, "--whitelist=127.0.0.1")
	cb := n.coinbaseCoin(t, 1)
	tx := w.build([]mpCoin{cb}, []wire.TxOut{{Value: cb.value - 10_000, PkScript: w.pkScript}})
	n.mustSend(t, tx)
	p := dialRelayPeer(t, n) // connected after the first announcement
	waitFor(t, 30*time.Second, "the peer to register", func() bool { return len(n.s.sync.Peers()) == 1 })
	n.mustSend(t, tx)
	if !p.waitInv(tx.WitnessHash(), 30*time.Second) {
		t.Fatal("pool transaction not announced again by sendrawtransaction")
	}
}
