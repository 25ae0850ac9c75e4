package psbt

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/btcnode/btcd/internal/descriptor"
	"github.com/btcnode/btcd/txscript"
	"github.com/btcnode/btcd/wire"
)

// msSpend is one miniscript spend to finalize: a descriptor with $0..$3
// standing for test keys (x-only inside tr()) and $H for the SHA256 of a
// preimage, the keys that sign, the spend's sequence and lock time, and
// whether the preimage is in the PSBT.
type msSpend struct {
	desc     string
	signers  []int
	seq      uint32
	lockTime uint32
	preimage bool
}

var msPreimage = bytes.Repeat([]byte{0x42}, 32)

// build expands the descriptor, funds its output and signs with the
// signers' keys (the descriptor's other keys known without private keys).
func (c msSpend) build(t *testing.T) (*Packet, wire.TxOut) {
	t.Helper()
	d := c.desc
	tap := strings.HasPrefix(d, "tr(")
	for i := 3; i >= 0; i-- {
		pub := pubOf(key(t, byte(0x60+i)))
		if tap {
			pub = pub[1:]
		}
		d = strings.ReplaceAll(d, "$"+string(rune('0'+i)), hex.EncodeToString(pub))
	}
	h := sha256.Sum256(msPreimage)
	d = strings.ReplaceAll(d, "$H", hex.EncodeToString(h[:]))
	ds, err := descriptor.Parse(d, descriptor.RegTest, false)
	if err != nil {
		t.Fatalf("%s: %v", c.desc, err)
	}
	outs, err := ds[0].Expand(0)
	if err != nil {
		t.Fatal(err)
	}
	spent := wire.TxOut{Value: 50_000, PkScript: outs[0].Script}
	tx := &wire.MsgTx{Version: 2, LockTime: c.lockTime,
		TxIn:  []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Hash: wire.Hash{7}}, Sequence: c.seq}},
		TxOut: []wire.TxOut{{Value: 49_000, PkScript: []byte{txscript.OP_TRUE}}}}
	p := New(tx)
	p.Inputs[0].WitnessUTXO = &spent
	s := NewSigner()
	si := outs[0].SigningInfo()
	for i := range 4 {
		k := key(t, byte(0x60+i))
		var priv []byte
		for _, j := range c.signers {
			if j == i {
				priv = k.Serialize()
			}
		}
		pub := pubOf(k)
		if tap {
			pub = append([]byte{2}, pub[1:]...)
		}
		s.AddKey(pub, nil, priv)
	}
	for _, sc := range si.Scripts {
		s.AddScript(sc)
	}
	for _, tr := range si.Taproot {
		ts := TaprootSpend{OutputKey: tr.OutputKey, InternalKey: tr.InternalKey, MerkleRoot: tr.MerkleRoot}
		for _, l := range tr.Leaves {
			ts.Leaves = append(ts.Leaves, TapLeafScript{ControlBlock: l.ControlBlock, Script: l.Script, LeafVersion: l.LeafVersion})
		}
		s.AddTaproot(ts)
	}
	if err := p.Sign(s, nil, false); err != nil {
		t.Fatal(err)
	}
	if c.preimage {
		p.Inputs[0].Sha256 = []Preimage{{Hash: h[:], Preimage: msPreimage}}
	}
	return p, spent
}

// finalize finalizes the spend and, when it completes, checks the
// extracted transaction with the script engine and returns its witness.
func (c msSpend) finalize(t *testing.T) ([][]byte, bool) {
	t.Helper()
	p, spent := c.build(t)
	if !p.Finalize() {
		return nil, false
	}
	tx, ok := p.Extract()
	if !ok {
		t.Fatal("final but not extractable")
	}
	hashes := txscript.NewTxSigHashes(tx, []wire.TxOut{spent})
	if err := txscript.VerifyInput(tx, 0, &spent, txscript.StandardVerifyFlags, nil, hashes); err != nil {
		t.Fatalf("%s: verify: %v", c.desc, err)
	}
	return tx.TxIn[0].Witness, true
}

// TestFinalizeMiniscript signs and finalizes P2WSH and tapscript
// miniscript spends, checking the witnesses with the script engine, and
// that an unmet timelock or a missing preimage or signature leaves the
// input unfinalized.
func TestFinalizeMiniscript(t *testing.T) {
	const rbf = wire.MaxTxInSequenceNum - 2
	cases := []struct {
		msSpend
		ok    bool
		items int // witness elements, script (and control block) included
	}{
		{msSpend{desc: "wsh(and_v(v:pk($0),older(10)))", signers: []int{0}, seq: 10}, true, 2},
		{msSpend{desc: "wsh(and_v(v:pk($0),older(10)))", signers: []int{0}, seq: 9}, false, 0},
		{msSpend{desc: "wsh(and_v(v:pk($0),older(10)))", signers: []int{0}, seq: 10 | wire.SequenceLockTimeIsSeconds}, false, 0},
		// The first branch alone, then the second: [sig(1), 0, script].
		{msSpend{desc: "wsh(or_d(pk($0),pk($1)))", signers: []int{0}, seq: rbf}, true, 2},
		{msSpend{desc: "wsh(or_d(pk($0),pk($1)))", signers: []int{1}, seq: rbf}, true, 3},
		{msSpend{desc: "wsh(or_d(pk($0),pk($1)))", signers: nil, seq: rbf}, false, 0},
		{msSpend{desc: "wsh(thresh(2,pk($0),s:pk($1),s:pk($2)))", signers: []int{1, 2}, seq: rbf}, true, 4},
		{msSpend{desc: "wsh(thresh(2,pk($0),s:pk($1),s:pk($2)))", signers: []int{2}, seq: rbf}, false, 0},
		{msSpend{desc: "wsh(and_v(v:pk($0),sha256($H)))", signers: []int{0}, seq: rbf, preimage: true}, true, 3},
		{msSpend{desc: "wsh(and_v(v:pk($0),sha256($H)))", signers: []int{0}, seq: rbf}, false, 0},
		// andor: the older() branch needs its timelock, the other pk($2).
		{msSpend{desc: "wsh(andor(pk($0),older(5),pk($2)))", signers: []int{0}, seq: 5}, true, 2},
		{msSpend{desc: "wsh(andor(pk($0),older(5),pk($2)))", signers: []int{0}, seq: rbf}, false, 0},
		{msSpend{desc: "wsh(andor(pk($0),older(5),pk($2)))", signers: []int{0, 2}, seq: rbf}, true, 3},
		{msSpend{desc: "wsh(and_v(v:multi(2,$0,$1,$2),after(100)))", signers: []int{0, 2}, seq: rbf, lockTime: 100}, true, 4},
		{msSpend{desc: "wsh(and_v(v:multi(2,$0,$1,$2),after(100)))", signers: []int{0, 2}, seq: rbf, lockTime: 99}, false, 0},
		// A final sequence disables the lock time.
		{msSpend{desc: "wsh(and_v(v:multi(2,$0,$1,$2),after(100)))", signers: []int{0, 2}, seq: wire.MaxTxInSequenceNum, lockTime: 100}, false, 0},
		// Nested in P2SH.
		{msSpend{desc: "sh(wsh(and_v(v:pk($0),older(10))))", signers: []int{0}, seq: 10}, true, 2},
		{msSpend{desc: "sh(wsh(and_v(v:pk($0),older(10))))", signers: []int{0}, seq: 9}, false, 0},
		// pk_h's key comes from the partial signature.
		{msSpend{desc: "wsh(or_d(pkh($0),pk($1)))", signers: []int{0}, seq: rbf}, true, 3},
		// Tapscript leaves (the internal key has no private key here).
		{msSpend{desc: "tr($3,{and_v(v:pk($0),older(10)),or_d(pk($1),pk($2))})", signers: []int{0}, seq: 10}, true, 3},
		{msSpend{desc: "tr($3,{and_v(v:pk($0),older(10)),or_d(pk($1),pk($2))})", signers: []int{0}, seq: 3}, false, 0},
		{msSpend{desc: "tr($3,{and_v(v:pk($0),older(10)),or_d(pk($1),pk($2))})", signers: []int{2}, seq: 3}, true, 4},
		{msSpend{desc: "tr($3,and_v(v:pk($0),sha256($H)))", signers: []int{0}, seq: rbf, preimage: true}, true, 4},
		{msSpend{desc: "tr($3,and_v(v:pk($0),sha256($H)))", signers: []int{0}, seq: rbf}, false, 0},
		{msSpend{desc: "tr($3,thresh(2,pk($0),s:pk($1),s:pk($2)))", signers: []int{0, 1}, seq: rbf}, true, 5},
		// A key named by hash is signed for too: [sig(1), sig(0), key(0)].
		{msSpend{desc: "tr($3,and_v(v:pkh($0),pk($1)))", signers: []int{0, 1}, seq: rbf}, true, 5},
		{msSpend{desc: "tr($3,and_v(v:pk($0),after(500000100)))", signers: []int{0}, seq: rbf, lockTime: 500000100}, true, 3},
		{msSpend{desc: "tr($3,and_v(v:pk($0),after(500000100)))", signers: []int{0}, seq: rbf, lockTime: 600}, false, 0},
	}
	for _, c := range cases {
		w, ok := c.finalize(t)
		if ok != c.ok {
			t.Errorf("%s signers %v seq %#x lock %d: finalized %v, want %v", c.desc, c.signers, c.seq, c.lockTime, ok, c.ok)
			continue
		}
		if ok && len(w) != c.items {
			t.Errorf("%s signers %v: witness %x, want %d elements", c.desc, c.signers, w, c.items)
		}
	}
}

// TestFinalizeMiniscriptSmallest checks that of two satisfactions the
// smaller is used: with both keys signed, or_d(pk(A),pk(B)) spends with
// A's signature alone.
func TestFinalizeMiniscriptSmallest(t *testing.T) {
	w, ok := msSpend{desc: "wsh(or_d(pk($0),pk($1)))", signers: []int{0, 1}, seq: 0xfffffffd}.finalize(t)
	if !ok || len(w) != 2 {
		t.Fatalf("witness %x", w)
	}
}

// TestAnalyzeMiniscriptMissingSigs checks that analysis of an unsigned
// P2WSH miniscript input lists the keys whose signatures the satisfaction
// asked for, and names the signer as next.
func TestAnalyzeMiniscriptMissingSigs(t *testing.T) {
	p, _ := msSpend{desc: "wsh(or_d(pk($0),pk($1)))", seq: 0xfffffffd}.build(t)
	a := p.Analyze()
	ia := a.Inputs[0]
	want := [][20]byte{txscript.Hash160(pubOf(key(t, 0x60))), txscript.Hash160(pubOf(key(t, 0x61)))}
	if ia.Next != RoleSigner || len(ia.MissingSigs) != 2 || ia.MissingSigs[0] != want[0] || ia.MissingSigs[1] != want[1] {
		t.Fatalf("analysis %+v, want signer with %x", ia, want)
	}
}
