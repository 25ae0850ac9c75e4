package blockfilter

import (
	"math/rand"
	"testing"

	"github.com/btcnode/btcd/wire"
)

// benchBlock is a ~2,000-transaction block of P2WPKH-like scripts: each
// transaction spends one output and creates two; 1 in 20 spent scripts
// repeats an earlier one, as address reuse does.
func benchBlock() (*wire.MsgBlock, [][]byte) {
	r := rand.New(rand.NewSource(7))
	script := func() []byte {
		s := make([]byte, 22)
		s[0], s[1] = 0x00, 0x14
		r.Read(s[2:])
		return s
	}
	const ntx = 2000
	b := &wire.MsgBlock{Header: wire.BlockHeader{Version: 4, Nonce: 1}}
	var prev [][]byte
	for i := range ntx {
		tx := &wire.MsgTx{Version: 2,
			TxIn:  []wire.TxIn{{Sequence: 0xffffffff}},
			TxOut: []wire.TxOut{{Value: 1, PkScript: script()}, {Value: 2, PkScript: script()}},
		}
		if i == 0 {
			tx.TxIn[0].PreviousOutPoint.Index = 0xffffffff
			tx.TxOut = append(tx.TxOut, wire.TxOut{PkScript: append([]byte{0x6a, 0x24}, make([]byte, 36)...)})
		} else if i%20 == 0 && len(prev) > 0 {
			prev = append(prev, prev[r.Intn(len(prev))])
		} else {
			prev = append(prev, script())
		}
		b.Transactions = append(b.Transactions, tx)
	}
	return b, prev
}

func BenchmarkBuildBasic2000Tx(b *testing.B) {
	block, prev := benchBlock()
	var bld Builder
	dst := bld.AppendBasic(nil, block, prev)
	b.ReportAllocs()
	b.SetBytes(int64(len(dst)))
	b.ResetTimer()
	for range b.N {
		dst = bld.AppendBasic(dst[:0], block, prev)
	}
	b.ReportMetric(float64(len(dst)), "filter-bytes")
}

func BenchmarkBuildBasicFresh2000Tx(b *testing.B) {
	block, prev := benchBlock()
	b.ReportAllocs()
	for range b.N {
		_ = BuildBasic(block, prev)
	}
}

func benchQueries(block *wire.MsgBlock, hits int) [][]byte {
	r := rand.New(rand.NewSource(9))
	q := make([][]byte, 0, 100)
	for i := range hits {
		q = append(q, block.Transactions[1+i*7].TxOut[0].PkScript)
	}
	for len(q) < 100 {
		s := make([]byte, 22)
		s[0], s[1] = 0x00, 0x14
		r.Read(s[2:])
		q = append(q, s)
	}
	return q
}

// BenchmarkMatchAny100 matches 100 wallet scripts, none in the block (the
// common case for a light client: the whole filter is walked).
func BenchmarkMatchAny100(b *testing.B) {
	block, prev := benchBlock()
	f := BuildBasic(block, prev)
	q := benchQueries(block, 0)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if f.MatchAny(q) {
			b.Fatal("unexpected match")
		}
	}
}

// BenchmarkMatch100Each matches the same 100 scripts one Match at a time.
func BenchmarkMatch100Each(b *testing.B) {
	block, prev := benchBlock()
	f := BuildBasic(block, prev)
	q := benchQueries(block, 1)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, s := range q {
			f.Match(s)
		}
	}
}

func BenchmarkFromBytes2000Tx(b *testing.B) {
	block, prev := benchBlock()
	f := BuildBasic(block, prev)
	h := block.BlockHash()
	k := KeyFromHash(&h)
	b.ReportAllocs()
	for range b.N {
		if _, err := FromBytes(BasicParams, k, f.Bytes()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkIndexConnect2000Tx(b *testing.B) {
	x, err := OpenIndex(b.TempDir(), IndexOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	block, prev := benchBlock()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		block.Header.PrevBlock, _ = x.Tip()
		block.Header.Nonce = uint32(i)
		if err := x.BlockConnected(block, int32(i), prev); err != nil {
			b.Fatal(err)
		}
	}
}
