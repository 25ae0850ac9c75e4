package muhash

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math/big"
	"math/rand/v2"
	"testing"
)

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// reversedHex prints a digest the way Core prints uint256 values.
func reversedHex(d [Size]byte) string {
	for i, j := 0, len(d)-1; i < j; i, j = i+1, j-1 {
		d[i], d[j] = d[j], d[i]
	}
	return hex.EncodeToString(d[:])
}

func serialize(w []uint32) []byte {
	out := make([]byte, 0, 4*len(w))
	for _, v := range w {
		out = binary.LittleEndian.AppendUint32(out, v)
	}
	return out
}

// TestChaCha20RFC8439 checks the block function against RFC 8439's
// section 2.3.2 example and Appendix A.1 test vectors #1 and #2.
func TestChaCha20RFC8439(t *testing.T) {
	var seqKey [32]byte
	for i := range seqKey {
		seqKey[i] = byte(i)
	}
	cases := []struct {
		name    string
		key     [32]byte
		counter uint32
		nonce   string
		want    string
	}{
		{"2.3.2", seqKey, 1, "000000090000004a00000000",
			"10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e" +
				"d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e"},
		{"A.1 #1", [32]byte{}, 0, "000000000000000000000000",
			"76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7" +
				"da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586"},
		{"A.1 #2", [32]byte{}, 1, "000000000000000000000000",
			"9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed" +
				"29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f"},
	}
	for _, c := range cases {
		k := keyWords(&c.key)
		nb := mustHex(t, c.nonce)
		nonce := [3]uint32{binary.LittleEndian.Uint32(nb), binary.LittleEndian.Uint32(nb[4:]), binary.LittleEndian.Uint32(nb[8:])}
		var out [16]uint32
		chachaBlock(&k, c.counter, &nonce, &out)
		if got := hex.EncodeToString(serialize(out[:])); got != c.want {
			t.Errorf("%s: got %s\nwant %s", c.name, got, c.want)
		}
	}
	// The MuHash keystream is blocks 0..5 under the zero nonce: its
	// first two blocks are A.1 #1 and #2.
	var ks [elemWords32]uint32
	keystreamWords(&[32]byte{}, &ks)
	if got := hex.EncodeToString(serialize(ks[:32])); got != cases[1].want+cases[2].want {
		t.Errorf("keystream start %s", got)
	}
}

// TestReferenceVector is the vector of Core's MuHash3072 unit test and
// test_framework/crypto/muhash.py.
func TestReferenceVector(t *testing.T) {
	m := New()
	m.Insert(make([]byte, 32))
	m.Insert(append([]byte{1}, make([]byte, 31)...))
	m.Remove(append([]byte{2}, make([]byte, 31)...))
	const want = "10d312b100cbd32ada024a6646e40d3482fcff103668d2625f10002a607d5863"
	if got := reversedHex(m.Finalize()); got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	// Finalize does not change the state.
	if got := reversedHex(m.Finalize()); got != want {
		t.Fatalf("second Finalize %s", got)
	}
}

// naiveDigest computes the MuHash of ins/rem with plain big.Int modular
// arithmetic, as an independent check of the folded reduction.
func naiveDigest(ins, rem [][]byte) [Size]byte {
	num, den := big.NewInt(1), big.NewInt(1)
	elem := func(d []byte) *big.Int {
		key := sha256.Sum256(d)
		var ks [elemWords32]uint32
		keystreamWords(&key, &ks)
		le := serialize(ks[:])
		be := make([]byte, len(le))
		for i := range le {
			be[len(le)-1-i] = le[i]
		}
		return new(big.Int).SetBytes(be)
	}
	for _, d := range ins {
		num.Mod(num.Mul(num, elem(d)), modulus)
	}
	for _, d := range rem {
		den.Mod(den.Mul(den, elem(d)), modulus)
	}
	r := new(big.Int).Mul(num, new(big.Int).ModInverse(den, modulus))
	r.Mod(r, modulus)
	var buf [384]byte
	r.FillBytes(buf[:])
	for i, j := 0, len(buf)-1; i < j; i, j = i+1, j-1 {
		buf[i], buf[j] = buf[j], buf[i]
	}
	return sha256.Sum256(buf[:])
}

func randItems(r *rand.Rand, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		b := make([]byte, r.IntN(80))
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		out[i] = b
	}
	return out
}

func TestAgainstNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 20 {
		ins, rem := randItems(r, 1+round), randItems(r, round%4)
		m := New()
		for _, d := range ins {
			m.Insert(d)
		}
		for _, d := range rem {
			m.Remove(d)
		}
		if got, want := m.Finalize(), naiveDigest(ins, rem); got != want {
			t.Fatalf("round %d: %x != %x", round, got, want)
		}
	}
}

// TestReduceEdges checks mulMod on operands at the top of the range,
// where the folds carry furthest.
func TestReduceEdges(t *testing.T) {
	top := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), numBits), big.NewInt(1))
	pm1 := new(big.Int).Sub(modulus, big.NewInt(1))
	vals := []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(modC), pm1, new(big.Int).Set(modulus), top}
	var m MuHash
	for _, x := range vals {
		for _, y := range vals {
			z := new(big.Int).Set(x)
			m.mulMod(z, y)
			want := new(big.Int).Mul(x, y)
			want.Mod(want, modulus)
			if z.Cmp(want) != 0 {
				t.Errorf("%x * %x: got %x want %x", x, y, z, want)
			}
		}
	}
}

func TestOrderIndependence(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	items := randItems(r, 30)
	a, b := New(), New()
	for _, d := range items {
		a.Insert(d)
	}
	for _, i := range r.Perm(len(items)) {
		b.Insert(items[i])
	}
	if a.Finalize() != b.Finalize() {
		t.Fatal("digest depends on insertion order")
	}
	// Insert then remove an extra element: back to the same set.
	b.Insert([]byte("extra"))
	if a.Finalize() == b.Finalize() {
		t.Fatal("extra element did not change the digest")
	}
	b.Remove([]byte("extra"))
	if a.Finalize() != b.Finalize() {
		t.Fatal("remove did not undo insert")
	}
	// Combine of two halves equals the whole.
	h1, h2 := New(), New()
	for i, d := range items {
		if i%2 == 0 {
			h1.Insert(d)
		} else {
			h2.Insert(d)
		}
	}
	h1.Combine(h2)
	if h1.Finalize() != a.Finalize() {
		t.Fatal("Combine of halves differs")
	}
	var empty MuHash
	if empty.Finalize() != naiveDigest(nil, nil) {
		t.Fatal("empty set digest")
	}
}

func TestInsertAllocs(t *testing.T) {
	m := New()
	data := bytes.Repeat([]byte{7}, 60)
	m.Insert(data)
	m.Remove(data)
	if n := testing.AllocsPerRun(100, func() { m.Insert(data); m.Remove(data) }); n != 0 {
		t.Errorf("%v allocs per Insert+Remove", n)
	}
}

// FuzzMuHash compares the folded reduction with plain big.Int arithmetic.
func FuzzMuHash(f *testing.F) {
	f.Add([]byte{}, []byte{1})
	f.Add(make([]byte, 32), append([]byte{2}, make([]byte, 31)...))
	f.Add([]byte("coin"), []byte{})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		m := New()
		m.Insert(a)
		m.Insert(b)
		m.Remove(a)
		if got, want := m.Finalize(), naiveDigest([][]byte{a, b}, [][]byte{a}); got != want {
			t.Fatalf("got %x want %x", got, want)
		}
	})
}

func BenchmarkInsert(b *testing.B) {
	m := New()
	data := make([]byte, 60) // a typical serialized P2WPKH coin
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		binary.LittleEndian.PutUint32(data, uint32(i))
		m.Insert(data)
	}
}

func BenchmarkFinalize(b *testing.B) {
	m := New()
	m.Insert([]byte("a"))
	m.Remove([]byte("b"))
	b.ReportAllocs()
	for b.Loop() {
		m.Finalize()
	}
}

func BenchmarkChaChaBlock(b *testing.B) {
	var k [8]uint32
	var nonce [3]uint32
	var out [16]uint32
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		chachaBlock(&k, uint32(i), &nonce, &out)
	}
}
