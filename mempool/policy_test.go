package mempool

import (
	"errors"
	"testing"

	"github.com/btcnode/btcd/wire"
)

func simpleTx(h *harness, pk []byte) *wire.MsgTx {
	tx := spend([]wire.OutPoint{h.coin(100_000)}, 90_000)
	tx.TxOut[0].PkScript = pk
	return tx
}

func TestPolicyRules(t *testing.T) {
	type tc struct {
		name   string
		mutate func(*Config)
		build  func(h *harness) *wire.MsgTx
		reason string // "" means accepted
		kind   ErrorKind
	}
	withOut := func(pk []byte, v int64) func(h *harness) *wire.MsgTx {
		return func(h *harness) *wire.MsgTx {
			tx := simpleTx(h, p2wpkh(1))
			tx.TxOut = append(tx.TxOut, wire.TxOut{Value: v, PkScript: pk})
			return tx
		}
	}
	spendCoin := func(pk []byte, edit func(*wire.TxIn)) func(h *harness) *wire.MsgTx {
		return func(h *harness) *wire.MsgTx {
			op := h.chain.addCoin(100_000, pk)
			tx := spend([]wire.OutPoint{op}, 90_000)
			tx.TxIn[0].Witness = nil
			if edit != nil {
				edit(&tx.TxIn[0])
			}
			return tx
		}
	}
	cases := []tc{
		{name: "p2wpkh", build: func(h *harness) *wire.MsgTx { return simpleTx(h, p2wpkh(3)) }},
		{name: "p2pkh", build: func(h *harness) *wire.MsgTx { return simpleTx(h, p2pkh(3)) }},
		{name: "p2sh", build: func(h *harness) *wire.MsgTx { return simpleTx(h, p2sh(3)) }},
		{name: "p2wsh", build: func(h *harness) *wire.MsgTx { return simpleTx(h, p2wsh(3)) }},
		{name: "p2tr", build: func(h *harness) *wire.MsgTx { return simpleTx(h, p2tr(3)) }},
		{name: "p2pk", build: func(h *harness) *wire.MsgTx { return simpleTx(h, append(append([]byte{33}, pubkey(5)...), opCheckSig)) }},
		{name: "witness v2 output", build: withOut([]byte{0x52, 2, 1, 2}, 1000)},
		{name: "anchor output", build: withOut([]byte{op1, 2, 0x4e, 0x73}, 240)},
		{name: "anchor below dust is dust", build: withOut([]byte{op1, 2, 0x4e, 0x73}, 239), reason: ReasonDust},
		{name: "bare multisig 1-of-3", build: func(h *harness) *wire.MsgTx { return simpleTx(h, multisig(1, 3)) }},
		{name: "bare multisig 1-of-4", build: func(h *harness) *wire.MsgTx { return simpleTx(h, multisig(1, 4)) }, reason: ReasonScriptPubKey, kind: ErrNotStandard},
		{name: "bare multisig refused", mutate: func(c *Config) { c.Policy.PermitBareMultisig = false },
			build: func(h *harness) *wire.MsgTx { return simpleTx(h, multisig(1, 2)) }, reason: ReasonBareMultisig},
		{name: "nonstandard output", build: func(h *harness) *wire.MsgTx { return simpleTx(h, []byte{op1}) }, reason: ReasonScriptPubKey},
		{name: "large op_return allowed (Core 30)", build: withOut(nullData(5000), 0)},
		{name: "two op_returns allowed (Core 30)", build: func(h *harness) *wire.MsgTx {
			tx := withOut(nullData(80), 0)(h)
			tx.TxOut = append(tx.TxOut, wire.TxOut{PkScript: nullData(80)})
			return tx
		}},
		{name: "multi-op-return when configured", mutate: func(c *Config) { c.Policy.SingleDataCarrier = true }, build: func(h *harness) *wire.MsgTx {
			tx := withOut(nullData(10), 0)(h)
			tx.TxOut = append(tx.TxOut, wire.TxOut{PkScript: nullData(10)})
			return tx
		}, reason: ReasonMultiOpReturn},
		{name: "datacarriersize", mutate: func(c *Config) { c.Policy.MaxDataCarrierBytes = 83 }, build: withOut(nullData(81), 0), reason: ReasonDataCarrier},
		{name: "datacarrier off", mutate: func(c *Config) { c.Policy.DataCarrier = false }, build: withOut(nullData(1), 0), reason: ReasonDataCarrier},
		{name: "version 0", build: func(h *harness) *wire.MsgTx { tx := simpleTx(h, p2wpkh(1)); tx.Version = 0; return tx }, reason: ReasonVersion},
		{name: "version 4", build: func(h *harness) *wire.MsgTx { tx := simpleTx(h, p2wpkh(1)); tx.Version = 4; return tx }, reason: ReasonVersion},
		{name: "version 1", build: func(h *harness) *wire.MsgTx { tx := simpleTx(h, p2wpkh(1)); tx.Version = 1; return tx }},
		{name: "version 3", build: func(h *harness) *wire.MsgTx { tx := simpleTx(h, p2wpkh(1)); tx.Version = 3; return tx }},
		{name: "empty op_return", build: withOut(nullData(0), 0)},
		{name: "weight over 400000", build: func(h *harness) *wire.MsgTx {
			tx := simpleTx(h, p2wpkh(1))
			for i := 0; i < 3000; i++ {
				tx.TxOut = append(tx.TxOut, wire.TxOut{Value: 1000, PkScript: p2wsh(1)})
			}
			tx.TxIn[0].PreviousOutPoint = h.chain.addCoin(10_000_000, p2wpkh(1))
			return tx
		}, reason: ReasonTxSize},
		{name: "scriptsig-size", build: func(h *harness) *wire.MsgTx {
			tx := simpleTx(h, p2wpkh(1))
			ss := []byte{opPushData2, 0x73, 0x06} // 1651-byte push
			tx.TxIn[0].SignatureScript = append(ss, make([]byte, 1651)...)
			return tx
		}, reason: ReasonScriptSigSize},
		{name: "scriptsig-not-pushonly", build: func(h *harness) *wire.MsgTx {
			tx := simpleTx(h, p2wpkh(1))
			tx.TxIn[0].SignatureScript = []byte{opDup}
			return tx
		}, reason: ReasonScriptSigNotPush},
		{name: "two dust outputs", build: func(h *harness) *wire.MsgTx {
			tx := withOut(p2wpkh(2), 100)(h)
			tx.TxOut = append(tx.TxOut, wire.TxOut{Value: 100, PkScript: p2wpkh(3)})
			return tx
		}, reason: ReasonDust},
		{name: "one dust output with fee", build: withOut(p2wpkh(2), 293), reason: ReasonDust},
		{name: "p2wpkh at dust threshold", build: withOut(p2wpkh(2), 294)},
		{name: "p2pkh below dust threshold", build: withOut(p2pkh(2), 545), reason: ReasonDust},
		{name: "tx-size-small", build: func(h *harness) *wire.MsgTx {
			tx := simpleTx(h, nullData(0))
			tx.TxOut[0].Value = 0
			return tx
		}, reason: ReasonTxSizeSmall},
		{name: "non-final", build: func(h *harness) *wire.MsgTx {
			tx := simpleTx(h, p2wpkh(1))
			tx.LockTime = uint32(h.chain.height + 1)
			return tx
		}, reason: ReasonNonFinal, kind: ErrPrematureSpend},
		{name: "final at next height", build: func(h *harness) *wire.MsgTx {
			tx := simpleTx(h, p2wpkh(1))
			tx.LockTime = uint32(h.chain.height)
			return tx
		}},
		{name: "non-BIP68-final", build: func(h *harness) *wire.MsgTx {
			tx := simpleTx(h, p2wpkh(1))
			tx.TxIn[0].Sequence = 12 // the coin has 11 confirmations at the next block
			return tx
		}, reason: ReasonNonBIP68Final},
		{name: "BIP68 satisfied", build: func(h *harness) *wire.MsgTx {
			tx := simpleTx(h, p2wpkh(1))
			tx.TxIn[0].Sequence = 11
			return tx
		}},
		{name: "min relay fee", build: func(h *harness) *wire.MsgTx {
			tx := simpleTx(h, p2wpkh(1))
			tx.TxOut[0].Value = 100_000 - 10
			return tx
		}, reason: ReasonMinRelayFee, kind: ErrMempoolPolicy},
		{name: "TRUC below min relay fee is reconsiderable", build: func(h *harness) *wire.MsgTx {
			tx := simpleTx(h, p2wpkh(1))
			tx.Version = TRUCVersion
			tx.TxOut[0].Value = 100_000 - 10
			return tx
		}, reason: ReasonMinRelayFee, kind: ErrReconsiderable},
		{name: "zero fee with dust allowed past dust rule, fails fee", build: func(h *harness) *wire.MsgTx {
			tx := withOut(p2wpkh(2), 0)(h)
			tx.TxOut[0].Value = 100_000
			return tx
		}, reason: ReasonMinRelayFee},
		{name: "missing inputs", build: func(h *harness) *wire.MsgTx {
			return spend([]wire.OutPoint{{Index: 7}}, 1000)
		}, reason: ReasonMissingInputs, kind: ErrMissingInputs},
		{name: "in below out", build: func(h *harness) *wire.MsgTx {
			tx := simpleTx(h, p2wpkh(1))
			tx.TxOut[0].Value = 100_001
			return tx
		}, reason: ReasonInBelowOut, kind: ErrConsensus},
		{name: "premature coinbase spend", build: func(h *harness) *wire.MsgTx {
			op := h.chain.addCoin(100_000, p2wpkh(1))
			co := h.chain.coins[op]
			co.IsCoinBase = true
			co.Height = h.chain.height - 50
			h.chain.coins[op] = co
			return spend([]wire.OutPoint{op}, 90_000)
		}, reason: ReasonPrematureCoinbase, kind: ErrPrematureSpend},
		{name: "coinbase", build: func(h *harness) *wire.MsgTx { return coinbaseTx(5) }, reason: ReasonCoinbase, kind: ErrConsensus},
		{name: "duplicate inputs", build: func(h *harness) *wire.MsgTx {
			op := h.coin(100_000)
			return spend([]wire.OutPoint{op, op}, 90_000)
		}, reason: "bad-txns-inputs-duplicate", kind: ErrConsensus},
		{name: "spend nonstandard output", build: spendCoin([]byte{op1, op1}, nil), reason: ReasonNonStandardInputs, kind: ErrInputsNotStandard},
		{name: "spend unknown witness version", build: spendCoin([]byte{0x52, 2, 1, 2}, func(in *wire.TxIn) { in.Witness = [][]byte{{1}} }), reason: ReasonNonStandardInputs},
		{name: "p2sh redeem with 16 sigops", build: spendCoin(p2sh(1), func(in *wire.TxIn) {
			redeem := []byte{}
			for i := 0; i < 16; i++ {
				redeem = append(redeem, opCheckSig)
			}
			in.SignatureScript = append([]byte{byte(len(redeem))}, redeem...)
		}), reason: ReasonNonStandardInputs},
		{name: "p2sh redeem with 15 sigops", build: spendCoin(p2sh(1), func(in *wire.TxIn) {
			redeem := []byte{}
			for i := 0; i < 15; i++ {
				redeem = append(redeem, opCheckSig)
			}
			in.SignatureScript = append([]byte{byte(len(redeem))}, redeem...)
		})},
		{name: "p2wsh stack item too large", build: spendCoin(p2wsh(1), func(in *wire.TxIn) {
			in.Witness = [][]byte{make([]byte, 81), {opCheckSig}}
		}), reason: ReasonWitnessNonStandard},
		{name: "p2wsh too many items", build: spendCoin(p2wsh(1), func(in *wire.TxIn) {
			for i := 0; i < 101; i++ {
				in.Witness = append(in.Witness, []byte{1})
			}
			in.Witness = append(in.Witness, []byte{opCheckSig})
		}), reason: ReasonWitnessNonStandard},
		{name: "p2wsh script too large", build: spendCoin(p2wsh(1), func(in *wire.TxIn) {
			in.Witness = [][]byte{make([]byte, 3601)}
		}), reason: ReasonWitnessNonStandard},
		{name: "p2wsh at limits", build: spendCoin(p2wsh(1), func(in *wire.TxIn) {
			for i := 0; i < 100; i++ {
				in.Witness = append(in.Witness, make([]byte, 80))
			}
			in.Witness = append(in.Witness, make([]byte, 3600))
		})},
		{name: "witness on p2pkh input", build: spendCoin(p2pkh(1), func(in *wire.TxIn) {
			in.SignatureScript = []byte{1, 1}
			in.Witness = [][]byte{{1}}
		}), reason: ReasonWitnessNonStandard},
		{name: "taproot annex", build: spendCoin(p2tr(1), func(in *wire.TxIn) {
			in.Witness = [][]byte{make([]byte, 64), {annexTag, 1}}
		}), reason: ReasonWitnessNonStandard},
		{name: "tapscript item too large", build: spendCoin(p2tr(1), func(in *wire.TxIn) {
			in.Witness = [][]byte{make([]byte, 81), {opCheckSig}, append([]byte{0xc0}, make([]byte, 32)...)}
		}), reason: ReasonWitnessNonStandard},
		{name: "taproot key path", build: spendCoin(p2tr(1), func(in *wire.TxIn) {
			in.Witness = [][]byte{make([]byte, 64)}
		})},
		{name: "too many sigops", build: spendCoin(p2wsh(1), func(in *wire.TxIn) {
			script := make([]byte, 801)
			for i := range script {
				script[i] = opCheckMulti
			}
			in.Witness = [][]byte{script}
		}), reason: ReasonTooManySigops},
		{name: "non-mandatory script failure", build: func(h *harness) *wire.MsgTx {
			tx := simpleTx(h, p2wpkh(1))
			h.scripts.policyFail[tx.TxHash()] = true
			return tx
		}, reason: ReasonMempoolScript, kind: ErrNotStandard},
		{name: "non-mandatory script failure (legacy wording)", mutate: func(c *Config) { c.LegacyScriptReasons = true }, build: func(h *harness) *wire.MsgTx {
			tx := simpleTx(h, p2wpkh(1))
			h.scripts.policyFail[tx.TxHash()] = true
			return tx
		}, reason: ReasonNonMandatoryScript, kind: ErrNotStandard},
		{name: "acceptnonstdtxn takes nonstandard output", mutate: func(c *Config) { c.Policy.RequireStandard = false },
			build: withOut([]byte{op1}, 1000)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, c.mutate)
			tx := c.build(h)
			if c.reason == "" {
				h.mustAccept(tx)
				return
			}
			re := h.mustReject(tx, c.reason)
			if c.kind != "" && !errors.Is(re, c.kind) {
				t.Fatalf("kind: %v is not %v", re, c.kind)
			}
		})
	}
}

func TestScriptFailures(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		h := newHarness(t, func(c *Config) { c.LegacyScriptReasons = legacy })
		tx := simpleTx(h, p2wpkh(1))
		h.scripts.consensusFail[tx.TxHash()] = true
		_, err := h.accept(tx)
		var re *RejectError
		if !errors.As(err, &re) || re.Kind != ErrConsensus || re.Code != wire.RejectInvalid {
			t.Fatalf("got %v", err)
		}
		want := "mempool-script-verify-flag-failed (Signature must be zero for failed CHECK(MULTI)SIG operation)"
		if legacy {
			want = "mandatory-script-verify-flag-failed (Signature must be zero for failed CHECK(MULTI)SIG operation)"
		}
		if re.Error() != want {
			t.Fatalf("message %q", re.Error())
		}
	}
}

func TestDuplicates(t *testing.T) {
	h := newHarness(t, nil)
	tx := simpleTx(h, p2wpkh(1))
	h.mustAccept(tx)
	if re := h.mustReject(tx, ReasonAlreadyInMempool); !IsAlreadyKnown(re) {
		t.Fatal("a transaction in the pool is not reported as known")
	}
	mal := *tx
	mal.TxIn = append([]wire.TxIn(nil), tx.TxIn...)
	mal.TxIn[0].Witness = [][]byte{make([]byte, 72), pubkey(7)}
	if re := h.mustReject(&mal, ReasonSameNonWitness); IsAlreadyKnown(re) {
		t.Fatal("a different witness is reported as the known transaction")
	}

	// A transaction whose outputs are already in the UTXO set is known.
	h2 := newHarness(t, nil)
	tx2 := spend([]wire.OutPoint{{Index: 3}}, 1000)
	h2.chain.coins[outpoint(tx2, 0)] = Coin{Value: 1000, PkScript: p2wpkh(0), Height: 5}
	if re := h2.mustReject(tx2, ReasonAlreadyKnown); !IsAlreadyKnown(re) {
		t.Fatal("a confirmed transaction is not reported as known")
	}
}

func TestDustThresholds(t *testing.T) {
	for _, c := range []struct {
		pk   []byte
		want int64
	}{
		{p2pkh(1), 546}, {p2wpkh(1), 294}, {p2sh(1), 540}, {p2wsh(1), 330}, {p2tr(1), 330}, {nullData(10), 0},
	} {
		if got := DustThreshold(&wire.TxOut{PkScript: c.pk}, 3000); got != c.want {
			t.Errorf("%x: got %d want %d", c.pk, got, c.want)
		}
	}
}

func TestClassifier(t *testing.T) {
	for _, c := range []struct {
		pk   []byte
		want scriptClass
	}{
		{p2pkh(1), classPubKeyHash}, {p2sh(1), classScriptHash}, {p2wpkh(1), classWitnessV0KeyHash},
		{p2wsh(1), classWitnessV0ScriptHash}, {p2tr(1), classWitnessV1Taproot}, {multisig(2, 3), classMultiSig},
		{nullData(3), classNullData}, {[]byte{opReturn}, classNullData}, {[]byte{opReturn, opDup}, classNonStandard},
		{[]byte{0x00, 0x03, 1, 2, 3}, classNonStandard}, {[]byte{0x60, 0x02, 1, 2}, classWitnessUnknown},
		{[]byte{op1, 2, 0x4e, 0x73}, classAnchor}, {[]byte{opPushData4, 0xff, 0xff, 0xff, 0xff}, classNonStandard},
	} {
		if got, _, _ := classify(c.pk); got != c.want {
			t.Errorf("%x: got %v want %v", c.pk, got, c.want)
		}
	}
	if n := sigOpCount(multisig(2, 3), true); n != 3 {
		t.Fatalf("accurate multisig sigops %d", n)
	}
	if n := sigOpCount(multisig(2, 3), false); n != 20 {
		t.Fatalf("legacy multisig sigops %d", n)
	}
}
