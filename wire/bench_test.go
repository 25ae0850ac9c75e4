package wire

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"sync"
	"testing"
)

// benchBlockTxs is the transaction count of the synthetic block.
const benchBlockTxs = 2000

var (
	benchOnce  sync.Once
	benchBlock *MsgBlock
	benchRaw   []byte
)

func randBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

func randHash(rng *rand.Rand) (h Hash) {
	for i := 0; i < HashSize; i += 8 {
		binary.LittleEndian.PutUint64(h[i:], rng.Uint64())
	}
	return h
}

// p2wpkhScript, p2trScript and p2pkhScript return output scripts of the
// standard sizes (22, 34 and 25 bytes).
func p2wpkhScript(rng *rand.Rand) []byte {
	return append([]byte{0x00, 0x14}, randBytes(rng, 20)...)
}

func p2trScript(rng *rand.Rand) []byte {
	return append([]byte{0x51, 0x20}, randBytes(rng, 32)...)
}

func p2pkhScript(rng *rand.Rand) []byte {
	s := append([]byte{0x76, 0xa9, 0x14}, randBytes(rng, 20)...)
	return append(s, 0x88, 0xac)
}

// buildBenchBlock makes a realistic block of benchBlockTxs transactions:
// mostly P2WPKH spends (1-3 inputs, witness of a 72-byte signature and a
// 33-byte key, two 22-byte outputs), one in 20 a P2TR key-path spend and
// one in 20 a legacy P2PKH spend, after a segwit coinbase.
func buildBenchBlock() *MsgBlock {
	rng := rand.New(rand.NewPCG(1, 2))
	txs := make([]*MsgTx, 0, benchBlockTxs)
	txs = append(txs, &MsgTx{Version: 2,
		TxIn: []TxIn{{PreviousOutPoint: OutPoint{Index: MaxPrevOutIndex},
			SignatureScript: randBytes(rng, 40), Witness: [][]byte{make([]byte, 32)}, Sequence: MaxTxInSequenceNum}},
		TxOut: []TxOut{{Value: 3_125_0000_0, PkScript: p2wpkhScript(rng)},
			{Value: 0, PkScript: append([]byte{0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed}, randBytes(rng, 32)...)}}})
	for len(txs) < benchBlockTxs {
		tx := &MsgTx{Version: 2, LockTime: 840000}
		kind := rng.IntN(20)
		nIn := 1 + rng.IntN(3)
		for range nIn {
			in := TxIn{PreviousOutPoint: OutPoint{Hash: randHash(rng), Index: uint32(rng.IntN(4))}, Sequence: 0xfffffffd}
			switch kind {
			case 0: // P2TR key path
				in.Witness = [][]byte{randBytes(rng, 64)}
			case 1: // P2PKH
				in.SignatureScript = randBytes(rng, 107)
			default: // P2WPKH
				in.Witness = [][]byte{randBytes(rng, 72), randBytes(rng, 33)}
			}
			tx.TxIn = append(tx.TxIn, in)
		}
		for range 2 {
			var s []byte
			switch kind {
			case 0:
				s = p2trScript(rng)
			case 1:
				s = p2pkhScript(rng)
			default:
				s = p2wpkhScript(rng)
			}
			tx.TxOut = append(tx.TxOut, TxOut{Value: int64(rng.IntN(1e8)), PkScript: s})
		}
		txs = append(txs, tx)
	}
	blk := &MsgBlock{Header: testHeader(840000), Transactions: txs}
	blk.Header.MerkleRoot, _ = blk.MerkleRoot()
	return blk
}

func benchData(b testing.TB) (*MsgBlock, []byte) {
	benchOnce.Do(func() {
		blk := buildBenchBlock()
		benchRaw = blk.Bytes()
		benchBlock = new(MsgBlock)
		if _, err := benchBlock.Decode(benchRaw); err != nil {
			panic(err)
		}
	})
	return benchBlock, benchRaw
}

func BenchmarkDecodeBlock(b *testing.B) {
	_, raw := benchData(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var blk MsgBlock
		if _, err := blk.Decode(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeBlock(b *testing.B) {
	blk, raw := benchData(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bp := GetBuffer(blk.SerializeSize())
		*bp = blk.AppendTo((*bp)[:0], true)
		PutBuffer(bp)
	}
}

func BenchmarkBlockHashes(b *testing.B) {
	blk, _ := benchData(b)
	// Cached: the txids and wtxids computed at decode, then both roots.
	b.Run("decoded", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			_ = blk.TxHashes()
			_ = blk.WitnessHashes()
			_, _ = blk.MerkleRoot()
			_ = blk.WitnessMerkleRoot()
		}
	})
	// Recompute: re-serialize and hash every transaction, then the roots.
	b.Run("recompute", func(b *testing.B) {
		b.ReportAllocs()
		fresh := &MsgBlock{Header: blk.Header, Transactions: blk.Transactions}
		for i := 0; i < b.N; i++ {
			txids := fresh.TxHashes()
			_ = fresh.WitnessHashes()
			_, _ = CalcMerkleRoot(txids)
			_ = fresh.WitnessMerkleRoot()
		}
	})
}

func BenchmarkTxDecode(b *testing.B) {
	blk, _ := benchData(b)
	raw := blk.Transactions[2].Bytes()
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var tx MsgTx
		if _, err := tx.Decode(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadMessageBlock(b *testing.B) {
	_, raw := benchData(b)
	msg := frame(MainNet, CmdBlock, raw)
	r := bytes.NewReader(msg)
	b.ReportAllocs()
	b.SetBytes(int64(len(msg)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.Reset(msg)
		if _, _, err := ReadMessage(r, ProtocolVersion, MainNet, WitnessEncoding); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteMessage(b *testing.B) {
	blk, raw := benchData(b)
	b.Run("block", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(raw)))
		for i := 0; i < b.N; i++ {
			if _, err := WriteMessage(io.Discard, blk, ProtocolVersion, MainNet, WitnessEncoding); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ping", func(b *testing.B) {
		b.ReportAllocs()
		m := &MsgPing{Nonce: 1}
		for i := 0; i < b.N; i++ {
			if _, err := WriteMessage(io.Discard, m, ProtocolVersion, MainNet, WitnessEncoding); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkReadMessageSmall(b *testing.B) {
	inv := &MsgInv{}
	for i := range 35 {
		inv.AddInvVect(InvVect{Type: InvTypeWTx, Hash: Hash{byte(i)}})
	}
	for _, m := range []Message{&MsgPing{Nonce: 7}, inv} {
		msg := frame(MainNet, m.Command(), encodeMsg(b, m, WitnessEncoding))
		b.Run(m.Command(), func(b *testing.B) {
			r := bytes.NewReader(msg)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				r.Reset(msg)
				if _, _, err := ReadMessage(r, ProtocolVersion, MainNet, WitnessEncoding); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestBenchBlockShape(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 2,000-transaction block")
	}
	blk := buildBenchBlock()
	raw := blk.Bytes()
	var got MsgBlock
	if _, err := got.Decode(raw); err != nil {
		t.Fatal(err)
	}
	if len(got.Transactions) != benchBlockTxs || got.Weight() > MaxBlockWeight {
		t.Fatalf("%d txs, weight %d", len(got.Transactions), got.Weight())
	}
	if root, _ := got.MerkleRoot(); root != got.Header.MerkleRoot {
		t.Fatal("merkle root")
	}
	t.Logf("synthetic block: %d txs, %d bytes, weight %d", len(got.Transactions), len(raw), got.Weight())
}
