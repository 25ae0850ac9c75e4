package blockfilter

import (
	"bytes"
	"errors"
	"math/rand"
	"slices"
	"testing"

	"github.com/btcnode/btcd/wire"
)

func randItems(r *rand.Rand, n int) [][]byte {
	items := make([][]byte, n)
	for i := range items {
		items[i] = make([]byte, 8+r.Intn(32))
		r.Read(items[i])
	}
	return items
}

func TestGCSRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, p := range []Params{BasicParams, {P: 1, M: 2}, {P: 32, M: 1<<32 - 1}, {P: 10, M: 1}} {
		for _, n := range []int{0, 1, 2, 100, 3000} {
			var k Key
			r.Read(k[:])
			items := randItems(r, n)
			// Duplicates are counted once.
			withDups := append(append([][]byte{}, items...), items[:n/2]...)
			f, err := NewFilter(p, k, withDups)
			if err != nil {
				t.Fatal(err)
			}
			if int(f.N()) != n {
				t.Fatalf("P=%d n=%d: N=%d", p.P, n, f.N())
			}
			g, err := FromBytes(p, k, f.Bytes())
			if err != nil {
				t.Fatalf("P=%d n=%d: %v", p.P, n, err)
			}
			for _, it := range items {
				if !g.Match(it) {
					t.Fatalf("P=%d n=%d: item missing", p.P, n)
				}
			}
			if n > 0 {
				probe := append(randItems(r, 100), items[n-1])
				if !g.MatchAny(probe) {
					t.Fatalf("P=%d n=%d: MatchAny (large query) missed", p.P, n)
				}
			}
			if p == BasicParams && n >= 100 {
				fp := 0
				for _, it := range randItems(r, 2000) {
					if g.Match(it) {
						fp++
					}
				}
				if fp > 2 {
					t.Errorf("n=%d: %d false positives in 2000", n, fp)
				}
			}
		}
	}
}

func TestBitStreamLongQuotients(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for _, p := range []uint{1, 5, 19, 32} {
		vals := make([]uint64, 3000)
		for i := range vals {
			q := uint64(r.Intn(3)) // typical
			if i%10 == 0 {
				q = uint64(r.Intn(200)) // runs over several 32-bit writes
			}
			vals[i] = q<<p | uint64(r.Int63())&(1<<p-1)
		}
		var w bitWriter
		for _, v := range vals {
			w.golombRice(v, p)
		}
		buf := w.flush()
		rd := bitReader{data: buf}
		for i, v := range vals {
			got, ok := rd.golombRice(p)
			if !ok || got != v {
				t.Fatalf("p=%d value %d: got %d ok=%v want %d", p, i, got, ok, v)
			}
		}
		if rd.bytesUsed() != len(buf) {
			t.Fatalf("p=%d: used %d of %d bytes", p, rd.bytesUsed(), len(buf))
		}
	}
}

func TestFromBytesMalformed(t *testing.T) {
	var k Key
	good, err := NewFilter(BasicParams, k, [][]byte{{1}, {2}, {3}})
	if err != nil {
		t.Fatal(err)
	}
	raw := good.Bytes()
	cases := map[string][]byte{
		"empty":            {},
		"N too large":      {0xfe, 0xff, 0xff, 0xff, 0x7f, 0, 0},
		"N 2^32":           {0xff, 0, 0, 0, 0, 1, 0, 0, 0},
		"non-canonical N":  {0xfd, 0x03, 0x00, 1, 2, 3, 4, 5, 6, 7, 8},
		"truncated":        raw[:len(raw)-1],
		"excess byte":      append(append([]byte{}, raw...), 0),
		"N=0 with data":    {0, 0},
		"unterminated run": {1, 0xff, 0xff, 0xff},
	}
	for name, b := range cases {
		if _, err := FromBytes(BasicParams, k, b); !errors.Is(err, ErrMalformedFilter) {
			t.Errorf("%s: err %v, want ErrMalformedFilter", name, err)
		}
	}
	if _, err := FromBytes(Params{P: 0, M: 1}, k, raw); !errors.Is(err, ErrInvalidArg) {
		t.Errorf("P=0: %v", err)
	}
	if f, err := FromBytes(BasicParams, k, []byte{0}); err != nil || f.Match([]byte{1}) || f.MatchAny([][]byte{{1}}) {
		t.Errorf("empty filter: %v", err)
	}
}

// TestDistinctKeepsCollisions checks that distinct items with keys equal
// above the index bits are both kept and repeats in a run are dropped.
func TestDistinctKeepsCollisions(t *testing.T) {
	items := [][]byte{{1}, {2}, {1}, {3}, {2}}
	const ib = 3
	keys := []uint64{5 << ib, 5<<ib | 1, 5<<ib | 2, 5<<ib | 4, 7<<ib | 3}
	if n := distinct(keys, items, ib); n != 3 {
		t.Fatalf("n = %d", n)
	}
	if keys[2] != dropped || keys[3] != dropped || keys[0] == dropped || keys[1] == dropped || keys[4] == dropped {
		t.Fatalf("keys %x", keys)
	}
}

// referenceFilter is a direct transcription of BIP158's construction.
func referenceFilter(p Params, k Key, items [][]byte) []byte {
	seen := map[string]bool{}
	var uniq [][]byte
	for _, it := range items {
		if !seen[string(it)] {
			seen[string(it)] = true
			uniq = append(uniq, it)
		}
	}
	k0, k1 := k.halves()
	f := uint64(len(uniq)) * p.M
	vals := make([]uint64, len(uniq))
	for i, it := range uniq {
		vals[i] = hashToRange(wire.SipHash24(k0, k1, it), f)
	}
	slices.Sort(vals)
	w := bitWriter{buf: wire.AppendVarInt(nil, uint64(len(uniq)))}
	var last uint64
	for _, v := range vals {
		w.golombRice(v-last, uint(p.P))
		last = v
	}
	return w.flush()
}

func TestBuilderMatchesReference(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	var b Builder
	for round := range 100 {
		var k Key
		r.Read(k[:])
		n := r.Intn(1000)
		items := make([][]byte, n)
		for i := range items {
			items[i] = []byte{byte(r.Intn(4)), byte(r.Intn(64))} // many repeats
		}
		// M=1 makes mapped values collide constantly.
		for _, p := range []Params{BasicParams, {P: 2, M: 1}, {P: 5, M: 3}} {
			got, err := b.AppendFilter(nil, p, k, items)
			if err != nil {
				t.Fatal(err)
			}
			if want := referenceFilter(p, k, items); !bytes.Equal(got, want) {
				t.Fatalf("round %d P=%d: %x != %x", round, p.P, got, want)
			}
		}
	}
}
