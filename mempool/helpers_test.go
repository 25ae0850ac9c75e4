package mempool

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

// fakeChain is an in-memory UTXO set and tip.
type fakeChain struct {
	coins  map[wire.OutPoint]Coin
	height int32
	mtp    int64
	next   uint32
}

func newFakeChain() *fakeChain {
	return &fakeChain{coins: make(map[wire.OutPoint]Coin), height: 1000, mtp: 1_700_000_000}
}

func (c *fakeChain) view() ChainView {
	return ChainView{
		FetchCoin: func(op wire.OutPoint) (Coin, bool) { co, ok := c.coins[op]; return co, ok },
		Tip:       func() ChainTip { return ChainTip{Height: c.height, MedianTimePast: c.mtp} },
		MedianTimePast: func(h int32) int64 {
			return c.mtp - int64(c.height-h)*600
		},
	}
}

// addCoin creates a confirmed coin at height-10 paying pk.
func (c *fakeChain) addCoin(value int64, pk []byte) wire.OutPoint {
	c.next++
	var h wire.Hash
	binary.LittleEndian.PutUint32(h[:], c.next)
	h[31] = 0xcc
	op := wire.OutPoint{Hash: h, Index: 0}
	c.coins[op] = Coin{Value: value, PkScript: pk, Height: c.height - 10}
	return op
}

// connect applies block txs to the UTXO set and advances the tip.
func (c *fakeChain) connect(txs ...*wire.MsgTx) *wire.MsgBlock {
	c.height++
	c.mtp += 600
	cb := coinbaseTx(c.height)
	blk := &wire.MsgBlock{Transactions: append([]*wire.MsgTx{cb}, txs...)}
	for _, tx := range blk.Transactions {
		if !tx.IsCoinBase() {
			for _, in := range tx.TxIn {
				delete(c.coins, in.PreviousOutPoint)
			}
		}
		id := tx.TxHash()
		for i, out := range tx.TxOut {
			c.coins[wire.OutPoint{Hash: id, Index: uint32(i)}] = Coin{Value: out.Value, PkScript: out.PkScript, Height: c.height, IsCoinBase: tx.IsCoinBase()}
		}
	}
	return blk
}

// disconnect undoes connect given the coins the block spent.
func (c *fakeChain) disconnect(blk *wire.MsgBlock, spent map[wire.OutPoint]Coin) {
	for _, tx := range blk.Transactions {
		id := tx.TxHash()
		for i := range tx.TxOut {
			delete(c.coins, wire.OutPoint{Hash: id, Index: uint32(i)})
		}
	}
	for op, co := range spent {
		c.coins[op] = co
	}
	c.height--
	c.mtp -= 600
}

func coinbaseTx(height int32) *wire.MsgTx {
	return &wire.MsgTx{Version: 2,
		TxIn:  []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Index: wire.MaxPrevOutIndex}, SignatureScript: []byte{3, byte(height), byte(height >> 8), 0}, Sequence: wire.MaxTxInSequenceNum}},
		TxOut: []wire.TxOut{{Value: 50e8, PkScript: p2wpkh(9)}}}
}

func p2wpkh(seed byte) []byte {
	s := make([]byte, 22)
	s[0], s[1] = 0x00, 0x14
	for i := 2; i < 22; i++ {
		s[i] = seed + byte(i)
	}
	return s
}

func p2wsh(seed byte) []byte {
	s := make([]byte, 34)
	s[0], s[1] = 0x00, 0x20
	for i := 2; i < 34; i++ {
		s[i] = seed
	}
	return s
}

func p2tr(seed byte) []byte {
	s := make([]byte, 34)
	s[0], s[1] = 0x51, 0x20
	for i := 2; i < 34; i++ {
		s[i] = seed
	}
	return s
}

func p2pkh(seed byte) []byte {
	s := []byte{opDup, opHash160, 0x14}
	for i := 0; i < 20; i++ {
		s = append(s, seed)
	}
	return append(s, opEqualVerify, opCheckSig)
}

func p2sh(seed byte) []byte {
	s := []byte{opHash160, 0x14}
	for i := 0; i < 20; i++ {
		s = append(s, seed)
	}
	return append(s, opEqual)
}

func pubkey(seed byte) []byte {
	k := make([]byte, 33)
	k[0] = 2
	for i := 1; i < 33; i++ {
		k[i] = seed
	}
	return k
}

func multisig(m, n int) []byte {
	s := []byte{byte(op1 + m - 1)}
	for i := 0; i < n; i++ {
		s = append(s, 33)
		s = append(s, pubkey(byte(i+1))...)
	}
	return append(s, byte(op1+n-1), opCheckMulti)
}

func nullData(n int) []byte {
	s := []byte{opReturn}
	switch {
	case n < opPushData1:
		s = append(s, byte(n))
	case n <= 0xff:
		s = append(s, opPushData1, byte(n))
	default:
		s = append(s, opPushData2, byte(n), byte(n>>8))
	}
	return append(s, make([]byte, n)...)
}

// fakeWitness is a P2WPKH-shaped witness (signature and key).
func fakeWitness() [][]byte { return [][]byte{make([]byte, 71), pubkey(7)} }

// spend builds a version-2 transaction spending ins (P2WPKH witnesses)
// with one P2WPKH output per value.
func spend(ins []wire.OutPoint, values ...int64) *wire.MsgTx {
	tx := &wire.MsgTx{Version: 2}
	for _, op := range ins {
		tx.TxIn = append(tx.TxIn, wire.TxIn{PreviousOutPoint: op, Witness: fakeWitness(), Sequence: 0xfffffffd})
	}
	for i, v := range values {
		tx.TxOut = append(tx.TxOut, wire.TxOut{Value: v, PkScript: p2wpkh(byte(i))})
	}
	return tx
}

func outpoint(tx *wire.MsgTx, i uint32) wire.OutPoint {
	return wire.OutPoint{Hash: tx.TxHash(), Index: i}
}

// fakeScripts fails policy or consensus verification for chosen txids.
type fakeScripts struct {
	policyFail    map[wire.Hash]bool
	consensusFail map[wire.Hash]bool
	calls         int
}

func (f *fakeScripts) verify(tx *wire.MsgTx, coins []Coin, standard bool) error {
	f.calls++
	id := tx.TxHash()
	if f.consensusFail[id] {
		return errors.New("Signature must be zero for failed CHECK(MULTI)SIG operation")
	}
	if standard && f.policyFail[id] {
		return errors.New("Using OP_CODESEPARATOR in non-witness script")
	}
	return nil
}

type harness struct {
	t       *testing.T
	chain   *fakeChain
	scripts *fakeScripts
	pool    *Pool
	now     time.Time
	est     *FeeEstimator
	ann     []wire.Hash
}

func newHarness(t *testing.T, mutate func(*Config)) *harness {
	h := &harness{t: t, chain: newFakeChain(),
		scripts: &fakeScripts{policyFail: map[wire.Hash]bool{}, consensusFail: map[wire.Hash]bool{}},
		now:     time.Unix(1_700_000_000, 0), est: NewFeeEstimator()}
	cfg := DefaultConfig()
	cfg.Chain = h.chain.view()
	cfg.VerifyScripts = h.scripts.verify
	cfg.Now = func() time.Time { return h.now }
	cfg.FeeEstimator = h.est
	cfg.OnAccept = func(e *Entry) { h.ann = append(h.ann, e.TxID) }
	if mutate != nil {
		mutate(&cfg)
	}
	h.pool = New(cfg)
	return h
}

func (h *harness) coin(v int64) wire.OutPoint { return h.chain.addCoin(v, p2wpkh(1)) }

func (h *harness) accept(tx *wire.MsgTx) (*AcceptResult, error) {
	h.t.Helper()
	res, err := h.pool.AcceptTransaction(tx, AcceptOptions{})
	h.check()
	return res, err
}

func (h *harness) mustAccept(tx *wire.MsgTx) *AcceptResult {
	h.t.Helper()
	res, err := h.accept(tx)
	if err != nil {
		h.t.Fatalf("accept %s: %v", tx.TxHash(), err)
	}
	return res
}

func (h *harness) mustReject(tx *wire.MsgTx, reason string) *RejectError {
	h.t.Helper()
	_, err := h.accept(tx)
	var re *RejectError
	if !errors.As(err, &re) {
		h.t.Fatalf("want reject %q, got %v", reason, err)
	}
	if re.Reason != reason && !strings.HasPrefix(re.Reason, reason+" (") {
		h.t.Fatalf("want reject %q, got %q (%s)", reason, re.Reason, re.Debug)
	}
	return re
}

// check recomputes every entry's package statistics and the indexes from
// scratch and compares them with the incremental ones.
func (h *harness) check() {
	h.t.Helper()
	checkInvariants(h.t, h.pool)
}

func checkInvariants(t *testing.T, p *Pool) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	var usage, vsize, fees int64
	for id, e := range p.byTxID {
		if e.TxID != id || p.byWTxID[e.WTxID] != e {
			t.Fatalf("index mismatch for %s", id)
		}
		for i := range e.Tx.TxIn {
			if p.spends[e.Tx.TxIn[i].PreviousOutPoint] != e {
				t.Fatalf("spends index missing input %d of %s", i, id)
			}
		}
		anc := p.ancestorsOf(e.parents, p.nextEpoch(), nil)
		// Package fees sum modified fees.
		ac, as, af, asig := int64(1), e.VSize, e.ModFee, e.SigOpCost
		for _, a := range anc {
			ac, as, af, asig = ac+1, as+a.VSize, af+a.ModFee, asig+a.SigOpCost
		}
		if ac != e.AncCount || as != e.AncSize || af != e.AncFees || asig != e.AncSigOps {
			t.Fatalf("ancestor stats of %s: have %d/%d/%d/%d want %d/%d/%d/%d", id,
				e.AncCount, e.AncSize, e.AncFees, e.AncSigOps, ac, as, af, asig)
		}
		desc := p.descendantsOf(e, p.nextEpoch(), nil)
		dc, ds, df := int64(1), e.VSize, e.ModFee
		for _, d := range desc {
			dc, ds, df = dc+1, ds+d.VSize, df+d.ModFee
		}
		if e.ModFee != saturatingAdd(e.Fee, p.deltas[id]) {
			t.Fatalf("modified fee of %s: %d, base %d, delta %d", id, e.ModFee, e.Fee, p.deltas[id])
		}
		if dc != e.DescCount || ds != e.DescSize || df != e.DescFees {
			t.Fatalf("descendant stats of %s: have %d/%d/%d want %d/%d/%d", id, e.DescCount, e.DescSize, e.DescFees, dc, ds, df)
		}
		for i := range e.Tx.TxIn {
			if pe, ok := p.byTxID[e.Tx.TxIn[i].PreviousOutPoint.Hash]; ok && !containsPtr(e.parents, pe) {
				t.Fatalf("%s misses parent link", id)
			}
		}
		usage += e.usage
		vsize += e.VSize
		fees += e.Fee
	}
	if len(p.spends) != func() int {
		n := 0
		for _, e := range p.byTxID {
			n += len(e.Tx.TxIn)
		}
		return n
	}() {
		t.Fatalf("spends index has %d stale entries", len(p.spends))
	}
	if usage != p.usage || vsize != p.totalVSize || fees != p.totalFees {
		t.Fatalf("totals: usage %d/%d vsize %d/%d fees %d/%d", p.usage, usage, p.totalVSize, vsize, p.totalFees, fees)
	}
}
