package node

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

// These tests run the mempool inside a real regtest node with really
// signed P2WPKH transactions: the chain adapter, the txscript verifier
// with the shared signature cache, the RPCs and the P2P relay.

// TestMempoolPolicyReasons submits one accepted transaction and one
// violation of each policy rule, checking Core's reject reason.
func TestMempoolPolicyReasons(t *testing.T) {
	n, w := mempoolNode(t, 110)
	tip := n.s.chain.BestSnapshot().Height // 110: coinbases 1..11 are mature
	cb := n.coinbaseCoin(t, 1)
	pay := func(v int64) []wire.TxOut { return []wire.TxOut{{Value: v, PkScript: w.pkScript}} }

	good := w.build([]mpCoin{cb}, pay(cb.value-10_000))
	if r := n.testAccept(t, good); r != "" {
		t.Fatalf("valid transaction rejected: %s", r)
	}
	n.mustSend(t, good)
	if !n.s.pool.Has(good.TxHash()) {
		t.Fatal("accepted transaction is not in the pool")
	}
	wantReason(t, "resubmission", n.testAccept(t, good), "txn-already-in-mempool")

	in := n.coinbaseCoin(t, 2)
	cases := []struct {
		name, want string
		tx         func() *wire.MsgTx
	}{
		{"dust", "dust", func() *wire.MsgTx {
			return w.build([]mpCoin{in}, []wire.TxOut{{Value: in.value - 10_000, PkScript: w.pkScript}, {Value: 100, PkScript: w.pkScript}})
		}},
		{"fee below min relay", "min relay fee not met", func() *wire.MsgTx { return w.build([]mpCoin{in}, pay(in.value-1)) }},
		{"nonstandard output", "scriptpubkey", func() *wire.MsgTx {
			return w.build([]mpCoin{in}, []wire.TxOut{{Value: in.value - 10_000, PkScript: []byte{0x51, 0x51, 0x93}}})
		}},
		{"oversize", "tx-size", func() *wire.MsgTx {
			outs := make([]wire.TxOut, 13_000)
			for i := range outs {
				outs[i] = wire.TxOut{Value: 300_000, PkScript: w.pkScript}
			}
			return w.build([]mpCoin{in}, outs)
		}},
		{"scriptsig not push-only", "scriptsig-not-pushonly", func() *wire.MsgTx {
			tx := w.build([]mpCoin{in}, pay(in.value-10_000))
			tx.TxIn[0].SignatureScript = []byte{0x61}
			return tx
		}},
		{"non-final locktime", "non-final", func() *wire.MsgTx {
			tx := &wire.MsgTx{Version: 2, LockTime: uint32(tip + 10), TxOut: pay(in.value - 10_000),
				TxIn: []wire.TxIn{{PreviousOutPoint: in.op, Sequence: 0}}}
			w.sign(tx, []mpCoin{in})
			return tx
		}},
		{"BIP68 relative lock", "non-BIP68-final", func() *wire.MsgTx {
			tx := &wire.MsgTx{Version: 2, TxOut: pay(in.value - 10_000),
				TxIn: []wire.TxIn{{PreviousOutPoint: in.op, Sequence: 500}}}
			w.sign(tx, []mpCoin{in})
			return tx
		}},
		{"immature coinbase", "bad-txns-premature-spend-of-coinbase", func() *wire.MsgTx {
			im := n.coinbaseCoin(t, tip-5)
			return w.build([]mpCoin{im}, pay(im.value-10_000))
		}},
		{"bad signature", "mandatory-script-verify-flag-failed (", func() *wire.MsgTx {
			tx := w.build([]mpCoin{in}, pay(in.value-10_000))
			tx.TxOut[0].Value-- // invalidates the signature
			return tx
		}},
		{"nonstandard version", "version", func() *wire.MsgTx {
			tx := &wire.MsgTx{Version: 4, TxOut: pay(in.value - 10_000),
				TxIn: []wire.TxIn{{PreviousOutPoint: in.op, Sequence: wire.MaxTxInSequenceNum}}}
			w.sign(tx, []mpCoin{in})
			return tx
		}},
		{"too small", "tx-size-small", func() *wire.MsgTx {
			return w.build([]mpCoin{in}, []wire.TxOut{{Value: 0, PkScript: []byte{0x6a}}})
		}},
		{"outputs above inputs", "bad-txns-in-belowout", func() *wire.MsgTx { return w.build([]mpCoin{in}, pay(in.value+1)) }},
		{"fee above maxfeerate", "max-fee-exceeded", func() *wire.MsgTx { return w.build([]mpCoin{in}, pay(in.value/2)) }},
		{"conflict with lower fee", "insufficient fee", func() *wire.MsgTx {
			return w.build([]mpCoin{cb}, pay(cb.value-9_000))
		}},
	}
	for _, c := range cases {
		tx := c.tx()
		wantReason(t, c.name+" (testmempoolaccept)", n.testAccept(t, tx), c.want)
		msg := n.sendTx(t, tx)
		wantReason(t, c.name+" (sendrawtransaction)", msg, c.want)
	}
	missing := w.build([]mpCoin{{op: wire.OutPoint{Hash: wire.Hash{1}, Index: 0}, value: 1e8}}, pay(1e8-10_000))
	wantReason(t, "missing input", n.sendTx(t, missing), "bad-txns-inputs-missingorspent")
	if c := n.s.pool.Count(); c != 1 {
		t.Fatalf("pool holds %d transactions, want only the valid one", c)
	}
}

// TestMempoolReplaceByFee: a conflicting transaction paying more replaces
// the original (full RBF, no signalling) and the original is gone.
func TestMempoolReplaceByFee(t *testing.T) {
	n, w := mempoolNode(t, 101)
	cb := n.coinbaseCoin(t, 1)
	orig := w.build([]mpCoin{cb}, []wire.TxOut{{Value: cb.value - 1_000, PkScript: w.pkScript}})
	n.mustSend(t, orig)
	child := w.build(txCoins(orig), []wire.TxOut{{Value: cb.value - 2_000, PkScript: w.pkScript}})
	n.mustSend(t, child)
	repl := w.build([]mpCoin{cb}, []wire.TxOut{{Value: cb.value - 5_000, PkScript: w.pkScript}})
	n.mustSend(t, repl)
	if n.s.pool.Has(orig.TxHash()) || n.s.pool.Has(child.TxHash()) {
		t.Fatal("replaced transaction or its child still in the pool")
	}
	if !n.s.pool.Has(repl.TxHash()) {
		t.Fatal("replacement not in the pool")
	}
	res, rerr := n.rpcCall(t, "getmempoolentry", orig.TxHash().String())
	if rerr == nil {
		t.Fatalf("getmempoolentry of the replaced tx succeeded: %s", res)
	}
}

// TestMempoolChainLimit: a chain of 25 unconfirmed transactions is
// accepted, the 26th is too-long-mempool-chain.
func TestMempoolChainLimit(t *testing.T) {
	n, w := mempoolNode(t, 101)
	c := n.coinbaseCoin(t, 1)
	for i := 1; i <= 26; i++ {
		tx := w.build([]mpCoin{c}, []wire.TxOut{{Value: c.value - 1_000, PkScript: w.pkScript}})
		msg := n.sendTx(t, tx)
		if i <= 25 && msg != "" {
			t.Fatalf("chain tx %d rejected: %s", i, msg)
		}
		if i == 26 {
			wantReason(t, "26th in chain", msg, "too-long-mempool-chain")
		}
		c = txCoins(tx)[0]
	}
}

// TestMempoolReorgReAdd: invalidating the block that confirmed a
// transaction puts it back in the pool, and a coinbase spend that the
// shorter chain makes immature is removed; reconsidering the block
// confirms the transaction again and removes it.
func TestMempoolReorgReAdd(t *testing.T) {
	n, w := mempoolNode(t, 110)
	a := n.coinbaseCoin(t, 1)
	txA := w.build([]mpCoin{a}, []wire.TxOut{{Value: a.value - 10_000, PkScript: w.pkScript}})
	n.mustSend(t, txA)
	hs, err := n.s.generate(1, w.pkScript, 0, nil, true) // height 111
	if err != nil {
		t.Fatal(err)
	}
	if n.s.pool.Has(txA.TxHash()) {
		t.Fatal("mined transaction still in the pool")
	}
	// At tip 111 the coinbase of height 12 is just mature (111+1-12 = 100).
	b := n.coinbaseCoin(t, 12)
	txB := w.build([]mpCoin{b}, []wire.TxOut{{Value: b.value - 10_000, PkScript: w.pkScript}})
	n.mustSend(t, txB)
	n.must(t, "invalidateblock", hs[0].String())
	if !n.s.pool.Has(txA.TxHash()) {
		t.Fatal("transaction of the disconnected block not re-added")
	}
	if n.s.pool.Has(txB.TxHash()) {
		t.Fatal("coinbase spend immature after the reorg is still in the pool")
	}
	wantReason(t, "immature after reorg", n.sendTx(t, txB), "bad-txns-premature-spend-of-coinbase")
	// Reconnecting the block confirms txA again: it leaves the pool.
	n.must(t, "reconsiderblock", hs[0].String())
	if n.s.chain.BestSnapshot().Hash != hs[0] {
		t.Fatal("reconsiderblock did not restore the tip")
	}
	if n.s.pool.Has(txA.TxHash()) {
		t.Fatal("transaction confirmed again is still in the pool")
	}
	n.mustSend(t, txB) // mature again
}

// TestMempoolOrphanResolved: a child relayed before its parent is held as
// an orphan (and its parent requested), then accepted with the parent.
func TestMempoolOrphanResolved(t *testing.T) {
	n, w := mempoolNode(t, 101)
	cb := n.coinbaseCoin(t, 1)
	parent := w.build([]mpCoin{cb}, []wire.TxOut{{Value: cb.value - 10_000, PkScript: w.pkScript}})
	child := w.build(txCoins(parent), []wire.TxOut{{Value: cb.value - 20_000, PkScript: w.pkScript}})
	p := dialRelayPeer(t, n)
	p.send(t, child)
	waitFor(t, 30*time.Second, "orphan", func() bool { return n.s.pool.HaveOrphan(child.TxHash()) })
	if n.s.pool.Has(child.TxHash()) {
		t.Fatal("orphan accepted without its parent")
	}
	// The node asks the sender for the missing parent.
	asked := false
	for deadline := time.After(10 * time.Second); !asked; {
		select {
		case m := <-p.msgs:
			if gd, ok := m.(*wire.MsgGetData); ok {
				for _, iv := range gd.InvList {
					asked = asked || iv.Hash == parent.TxHash()
				}
			}
		case <-deadline:
			t.Fatal("node did not request the orphan's parent")
		}
	}
	p.send(t, parent)
	waitFor(t, 30*time.Second, "parent and child accepted", func() bool {
		return n.s.pool.Has(parent.TxHash()) && n.s.pool.Has(child.TxHash())
	})
	if n.s.pool.HaveOrphan(child.TxHash()) {
		t.Fatal("resolved orphan still in the orphan pool")
	}
}

// TestMempoolRelayBothWays: two nodes on loopback relay a transaction
// A→B and another B→A, announcing by wtxid.
func TestMempoolRelayBothWays(t *testing.T) {
	a, w := mempoolNode(t, 102)
	b := newTestNode(t)
	if err := b.s.connect(a.s.p2pAddr(), true); err != nil {
		t.Fatal(err)
	}
	sameTip(t, 30*time.Second, a, b)
	for _, p := range b.s.sync.Peers() {
		if !p.WantsWtxid() {
			t.Error("peers did not negotiate wtxidrelay")
		}
	}
	c1, c2 := a.coinbaseCoin(t, 1), a.coinbaseCoin(t, 2)
	tx1 := w.build([]mpCoin{c1}, []wire.TxOut{{Value: c1.value - 10_000, PkScript: w.pkScript}})
	tx2 := w.build([]mpCoin{c2}, []wire.TxOut{{Value: c2.value - 10_000, PkScript: w.pkScript}})
	a.mustSend(t, tx1)
	b.mustSend(t, tx2)
	waitFor(t, 40*time.Second, "A→B relay", func() bool { return b.s.pool.Has(tx1.TxHash()) })
	waitFor(t, 40*time.Second, "B→A relay", func() bool { return a.s.pool.Has(tx2.TxHash()) })
}

// TestMempoolEvictionSmallMaxMempool: with --maxmempool=5 a pool filled
// with ~95 kB transactions evicts the lowest fee rates and raises
// mempoolminfee above minrelaytxfee; a transaction below it is "mempool
// min fee not met".
func TestMempoolEvictionSmallMaxMempool(t *testing.T) {
	n, w := mempoolNode(t, 101, "--maxmempool=5")
	const big = 80
	fan, coins := w.split(n.coinbaseCoin(t, 1), big+1, 100_000)
	n.mustSend(t, fan)
	n.mine(t, 1)
	var first *wire.MsgTx
	for i := 0; i < big; i++ {
		outs := make([]wire.TxOut, 2_900)
		fee := int64(100_000 + 10_000*i) // rising fee rate
		for j := range outs {
			outs[j] = wire.TxOut{Value: (coins[i].value - fee) / int64(len(outs)), PkScript: w.pkScript}
		}
		tx := w.build([]mpCoin{coins[i]}, outs)
		if i == 0 {
			first = tx
		}
		if msg := n.sendTx(t, tx); msg != "" {
			t.Logf("big tx %d: %s", i, msg)
		}
	}
	if n.s.pool.Usage() > 5_000_000 {
		t.Fatalf("pool usage %d above 5 MB", n.s.pool.Usage())
	}
	if n.s.pool.Has(first.TxHash()) {
		t.Fatal("lowest fee rate transaction not evicted")
	}
	var info struct {
		Size       int         `json:"size"`
		Usage      int64       `json:"usage"`
		MaxMempool int64       `json:"maxmempool"`
		MinFee     json.Number `json:"mempoolminfee"`
		MinRelay   json.Number `json:"minrelaytxfee"`
	}
	if err := json.Unmarshal(n.must(t, "getmempoolinfo"), &info); err != nil {
		t.Fatal(err)
	}
	minFee, _ := strconv.ParseFloat(string(info.MinFee), 64)
	minRelay, _ := strconv.ParseFloat(string(info.MinRelay), 64)
	t.Logf("getmempoolinfo: size %d usage %d maxmempool %d mempoolminfee %s minrelaytxfee %s",
		info.Size, info.Usage, info.MaxMempool, info.MinFee, info.MinRelay)
	if info.MaxMempool != 5_000_000 || info.Size == 0 || info.Size >= big {
		t.Fatalf("getmempoolinfo: %+v", info)
	}
	if minFee <= minRelay {
		t.Fatalf("mempoolminfee %v not raised above minrelaytxfee %v", minFee, minRelay)
	}
	// Above the relay floor, below the raised mempool minimum.
	low := w.build([]mpCoin{coins[big]}, []wire.TxOut{{Value: coins[big].value - 300, PkScript: w.pkScript}})
	wantReason(t, "below mempoolminfee", n.sendTx(t, low), "mempool min fee not met")
}

// TestMempoolPersistSignedRestart: with --persistmempool, signed
// transactions (a parent-child pair and an independent one) are saved on
// shutdown, reloaded (and re-verified) on restart, and then mined.
func TestMempoolPersistSignedRestart(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--regtest", "--appdata=" + dir, "--datadir=" + dir, "--nolisten", "--norpc", "--persistmempool"}
	start := func() *server {
		s := startServer(t, args...)
		// mempool.dat is read once block import is done.
		waitFor(t, 10*time.Second, "mempool loaded", s.mempoolLoaded.Load)
		return s
	}
	s := start()
	n := &testNode{s: s}
	w := newMPWallet()
	if _, err := s.generate(102, w.pkScript, 0, nil, false); err != nil {
		t.Fatal(err)
	}
	c1, c2 := n.coinbaseCoin(t, 1), n.coinbaseCoin(t, 2)
	parent := w.build([]mpCoin{c1}, []wire.TxOut{{Value: c1.value - 10_000, PkScript: w.pkScript}})
	child := w.build(txCoins(parent), []wire.TxOut{{Value: c1.value - 20_000, PkScript: w.pkScript}})
	other := w.build([]mpCoin{c2}, []wire.TxOut{{Value: c2.value - 10_000, PkScript: w.pkScript}})
	for _, tx := range []*wire.MsgTx{parent, child, other} {
		if _, err := s.pool.AcceptTransaction(tx, mempoolOpts()); err != nil {
			t.Fatal(err)
		}
	}
	s.Stop()

	s = start()
	defer s.Stop()
	for _, tx := range []*wire.MsgTx{parent, child, other} {
		if !s.pool.Has(tx.TxHash()) {
			t.Fatalf("%v not reloaded (pool has %d)", tx.TxHash(), s.pool.Count())
		}
	}
	if _, err := s.generate(1, w.pkScript, 0, nil, true); err != nil {
		t.Fatal(err)
	}
	if c := s.pool.Count(); c != 0 {
		t.Fatalf("%d transactions left after mining the reloaded pool", c)
	}
}

// TestMempoolMissingInputsTestAccept: testmempoolaccept words a spend of
// an unknown output "missing-inputs" as Core does.
func TestMempoolMissingInputsTestAccept(t *testing.T) {
	n, w := mempoolNode(t, 1)
	tx := w.build([]mpCoin{{op: wire.OutPoint{Hash: wire.Hash{7}}, value: 1e8}}, []wire.TxOut{{Value: 1e8 - 10_000, PkScript: w.pkScript}})
	if got := n.testAccept(t, tx); got != "missing-inputs" {
		t.Fatalf("reject-reason %q, want missing-inputs", got)
	}
}

// TestMempoolFeeFilterRelay: a peer whose feefilter lies between two
// transactions' fee rates is announced only the richer one; a peer
// without a filter hears both.
func TestMempoolFeeFilterRelay(t *testing.T) {
	n, w := mempoolNode(t, 102)
	filtered := dialRelayPeer(t, n)
	plain := dialRelayPeer(t, n)
	filtered.send(t, &wire.MsgFeeFilter{MinFee: 20_000}) // sat/kvB
	// Both peers must be registered before the transactions are accepted:
	// as in Core, a transaction is queued only for the peers connected
	// when it enters the mempool.
	waitFor(t, 30*time.Second, "both peers registered, feefilter applied", func() bool {
		ps := n.s.sync.Peers()
		filteredSeen := false
		for _, p := range ps {
			filteredSeen = filteredSeen || p.FeeFilter() == 20_000
		}
		return len(ps) == 2 && filteredSeen
	})
	c1, c2 := n.coinbaseCoin(t, 1), n.coinbaseCoin(t, 2)
	cheap := w.build([]mpCoin{c1}, []wire.TxOut{{Value: c1.value - 1_100, PkScript: w.pkScript}}) // ~10 sat/vB
	rich := w.build([]mpCoin{c2}, []wire.TxOut{{Value: c2.value - 5_500, PkScript: w.pkScript}})  // ~50 sat/vB
	n.mustSend(t, cheap)
	n.mustSend(t, rich)
	if !plain.waitInv(cheap.WitnessHash(), 30*time.Second) {
		t.Fatal("unfiltered peer was not announced the cheap transaction")
	}
	seen := invSeen(t, filtered, rich.WitnessHash(), 30*time.Second)
	if seen[cheap.WitnessHash()] || seen[cheap.TxHash()] {
		t.Fatal("transaction below the peer's feefilter was announced")
	}
}

// invSeen collects announced hashes until until is announced.
func invSeen(t *testing.T, p *netPeer, until wire.Hash, timeout time.Duration) map[wire.Hash]bool {
	t.Helper()
	seen := map[wire.Hash]bool{}
	deadline := time.After(timeout)
	for !seen[until] {
		select {
		case m, ok := <-p.msgs:
			if !ok {
				t.Fatal("node disconnected the peer")
			}
			if inv, ok := m.(*wire.MsgInv); ok {
				for _, iv := range inv.InvList {
					seen[iv.Hash] = true
				}
			}
		case <-deadline:
			t.Fatalf("no announcement of %v within %v", until, timeout)
		}
	}
	return seen
}

// TestMempoolBIP35Whitelisted: a whitelisted peer's BIP35 mempool request
// is answered with the pool's transactions that pass its feefilter.
func TestMempoolBIP35Whitelisted(t *testing.T) {
	n, w := mempoolNode(t, 102, "--whitelist=127.0.0.1")
	c1, c2 := n.coinbaseCoin(t, 1), n.coinbaseCoin(t, 2)
	cheap := w.build([]mpCoin{c1}, []wire.TxOut{{Value: c1.value - 1_100, PkScript: w.pkScript}})
	rich := w.build([]mpCoin{c2}, []wire.TxOut{{Value: c2.value - 5_500, PkScript: w.pkScript}})
	n.mustSend(t, cheap)
	n.mustSend(t, rich)
	p := dialRelayPeer(t, n)
	p.send(t, &wire.MsgFeeFilter{MinFee: 20_000})
	p.send(t, &wire.MsgMemPool{})
	seen := invSeen(t, p, rich.WitnessHash(), 30*time.Second)
	if seen[cheap.WitnessHash()] {
		t.Fatal("mempool reply ignored the peer's feefilter")
	}
}

// TestMempoolBIP35NotWhitelisted: Core answers "mempool" only for peers
// with the mempool permission (or with NODE_BLOOM offered, which we never
// do) and disconnects the others.
func TestMempoolBIP35NotWhitelisted(t *testing.T) {
	n, w := mempoolNode(t, 101)
	c1 := n.coinbaseCoin(t, 1)
	tx := w.build([]mpCoin{c1}, []wire.TxOut{{Value: c1.value - 10_000, PkScript: w.pkScript}})
	n.mustSend(t, tx)
	p := dialRelayPeer(t, n)
	p.send(t, &wire.MsgMemPool{})
	if p.waitInv(tx.WitnessHash(), 15*time.Second) {
		t.Fatal("BIP35 mempool answered for a peer that is not whitelisted")
	}
	select {
	case _, ok := <-p.msgs:
		for ok {
			_, ok = <-p.msgs
		}
	case <-time.After(5 * time.Second):
		t.Fatal("non-whitelisted peer neither answered nor disconnected")
	}
}

// TestMempoolTRUC: version 3 (BIP431) topology rules on real spends: a
// non-v3 child of a v3 parent and an oversized v3 child are
// TRUC-violation; a second child replaces the first (sibling eviction)
// when it pays enough.
func TestMempoolTRUC(t *testing.T) {
	n, w := mempoolNode(t, 101)
	cb := n.coinbaseCoin(t, 1)
	v3 := func(ins []mpCoin, outs []wire.TxOut, version uint32) *wire.MsgTx {
		tx := &wire.MsgTx{Version: version, TxOut: outs}
		for _, c := range ins {
			tx.TxIn = append(tx.TxIn, wire.TxIn{PreviousOutPoint: c.op, Sequence: wire.MaxTxInSequenceNum})
		}
		w.sign(tx, ins)
		return tx
	}
	half := (cb.value - 10_000) / 2
	parent := v3([]mpCoin{cb}, []wire.TxOut{{Value: half, PkScript: w.pkScript}, {Value: half, PkScript: w.pkScript}}, 3)
	n.mustSend(t, parent)
	pc := txCoins(parent)
	one := func(c mpCoin, fee int64) []wire.TxOut {
		return []wire.TxOut{{Value: c.value - fee, PkScript: w.pkScript}}
	}

	wantReason(t, "v2 child of v3", n.sendTx(t, v3(pc[:1], one(pc[0], 1_000), 2)), "TRUC-violation")
	big := make([]wire.TxOut, 40) // > 1,000 vB
	for i := range big {
		big[i] = wire.TxOut{Value: (pc[0].value - 10_000) / 40, PkScript: w.pkScript}
	}
	wantReason(t, "oversized v3 child", n.sendTx(t, v3(pc[:1], big, 3)), "TRUC-violation")

	child1 := v3(pc[:1], one(pc[0], 1_000), 3)
	n.mustSend(t, child1)
	child2 := v3(pc[1:], one(pc[1], 5_000), 3) // a sibling: not a conflict
	n.mustSend(t, child2)
	if n.s.pool.Has(child1.TxHash()) || !n.s.pool.Has(child2.TxHash()) {
		t.Fatal("sibling eviction did not replace the first child")
	}
}
