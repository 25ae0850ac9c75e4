package blockchain

import (
	"strings"
	"testing"

	"github.com/btcnode/btcd/internal/chaintest"
	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// TestBlockRules breaks one consensus rule per case on top of a regtest
// chain with mature coinbases and checks the rule kind ProcessBlock
// reports.
func TestBlockRules(t *testing.T) {
	tc := newTestChain(t, regtest(t), nil)
	tc.mine(130)
	b := tc.b
	base := b.Tip
	cbs := b.MatureCoinbases(base)
	next := 0
	coin := func() *chaintest.Output { next++; return cbs[next-1] }
	// build makes a block on base and restores the builder's tip.
	build := func(txs []*wire.MsgTx, o *chaintest.BlockOpts) *chaintest.Entry {
		e := b.NextBlock(base, txs, o)
		b.Tip = base
		return e
	}
	spend := func(o *chaintest.Output) *wire.MsgTx { return b.Spend([]*chaintest.Output{o}, nil, 1000) }
	p2wpkh := b.Script(chaintest.P2WPKH)

	cases := []struct {
		name string
		make func() *chaintest.Entry
		kind ErrorKind
	}{
		{"merkle root", func() *chaintest.Entry {
			return build(nil, &chaintest.BlockOpts{Mutate: func(m *wire.MsgBlock) { m.Header.MerkleRoot[0] ^= 1 }})
		}, ErrBadMerkleRoot},
		{"coinbase missing", func() *chaintest.Entry {
			return build(nil, &chaintest.BlockOpts{Finalize: true, Mutate: func(m *wire.MsgBlock) {
				m.Transactions[0].TxIn[0].PreviousOutPoint.Index = 0
			}})
		}, ErrBadCoinbaseMissing},
		{"coinbase multiple", func() *chaintest.Entry {
			return build(nil, &chaintest.BlockOpts{Finalize: true, Mutate: func(m *wire.MsgBlock) {
				cb2 := *m.Transactions[0]
				cb2.TxIn = []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Index: wire.MaxPrevOutIndex}, SignatureScript: []byte{1, 2, 3}}}
				m.Transactions = append(m.Transactions, &cb2)
			}})
		}, ErrBadCoinbaseMultiple},
		{"vout negative", func() *chaintest.Entry {
			tx := b.Spend([]*chaintest.Output{coin()}, []wire.TxOut{{Value: -1, PkScript: p2wpkh}}, 0)
			return build([]*wire.MsgTx{tx}, nil)
		}, ErrTxVoutNegative},
		{"legacy sigops", func() *chaintest.Entry {
			script := make([]byte, 20001)
			for i := range script {
				script[i] = opCheckSig
			}
			tx := b.Spend([]*chaintest.Output{coin()}, []wire.TxOut{{Value: 1, PkScript: script}}, 0)
			return build([]*wire.MsgTx{tx}, nil)
		}, ErrBadBlockSigOps},
		{"coinbase height", func() *chaintest.Entry {
			return build(nil, &chaintest.BlockOpts{Finalize: true, Mutate: func(m *wire.MsgBlock) {
				m.Transactions[0].TxIn[0].SignatureScript = append(chaintest.HeightScript(base.Height+2), 0, 0)
			}})
		}, ErrBadCoinbaseHeight},
		{"coinbase amount", func() *chaintest.Entry {
			return build([]*wire.MsgTx{spend(coin())}, &chaintest.BlockOpts{CoinbaseExtra: 1})
		}, ErrBadCoinbaseAmount},
		{"bad version", func() *chaintest.Entry {
			return build(nil, &chaintest.BlockOpts{Version: 3})
		}, ErrBadVersion},
		{"bad bits", func() *chaintest.Entry {
			return build(nil, &chaintest.BlockOpts{Mutate: func(m *wire.MsgBlock) { m.Header.Bits = 0x207ffffe }})
		}, ErrBadDiffBits},
		{"time too old", func() *chaintest.Entry {
			return build(nil, &chaintest.BlockOpts{Time: base.Block.Header.Timestamp - 100})
		}, ErrTimeTooOld},
		{"witness merkle", func() *chaintest.Entry {
			return build([]*wire.MsgTx{spend(coin())}, &chaintest.BlockOpts{Finalize: true, Mutate: func(m *wire.MsgBlock) {
				chaintest.AddWitnessCommitment(m)
				cb := m.Transactions[0]
				pk := cb.TxOut[len(cb.TxOut)-1].PkScript
				pk[10] ^= 1
			}, NoWitnessCommitment: true})
		}, ErrBadWitnessMerkle},
		{"witness nonce size", func() *chaintest.Entry {
			return build([]*wire.MsgTx{spend(coin())}, &chaintest.BlockOpts{Finalize: true, Mutate: func(m *wire.MsgBlock) {
				chaintest.AddWitnessCommitment(m)
				m.Transactions[0].TxIn[0].Witness = [][]byte{make([]byte, 31)}
			}, NoWitnessCommitment: true})
		}, ErrBadWitnessNonceSize},
		{"unexpected witness", func() *chaintest.Entry {
			return build([]*wire.MsgTx{spend(coin())}, &chaintest.BlockOpts{NoWitnessCommitment: true})
		}, ErrUnexpectedWitness},
		{"weight", func() *chaintest.Entry {
			tx := spend(coin())
			tx.TxIn[0].Witness = append(tx.TxIn[0].Witness, make([]byte, 4_000_000))
			return build([]*wire.MsgTx{tx}, nil)
		}, ErrBadBlockWeight},
		{"premature coinbase spend", func() *chaintest.Entry {
			young := b.Output(wire.OutPoint{Hash: base.Parent.Block.Transactions[0].TxHash()})
			return build([]*wire.MsgTx{spend(young)}, nil)
		}, ErrTxPrematureCoinbase},
		{"in below out", func() *chaintest.Entry {
			c := coin()
			tx := b.Spend([]*chaintest.Output{c}, []wire.TxOut{{Value: c.Value + 1, PkScript: p2wpkh}}, 0)
			return build([]*wire.MsgTx{tx}, nil)
		}, ErrTxInBelowOut},
		{"missing input", func() *chaintest.Entry {
			tx := spend(coin())
			tx.TxIn[0].PreviousOutPoint.Index = 7
			return build([]*wire.MsgTx{tx}, nil)
		}, ErrBadTxnsMissingInputs},
		{"double spend in block", func() *chaintest.Entry {
			c := coin()
			a := spend(c)
			d := b.Spend([]*chaintest.Output{c}, nil, 2000)
			return build([]*wire.MsgTx{a, d}, nil)
		}, ErrBadTxnsMissingInputs},
		{"non-final locktime", func() *chaintest.Entry {
			tx := &wire.MsgTx{Version: 2, LockTime: uint32(base.Height + 5),
				TxIn:  []wire.TxIn{{PreviousOutPoint: coin().OutPoint, Sequence: 0}},
				TxOut: []wire.TxOut{{Value: 1e8, PkScript: p2wpkh}}}
			b.Sign(tx)
			return build([]*wire.MsgTx{tx}, nil)
		}, ErrBadTxnsNonFinal},
		{"BIP68 height lock", func() *chaintest.Entry {
			tx := &wire.MsgTx{Version: 2,
				TxIn:  []wire.TxIn{{PreviousOutPoint: coin().OutPoint, Sequence: 1000}},
				TxOut: []wire.TxOut{{Value: 1e8, PkScript: p2wpkh}}}
			b.Sign(tx)
			return build([]*wire.MsgTx{tx}, nil)
		}, ErrBadTxnsNonFinal},
		{"BIP68 unsigned version (CVE-2024-34478)", func() *chaintest.Entry {
			tx := &wire.MsgTx{Version: 0xffffffff,
				TxIn:  []wire.TxIn{{PreviousOutPoint: coin().OutPoint, Sequence: 1000}},
				TxOut: []wire.TxOut{{Value: 1e8, PkScript: p2wpkh}}}
			b.Sign(tx)
			return build([]*wire.MsgTx{tx}, nil)
		}, ErrBadTxnsNonFinal},
		{"BIP68 time lock", func() *chaintest.Entry {
			tx := &wire.MsgTx{Version: 2,
				TxIn:  []wire.TxIn{{PreviousOutPoint: coin().OutPoint, Sequence: wire.SequenceLockTimeIsSeconds | 100}},
				TxOut: []wire.TxOut{{Value: 1e8, PkScript: p2wpkh}}}
			b.Sign(tx)
			return build([]*wire.MsgTx{tx}, nil)
		}, ErrBadTxnsNonFinal},
		{"bad signature", func() *chaintest.Entry {
			tx := spend(coin())
			tx.TxIn[0].Witness[0][10] ^= 1
			return build([]*wire.MsgTx{tx}, nil)
		}, ErrScriptVerifyMandatory},
		{"transaction repeated", func() *chaintest.Entry {
			// Re-include a transaction whose outputs are unspent:
			// its inputs are spent (BIP30 itself, which BIP34 from
			// height 1 makes redundant here, is TestBIP30DuplicateCoinbase).
			return build([]*wire.MsgTx{tc.lastFan}, nil)
		}, ErrBadTxnsMissingInputs},
	}
	// A transaction with unspent outputs for the BIP30 case.
	fan := spend(coin())
	tc.lastFan = fan
	tc.accept(b.NextBlock(base, []*wire.MsgTx{fan}, nil))
	base = b.Tip
	cbs = b.MatureCoinbases(base)

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tc.t = t
			e := c.make()
			tc.reject(e, c.kind)
			tc.tipIs(base.Hash)
		})
	}
	tc.t = t
	// The chain still extends normally afterwards.
	tc.accept(b.NextBlock(base, []*wire.MsgTx{spend(coin())}, nil))
}

// TestMutatedBlockNotMarkedInvalid submits a CVE-2012-2459 mutation of a
// valid block (last transaction duplicated, same merkle root and hash),
// then the real block, which must be accepted.
func TestMutatedBlockNotMarkedInvalid(t *testing.T) {
	tc := newTestChain(t, regtest(t), nil)
	tc.mine(102)
	b := tc.b
	cbs := b.MatureCoinbases(b.Tip)
	t1 := b.Spend(cbs[:1], nil, 1000)
	t2 := b.Spend(cbs[1:2], nil, 1000)
	e := b.NextBlock(nil, []*wire.MsgTx{t1, t2}, nil)

	mut := *e.Block
	mut.Transactions = append(append([]*wire.MsgTx(nil), e.Block.Transactions...), t2)
	mut.ClearHashCache()
	if mut.BlockHash() != e.Hash {
		t.Fatal("mutation changed the hash")
	}
	if _, err := tc.chain.ProcessBlock(&mut); !isKind(err, ErrTxnsDuplicate) {
		t.Fatalf("mutated block: %v", err)
	}
	// A witness-stripped copy is a mutation too.
	strip := *e.Block
	strip.Transactions = append([]*wire.MsgTx(nil), e.Block.Transactions...)
	cb := *strip.Transactions[0]
	cb.TxIn = append([]wire.TxIn(nil), cb.TxIn...)
	cb.TxIn[0].Witness = nil
	strip.Transactions[0] = &cb
	strip.ClearHashCache()
	if _, err := tc.chain.ProcessBlock(&strip); !isKind(err, ErrUnexpectedWitness) && !isKind(err, ErrBadWitnessNonceSize) {
		t.Fatalf("stripped block: %v", err)
	}
	tc.accept(e)
}

// TestBIP30DuplicateCoinbase breaks BIP30 where it can be broken: on a
// regtest chain whose BIP34 activates late, a block whose coinbase repeats
// an earlier, unspent coinbase byte for byte is rejected; past BIP34's
// height coinbases differ, so it could not happen.
func TestBIP30DuplicateCoinbase(t *testing.T) {
	p := regtest(t).Clone()
	p.BIP34Height = 1000
	tc := newTestChain(t, p, nil)
	tc.mine(3)
	b := tc.b
	fixed := func(m *wire.MsgBlock) {
		m.Transactions[0].TxIn[0].SignatureScript = []byte{0x01, 0x7f, 0x04, 'd', 'u', 'p', '!'}
	}
	first := b.NextBlock(nil, nil, &chaintest.BlockOpts{Finalize: true, Mutate: fixed})
	tc.accept(first)
	dup := b.NextBlock(nil, nil, &chaintest.BlockOpts{Finalize: true, Mutate: fixed})
	if dup.Block.Transactions[0].TxHash() != first.Block.Transactions[0].TxHash() {
		t.Fatal("coinbases differ")
	}
	b.Tip = first
	tc.reject(dup, ErrBadTxnsBIP30)
	tc.tipIs(first.Hash)
}

func TestBIP30Applies(t *testing.T) {
	p := regtest(t).Clone()
	ns := nodeChain(p, 30, 1000, func(int32) uint32 { return 1 }, func(int32) uint32 { return p.PowLimitBits })
	tip := ns[29]
	// Regtest's BIP34 holds from height 1: duplicates are impossible, so
	// BIP30 is not checked (Core checks it; it cannot fail).
	if bip30Applies(p, tip) {
		t.Error("regtest with BIP34 from height 1 need not check BIP30")
	}
	// With BIP34 later and no BIP34 hash it is always checked.
	p.BIP34Height = 100
	if !bip30Applies(p, tip) {
		t.Error("regtest with a late BIP34 must check BIP30")
	}
	// A chain containing the BIP34 activation block skips it...
	p.BIP34Height, p.BIP34Hash = 5, ns[5].hash
	if bip30Applies(p, tip) {
		t.Error("BIP34 chain must skip BIP30")
	}
	// ...but not below activation, nor on another chain.
	if !bip30Applies(p, ns[5]) {
		t.Error("the activation block itself still checks BIP30")
	}
	p.BIP34Hash = wire.Hash{9}
	if !bip30Applies(p, tip) {
		t.Error("a chain without the BIP34 block must check BIP30")
	}
	// The two historical exceptions are exempt.
	m := params(t, "main")
	if len(m.BIP30Exceptions) != 2 {
		t.Fatalf("%d BIP30 exceptions", len(m.BIP30Exceptions))
	}
	for _, e := range m.BIP30Exceptions {
		n := &blockNode{hash: e.Hash, height: e.Height, parent: ns[28]}
		if bip30Applies(m, n) {
			t.Errorf("exception %d not exempt", e.Height)
		}
		n.hash[0] ^= 1
		if !bip30Applies(m, n) {
			t.Errorf("height %d with another hash must check BIP30", e.Height)
		}
	}
}

func TestScriptFlagExceptions(t *testing.T) {
	m := params(t, "main")
	full := ScriptFlagsFor(m, 800000, wire.Hash{1})
	for _, f := range []txscript.ScriptFlags{txscript.ScriptVerifyP2SH, txscript.ScriptVerifyWitness,
		txscript.ScriptVerifyTaproot, txscript.ScriptVerifyDERSig, txscript.ScriptVerifyCheckLockTimeVerify,
		txscript.ScriptVerifyCheckSequenceVerify, txscript.ScriptVerifyNullDummy} {
		if full&f == 0 {
			t.Errorf("flag %v missing at 800000", f)
		}
	}
	early := ScriptFlagsFor(m, 1000, wire.Hash{1})
	if early&txscript.ScriptVerifyDERSig != 0 || early&txscript.ScriptVerifyP2SH == 0 {
		t.Errorf("early flags %v", early)
	}
	for _, e := range m.ScriptFlagExceptions {
		if f := ScriptFlagsFor(m, 170060, e.Hash); f&txscript.ScriptVerifyP2SH != 0 && f&txscript.ScriptVerifyTaproot != 0 {
			t.Errorf("exception %v keeps full flags %v", e.Hash, f)
		}
	}
}

// TestTimeTooNewNotMarked: a block from the future is refused without
// being marked invalid and is accepted once the clock catches up.
func TestTimeTooNewNotMarked(t *testing.T) {
	now := int64(1_700_000_000)
	tc := newTestChain(t, regtest(t), func(c *Config) { c.Now = func() int64 { return now } })
	tc.mine(2)
	e := tc.b.NextBlock(nil, nil, &chaintest.BlockOpts{Time: uint32(now + MaxFutureBlockTime + 60)})
	tc.reject(e, ErrTimeTooNew)
	now += 120
	tc.accept(e)
}

// TestBadSignatureEachKind corrupts the signature of each spend type.
func TestBadSignatureEachKind(t *testing.T) {
	tc := newTestChain(t, regtest(t), nil)
	tc.mine(101)
	b := tc.b
	cb := b.MatureCoinbases(b.Tip)[0]
	kinds := []chaintest.Kind{chaintest.P2PKH, chaintest.P2WPKH, chaintest.P2TR}
	var outs []wire.TxOut
	for _, k := range kinds {
		outs = append(outs, wire.TxOut{Value: 1e8, PkScript: b.Script(k)})
	}
	fan := b.Spend([]*chaintest.Output{cb}, outs, 0)
	tc.accept(b.NextBlock(nil, []*wire.MsgTx{fan}, nil))
	base := b.Tip
	for i, k := range kinds {
		o := b.Output(wire.OutPoint{Hash: fan.TxHash(), Index: uint32(i)})
		tx := b.Spend([]*chaintest.Output{o}, nil, 1000)
		if k == chaintest.P2PKH {
			tx.TxIn[0].SignatureScript[10] ^= 1
		} else {
			tx.TxIn[0].Witness[0][10] ^= 1
		}
		e := b.NextBlock(base, []*wire.MsgTx{tx}, nil)
		b.Tip = base
		re := tc.reject(e, ErrScriptVerifyMandatory)
		if !strings.HasPrefix(re.Reason, "mandatory-script-verify-flag-failed (") || !strings.HasSuffix(re.Reason, ")") {
			t.Errorf("kind %d reason %q", k, re.Reason)
		}
		t.Logf("kind %d: %s", k, re.Reason)
	}
}
