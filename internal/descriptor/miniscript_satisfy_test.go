package descriptor

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/btcnode/btcd/txscript"
)

// fakeSatisfier answers from fixed data: a signature for every key in
// sigs (its first byte standing for the key), one preimage, and fixed
// timelock answers.
type fakeSatisfier struct {
	sigs       map[string][]byte
	pre        []byte
	older      bool
	after      bool
	asked      []string
	knownByPKH [][]byte
}

func (f *fakeSatisfier) Signature(pub []byte) []byte {
	f.asked = append(f.asked, hex.EncodeToString(pub))
	return f.sigs[string(pub)]
}

func (f *fakeSatisfier) PubKey(h [20]byte) []byte {
	for _, k := range f.knownByPKH {
		if txscript.Hash160(k) == h {
			return k
		}
	}
	return nil
}

func (f *fakeSatisfier) Preimage(fn HashFunc, hash []byte) []byte {
	if s := sha256.Sum256(f.pre); fn == HashSHA256 && bytes.Equal(s[:], hash) {
		return f.pre
	}
	return nil
}

func (f *fakeSatisfier) Older(uint32) bool { return f.older }
func (f *fakeSatisfier) After(uint32) bool { return f.after }

// msScript returns the witness script of wsh(ms) or the only leaf of
// tr(internal,ms), with $A..$D standing for keys (x-only in tr()).
func msScript(t *testing.T, ms string, tap bool) []byte {
	t.Helper()
	for i, k := range []string{msKeyA, msKeyB, msKeyC, msKeyD} {
		if tap {
			k = k[2:]
		}
		ms = strings.ReplaceAll(ms, "$"+string(rune('A'+i)), k)
	}
	d := "wsh(" + ms + ")"
	if tap {
		d = "tr(" + msKeyD[2:] + "," + ms + ")"
	}
	outs, err := mustParse(t, d, MainNet)[0].Expand(0)
	if err != nil {
		t.Fatal(err)
	}
	si := outs[0].SigningInfo()
	if tap {
		return si.Taproot[0].Leaves[0].Script
	}
	return si.Scripts[0]
}

// msKey returns a test key in script form.
func msKey(t *testing.T, k string, tap bool) []byte {
	b, err := hex.DecodeString(k)
	if err != nil {
		t.Fatal(err)
	}
	if tap {
		return b[1:]
	}
	return b
}

// TestSatisfyScript checks satisfactions against BIP379's rules: the
// stack order of each fragment, the smallest option winning, and no
// satisfaction that is malleable or lacks a signature.
func TestSatisfyScript(t *testing.T) {
	pre := bytes.Repeat([]byte{7}, 32)
	h := sha256.Sum256(pre)
	hash := hex.EncodeToString(h[:])
	// sha256(h), which Parse only takes inside sane expressions.
	hashLock := append(append([]byte{txscript.OP_SIZE, 1, 32, txscript.OP_EQUALVERIFY, txscript.OP_SHA256, 32}, h[:]...), txscript.OP_EQUAL)
	hashLock = hashLock[:len(hashLock):len(hashLock)]
	sigA, sigB, sigC := []byte{0xa1, 1}, []byte{0xb1, 1, 2, 3}, []byte{0xc1, 1}
	cases := []struct {
		ms      string
		script  []byte // instead of ms, for scripts Parse refuses
		tap     bool
		signed  string // keys with signatures, of "ABC"
		pre     bool
		older   bool
		want    [][]byte
		wantNil bool
	}{
		// and_b(X,Y): Y's satisfaction below X's.
		{ms: "and_b(pk($A),a:pk($B))", signed: "AB", want: [][]byte{sigB, sigA}},
		// CHECKMULTISIG's extra element first, signatures in key order;
		// of three signatures the two smallest.
		{ms: "multi(2,$A,$B,$C)", signed: "ABC", want: [][]byte{{}, sigA, sigC}},
		{ms: "multi(2,$A,$B,$C)", signed: "AC", want: [][]byte{{}, sigA, sigC}},
		// multi_a: the first key's slot on top, empty for no signature.
		{ms: "multi_a(2,$A,$B,$C)", tap: true, signed: "AC", want: [][]byte{sigC, {}, sigA}},
		// The smaller of two signatures wins.
		{ms: "or_d(pk($B),pk($A))", signed: "AB", want: [][]byte{sigA, {}}},
		{ms: "or_i(pk($A),pk($B))", signed: "B", want: [][]byte{sigB, {}}},
		{ms: "or_i(pk($A),pk($B))", signed: "A", want: [][]byte{sigA, {1}}},
		{ms: "andor(pk($A),older(5),pk($B))", signed: "A", older: true, want: [][]byte{sigA}},
		{ms: "andor(pk($A),older(5),pk($B))", signed: "A", wantNil: true},
		{ms: "and_v(v:pk($A),sha256(" + hash + "))", signed: "A", pre: true, want: [][]byte{pre, sigA}},
		{ms: "thresh(2,pk($A),s:pk($B),sln:older(3))", signed: "B", older: true, want: [][]byte{{}, sigB, {}}},
		// No signature: Core's finalizer refuses.
		{ms: "sha256", script: hashLock, pre: true, wantNil: true},
		// Dissatisfying sha256() with any 32 bytes is malleable.
		{ms: "or_d(sha256,pk($A))", script: append(append(append(append(hashLock, txscript.OP_IFDUP, txscript.OP_NOTIF, 33), msKey(t, msKeyA, false)...), txscript.OP_CHECKSIG), txscript.OP_ENDIF), signed: "A", wantNil: true},
		// pk_h's key comes from the satisfier.
		{ms: "pkh($A)", signed: "A", want: [][]byte{sigA, nil}},
		{ms: "and_v(v:pkh($A),pk($B))", tap: true, signed: "AB", want: [][]byte{sigB, sigA, nil}},
	}
	for _, c := range cases {
		script := c.script
		if script == nil {
			script = msScript(t, c.ms, c.tap)
		}
		f := &fakeSatisfier{sigs: map[string][]byte{}, older: c.older}
		for i, k := range []string{msKeyA, msKeyB, msKeyC} {
			key := msKey(t, k, c.tap)
			f.knownByPKH = append(f.knownByPKH, key)
			if strings.ContainsRune(c.signed, rune('A'+i)) {
				f.sigs[string(key)] = [][]byte{sigA, sigB, sigC}[i]
			}
		}
		if c.pre {
			f.pre = pre
		}
		// A nil item stands for key A as pk_h pushes it.
		for i := range c.want {
			if c.want[i] == nil {
				c.want[i] = msKey(t, msKeyA, c.tap)
			}
		}
		got, ok := SatisfyScript(script, c.tap, f)
		switch {
		case c.wantNil && ok:
			t.Errorf("%s: satisfied with %x, want none", c.ms, got)
		case c.wantNil && c.signed != "" && len(f.asked) == 0:
			t.Errorf("%s: not decoded", c.ms)
		case !c.wantNil && (!ok || len(got) != len(c.want)):
			t.Errorf("%s: got %x (%v), want %x", c.ms, got, ok, c.want)
		case !c.wantNil:
			for i := range got {
				if !bytes.Equal(got[i], c.want[i]) {
					t.Errorf("%s: item %d is %x, want %x", c.ms, i, got[i], c.want[i])
				}
			}
		}
	}
	// Scripts that are not miniscript are not satisfied.
	if _, ok := SatisfyScript([]byte{txscript.OP_RETURN}, false, &fakeSatisfier{}); ok {
		t.Error("OP_RETURN satisfied")
	}
}

// fullSatisfier has everything: a signature for every key, every
// preimage (the script check is not run), and every timelock met.
type fullSatisfier struct{}

func (fullSatisfier) Signature([]byte) []byte          { return make([]byte, 72) }
func (fullSatisfier) PubKey(h [20]byte) []byte         { return nil }
func (fullSatisfier) Preimage(HashFunc, []byte) []byte { return make([]byte, 32) }
func (fullSatisfier) Older(uint32) bool                { return true }
func (fullSatisfier) After(uint32) bool                { return true }

// FuzzSatisfyScript satisfies arbitrary scripts with everything
// available: nothing panics, and every sane miniscript (whose
// satisfaction Core guarantees once its conditions are met) is satisfied,
// within its stack size bound.
func FuzzSatisfyScript(f *testing.F) {
	for _, h := range []string{
		"82012088a914ffffffffffffffffffffffffffffffffffffffff88210250929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0ad51b2",
		"21" + msKeyA + "ac7364" + "21" + msKeyB + "ad0190b268",
		"21" + msKeyA + "ac7c21" + msKeyB + "ac937c21" + msKeyC + "ac935287",
	} {
		b, _ := hex.DecodeString(h)
		f.Add(b, false)
		f.Add(b, true)
	}
	f.Fuzz(func(t *testing.T, s []byte, tap bool) {
		w, ok := SatisfyScript(s, tap, fullSatisfier{})
		n := inferMiniscript(s, tap, NewProvider())
		if n == nil || !n.ms.c.stSat.ok() {
			return
		}
		if !ok {
			t.Fatalf("sane %x (tap %v) not satisfied", s, tap)
		}
		if max := n.ms.c.stSat.val(); len(w) > max {
			t.Fatalf("%x: %d stack elements, bound %d", s, len(w), max)
		}
	})
}
