package database

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
)

// sortRecFixture is n entries whose keys share prefixes the ways a
// flush's do: outputs of one transaction (a run of up to 3 or, once, a
// long one), different transactions with one 4-byte prefix, and prefixes
// that agree in their leading bytes only. recs lists them shuffled.
func sortRecFixture(rng *rand.Rand, n int) (entries []cacheEntry, recs []sortRec) {
	entries = make([]cacheEntry, 0, n)
	add := func(txid [32]byte, index uint32) {
		var e cacheEntry
		copy(e.key[:32], txid[:])
		binary.LittleEndian.PutUint32(e.key[32:], index)
		entries = append(entries, e)
	}
	var txid [32]byte
	for len(entries) < n {
		for i := range txid {
			txid[i] = byte(rng.Uint32())
		}
		switch rng.IntN(8) {
		case 0: // same 4-byte prefix as the previous transaction
			if len(entries) > 0 {
				copy(txid[:4], entries[len(entries)-1].key[:4])
			}
		case 1: // same leading 2 bytes
			if len(entries) > 0 {
				copy(txid[:2], entries[len(entries)-1].key[:2])
			}
		}
		outs := 1 + rng.IntN(3)
		if len(entries) == n/2 {
			outs = 3 * radixSmall
		}
		for o := 0; o < outs && len(entries) < n; o++ {
			add(txid, uint32(rng.IntN(300)))
		}
	}
	for i := range entries {
		recs = append(recs, sortRec{prefix: binary.BigEndian.Uint32(entries[i].key[:4]), idx: uint32(i)})
	}
	rng.Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
	return entries, recs
}

// sortRecs sorts recs as a flush does: by prefix, then each run by key.
func sortRecs(recs []sortRec, at func(uint32) *cacheEntry) {
	sortByPrefix(recs)
	for i := 0; i < len(recs); {
		i = sortRunByKey(recs, i, at)
	}
}

// The flush's sort orders records as a comparison sort by whole key does, for
// sizes below, at and above each of its thresholds.
func TestSortRecsMatchesKeyOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, radixSmall - 1, radixSmall, radixSmall + 1, 300, 5000, 70000} {
		entries, recs := sortRecFixture(rng, n)
		at := func(i uint32) *cacheEntry { return &entries[i] }
		sortRecs(recs, at)
		want := slices.Clone(recs)
		slices.SortFunc(want, func(a, b sortRec) int { return compareKeys(&at(a.idx).key, &at(b.idx).key) })
		for i := range recs {
			if at(recs[i].idx).key != at(want[i].idx).key {
				t.Fatalf("n=%d: record %d out of order", n, i)
			}
		}
		seen := make([]bool, n)
		for _, r := range recs {
			if seen[r.idx] {
				t.Fatalf("n=%d: entry %d twice", n, r.idx)
			}
			seen[r.idx] = true
		}
	}
}

// BenchmarkSortRecs sorts 4M flush records (a default-cache flush of the
// mainnet-scale sync): "prefix" is the radix sort that runs before the
// write, "runs" adds the ordering of equal prefixes that the write does
// as it goes, "comparison" is a sort by prefix, then key, in one pass.
func BenchmarkSortRecs(b *testing.B) {
	const n = 4_000_000
	entries, recs := sortRecFixture(rand.New(rand.NewPCG(3, 4)), n)
	at := func(i uint32) *cacheEntry { return &entries[i] }
	work := make([]sortRec, n)
	b.Run("prefix", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			copy(work, recs)
			sortByPrefix(work)
		}
	})
	b.Run("runs", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			copy(work, recs)
			sortRecs(work, at)
		}
	})
	b.Run("comparison", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			copy(work, recs)
			slices.SortFunc(work, func(a, b sortRec) int {
				switch {
				case a.prefix < b.prefix:
					return -1
				case a.prefix > b.prefix:
					return 1
				}
				return compareKeys(&at(a.idx).key, &at(b.idx).key)
			})
		}
	})
}
