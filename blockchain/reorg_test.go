package blockchain

import (
	"testing"

	"github.com/btcnode/btcd/database"
	"github.com/btcnode/btcd/internal/chaintest"
	"github.com/btcnode/btcd/wire"
)

// utxoModel replays the chain ending at tip into a map: the simple model
// the chain's UTXO set is compared with.
func utxoModel(tip *chaintest.Entry) map[wire.OutPoint]database.UtxoEntry {
	m := make(map[wire.OutPoint]database.UtxoEntry)
	for _, e := range chaintest.Chain(tip) {
		for i, tx := range e.Block.Transactions {
			if i > 0 {
				for j := range tx.TxIn {
					delete(m, tx.TxIn[j].PreviousOutPoint)
				}
			}
			txid := tx.TxHash()
			for o, out := range tx.TxOut {
				if database.IsUnspendable(out.PkScript) {
					continue
				}
				m[wire.OutPoint{Hash: txid, Index: uint32(o)}] = database.UtxoEntry{
					Amount: out.Value, PkScript: out.PkScript, Height: e.Height, IsCoinBase: i == 0}
			}
		}
	}
	return m
}

// reorgChain tracks every outpoint ever created, to check that outputs of
// abandoned branches are gone.
type reorgChain struct {
	*testChain
	all []wire.OutPoint
}

// extend builds a block on parent spending the oldest mature coinbase and
// the newest non-coinbase output still unspent on that branch.
func (rc *reorgChain) extend(parent *chaintest.Entry) *chaintest.Entry {
	b := rc.b
	m := utxoModel(parent)
	var ins []*chaintest.Output
	for _, o := range b.MatureCoinbases(parent) {
		if _, ok := m[o.OutPoint]; ok {
			ins = append(ins, o)
			break
		}
	}
	for _, e := range []*chaintest.Entry{parent} {
		if len(e.Block.Transactions) > 1 {
			tx := e.Block.Transactions[len(e.Block.Transactions)-1]
			op := wire.OutPoint{Hash: tx.TxHash()}
			if _, ok := m[op]; ok {
				ins = append(ins, b.Output(op))
			}
		}
	}
	var txs []*wire.MsgTx
	if len(ins) > 0 {
		var total int64
		for _, in := range ins {
			total += in.Value
		}
		outs := []wire.TxOut{
			{Value: total / 3, PkScript: b.Script(chaintest.OpTrue)},
			{Value: 0, PkScript: []byte{opReturn, 1, 2}},
			{Value: total - total/3 - 5000, PkScript: b.Script(chaintest.P2WPKH)},
		}
		txs = append(txs, b.Spend(ins, outs, 0))
	}
	e := b.NextBlock(parent, txs, nil)
	for _, tx := range e.Block.Transactions {
		id := tx.TxHash()
		for o := range tx.TxOut {
			rc.all = append(rc.all, wire.OutPoint{Hash: id, Index: uint32(o)})
		}
	}
	return e
}

func (rc *reorgChain) extendN(parent *chaintest.Entry, n int) []*chaintest.Entry {
	out := make([]*chaintest.Entry, n)
	for i := range out {
		parent = rc.extend(parent)
		out[i] = parent
	}
	return out
}

func (rc *reorgChain) process(es ...*chaintest.Entry) {
	rc.t.Helper()
	for _, e := range es {
		if _, err := rc.chain.ProcessBlock(e.Block); err != nil {
			rc.t.Fatalf("block %d: %v", e.Height, err)
		}
	}
}

// check compares the tip and the UTXO set with the model of tip.
func (rc *reorgChain) check(tip *chaintest.Entry) {
	rc.t.Helper()
	rc.tipIs(tip.Hash)
	m := utxoModel(tip)
	got, _, err := rc.cache.FetchEntries(rc.all, nil, nil)
	if err != nil {
		rc.t.Fatal(err)
	}
	for i, op := range rc.all {
		want, ok := m[op]
		g := got[i]
		if !ok {
			if !g.Missing {
				rc.t.Fatalf("output %v should be spent or absent at height %d", op, tip.Height)
			}
			continue
		}
		if g.Missing || g.Amount != want.Amount || g.Height != want.Height || g.IsCoinBase != want.IsCoinBase ||
			string(g.PkScript) != string(want.PkScript) {
			rc.t.Fatalf("output %v: got %+v, want %+v", op, g, want)
		}
	}
}

func newReorgChain(t *testing.T) (*reorgChain, *chaintest.Entry) {
	tc := newTestChain(t, regtest(t), nil)
	rc := &reorgChain{testChain: tc}
	es := rc.extendN(tc.b.Tip, 105)
	rc.process(es...)
	return rc, es[len(es)-1]
}

func TestReorgEqualWorkKeepsFirst(t *testing.T) {
	rc, base := newReorgChain(t)
	a := rc.extend(base)
	b := rc.extend(base)
	rc.process(a)
	res, err := rc.chain.ProcessBlock(b.Block)
	if err != nil || res.MainChain {
		t.Fatalf("tie: %+v %v", res, err)
	}
	rc.check(a)
	b2 := rc.extend(b)
	rc.process(b2)
	rc.check(b2)
}

func TestReorgDeepFork(t *testing.T) {
	rc, base := newReorgChain(t)
	main := rc.extendN(base, 12)
	rc.process(main...)
	rc.check(main[11])
	fork := rc.extendN(main[1], 12) // 2 + 12 = 14 blocks past base: a reorg 10 deep
	rc.process(fork[:10]...)
	rc.check(main[11])
	rc.process(fork[10])
	rc.check(fork[10])
	// The state survives a restart.
	rc.reopen()
	rc.check(fork[10])
}

func TestReorgInvalidBlockInFork(t *testing.T) {
	rc, base := newReorgChain(t)
	main := rc.extendN(base, 2)
	rc.process(main...)
	f1 := rc.extend(base)
	// f2 pays itself too much: found only when connecting.
	f2 := rc.b.NextBlock(f1, nil, &chaintest.BlockOpts{CoinbaseExtra: 1})
	f3 := rc.extend(f2)
	f4 := rc.extend(f3)
	rc.process(f1, f2)
	// f3 gives the fork more work; connecting it finds f2 invalid.
	if _, err := rc.chain.ProcessBlock(f3.Block); !isKind(err, ErrBadPrevBlock) {
		t.Fatalf("f3: %v", err)
	}
	rc.check(main[1])
	st, _ := rc.chain.LookupBlock(&f2.Hash)
	if !st.Invalid {
		t.Error("f2 not marked invalid")
	}
	st, _ = rc.chain.LookupBlock(&f3.Hash)
	if !st.Invalid {
		t.Error("f3 not marked invalid")
	}
	// A child of an invalid block is refused outright.
	if _, err := rc.chain.ProcessBlock(f4.Block); !isKind(err, ErrBadPrevBlock) {
		t.Errorf("child of invalid: %v", err)
	}
	// Failure marks survive a restart.
	rc.reopen()
	if st, _ := rc.chain.LookupBlock(&f3.Hash); !st.Invalid {
		t.Error("f3 not invalid after restart")
	}
	rc.check(main[1])
	// The valid part of the fork can still win with new blocks.
	g := rc.extendN(f1, 3)
	rc.process(g...)
	rc.check(g[2])
}

func TestReorgBackAndForth(t *testing.T) {
	rc, base := newReorgChain(t)
	a := rc.extendN(base, 2)
	rc.process(a...)
	rc.check(a[1])
	b := rc.extendN(base, 3)
	rc.process(b...)
	rc.check(b[2])
	a = append(a, rc.extendN(a[1], 2)...)
	rc.process(a[2:]...)
	rc.check(a[3])
	b = append(b, rc.extendN(b[2], 2)...)
	rc.process(b[3:]...)
	rc.check(b[4])
	rc.reopen()
	rc.check(b[4])
}
