package bloom

import (
	"bytes"
	"testing"

	"github.com/btcnode/btcd/wire"
)

// TestMurmur3 checks the hash against published MurmurHash3 x86_32
// values.
func TestMurmur3(t *testing.T) {
	cases := []struct {
		seed uint32
		data string
		want uint32
	}{
		{0, "", 0},
		{0xFBA4C795, "", 0x6a396f08},
		{0xffffffff, "", 0x81f16f39},
		{0, "\x00", 0x514e28b7},
		{0xFBA4C795, "\x00", 0xea3f0b17},
		{0, "\xff", 0xfd6cf10d},
		{0, "\x00\x11", 0x16c6b7ab},
		{0, "\x00\x11\x22", 0x8eb51c3d},
		{0, "\x00\x11\x22\x33", 0xb4471bf8},
		{0, "\x00\x11\x22\x33\x44", 0xe2301fa8},
		{0, "\x00\x11\x22\x33\x44\x55\x66\x77", 0x8034d2a0},
		{0, "The quick brown fox jumps over the lazy dog", 0x2e4ff723},
	}
	for _, c := range cases {
		if got := murmur3(c.seed, []byte(c.data)); got != c.want {
			t.Errorf("murmur3(%#x, %q) = %#x, want %#x", c.seed, c.data, got, c.want)
		}
	}
}

// TestNewSizing checks BIP37's sizing formulas and their caps.
func TestNewSizing(t *testing.T) {
	f := New(10, 0.000001, 0, wire.BloomUpdateAll)
	if len(f.data) != 35 || f.hashFuncs != 19 {
		t.Errorf("n=10 fp=1e-6: %d bytes, %d functions; want 35, 19", len(f.data), f.hashFuncs)
	}
	big := New(1_000_000, 0.0001, 0, 0)
	if len(big.data) != wire.MaxFilterLoadFilterSize || !big.MsgFilterLoad().WithinSizeConstraints() {
		t.Errorf("large filter not capped: %d bytes, %d functions", len(big.data), big.hashFuncs)
	}
	few := New(1, 1e-30, 0, 0)
	if few.hashFuncs != wire.MaxFilterLoadHashFuncs {
		t.Errorf("hash functions not capped: %d", few.hashFuncs)
	}
}

func TestAddMatches(t *testing.T) {
	f := New(3, 0.01, 2147483649, wire.BloomUpdateAll)
	a, b := []byte("element one"), []byte("element two")
	f.Add(a)
	if !f.Matches(a) {
		t.Fatal("inserted element does not match")
	}
	if f.Matches(b) {
		t.Fatal("other element matches (unlucky false positive?)")
	}
	op := wire.OutPoint{Hash: wire.Hash{7}, Index: 3}
	f.AddOutPoint(&op)
	if !f.MatchesOutPoint(&op) || f.MatchesOutPoint(&wire.OutPoint{Hash: wire.Hash{7}, Index: 4}) {
		t.Fatal("outpoint matching wrong")
	}
	// A filter loaded from its own message behaves the same.
	g := Load(f.MsgFilterLoad())
	if !g.Matches(a) || !g.MatchesOutPoint(&op) {
		t.Fatal("reloaded filter lost elements")
	}
}

// TestEmptyFilter checks CVE-2013-5700: an empty bit field (even with hash
// functions) must neither divide by zero nor reject anything.
func TestEmptyFilter(t *testing.T) {
	f := Load(&wire.MsgFilterLoad{HashFuncs: 1})
	f.Add([]byte("letstrytocrashthisnode"))
	if !f.Matches([]byte("anything")) || !f.MatchTxAndUpdate(&wire.MsgTx{}) {
		t.Fatal("empty filter must match everything")
	}
	z := Load(&wire.MsgFilterLoad{Filter: []byte{0}})
	z.Add([]byte("x"))
	if !z.Matches([]byte("y")) {
		t.Fatal("a filter without hash functions matches everything")
	}
}

func p2shScript(h byte) []byte {
	s := []byte{0xa9, 20}
	s = append(s, bytes.Repeat([]byte{h}, 20)...)
	return append(s, 0x87)
}

func p2pkScript() []byte {
	s := []byte{33, 0x02}
	s = append(s, bytes.Repeat([]byte{0x11}, 32)...)
	return append(s, 0xac)
}

func TestMatchTxAndUpdate(t *testing.T) {
	watched := bytes.Repeat([]byte{0xff}, 20)
	pay := &wire.MsgTx{Version: 2,
		TxIn:  []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Hash: wire.Hash{1}}}},
		TxOut: []wire.TxOut{{Value: 1, PkScript: p2shScript(0x01)}, {Value: 2, PkScript: p2shScript(0xff)}}}
	spend := &wire.MsgTx{Version: 2,
		TxIn:  []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Hash: pay.TxHash(), Index: 1}}},
		TxOut: []wire.TxOut{{Value: 1, PkScript: p2shScript(0x02)}}}
	other := &wire.MsgTx{Version: 2,
		TxIn:  []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Hash: wire.Hash{2}}}},
		TxOut: []wire.TxOut{{Value: 1, PkScript: p2shScript(0x03)}}}

	// BLOOM_UPDATE_ALL: the matched output is added, so its spend matches.
	f := New(10, 0.000001, 0, wire.BloomUpdateAll)
	f.Add(watched)
	if f.MatchTxAndUpdate(other) {
		t.Fatal("unrelated tx matched")
	}
	if !f.MatchTxAndUpdate(pay) {
		t.Fatal("output push did not match")
	}
	if !f.MatchTxAndUpdate(spend) {
		t.Fatal("spend of matched output not caught after update")
	}

	// BLOOM_UPDATE_NONE: no outpoint is added.
	n := New(10, 0.000001, 0, wire.BloomUpdateNone)
	n.Add(watched)
	if !n.MatchTxAndUpdate(pay) || n.MatchTxAndUpdate(spend) {
		t.Fatal("update none: wrong matches")
	}

	// BLOOM_UPDATE_P2PUBKEY_ONLY: only pay-to-pubkey (or bare multisig)
	// outputs are added.
	key := p2pkScript()[1:34]
	pk := New(10, 0.000001, 0, wire.BloomUpdateP2PubkeyOnly)
	pk.Add(key)
	pk.Add(watched)
	toKey := &wire.MsgTx{Version: 2, TxIn: []wire.TxIn{{PreviousOutPoint: wire.OutPoint{Hash: wire.Hash{3}}}},
		TxOut: []wire.TxOut{{Value: 1, PkScript: p2pkScript()}}}
	if !pk.MatchTxAndUpdate(toKey) || !pk.MatchesOutPoint(&wire.OutPoint{Hash: toKey.TxHash()}) {
		t.Fatal("p2pk output not added under P2PUBKEY_ONLY")
	}
	if !pk.MatchTxAndUpdate(pay) || pk.MatchesOutPoint(&wire.OutPoint{Hash: pay.TxHash(), Index: 1}) {
		t.Fatal("p2sh output added under P2PUBKEY_ONLY")
	}

	// The txid and input script pushes match too.
	byID := New(10, 0.000001, 0, wire.BloomUpdateNone)
	id := other.TxHash()
	byID.Add(id[:])
	if !byID.MatchTxAndUpdate(other) {
		t.Fatal("txid did not match")
	}
	sig := New(10, 0.000001, 0, wire.BloomUpdateNone)
	sig.Add([]byte{9, 9, 9})
	withSig := &wire.MsgTx{Version: 1, TxIn: []wire.TxIn{{SignatureScript: []byte{3, 9, 9, 9}}},
		TxOut: []wire.TxOut{{PkScript: []byte{0x51}}}}
	if !sig.MatchTxAndUpdate(withSig) {
		t.Fatal("scriptSig push did not match")
	}
	// A truncated push stops the scan without matching beyond it.
	withSig.TxIn[0].SignatureScript = []byte{4, 9, 9, 9}
	if sig.MatchTxAndUpdate(withSig) {
		t.Fatal("truncated push matched")
	}
}
