package database

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"testing"

	"github.com/btcnode/btcd/wire"
)

// synthBlock is a synthetic block: outputs spent (in order) and created.
type synthBlock struct {
	height  int32
	spends  []wire.OutPoint
	spendAt []int // spends[i] happens after creates[spendAt[i]] (-1: first)
	creates []wire.OutPoint
	entries []UtxoEntry // parallel to creates
}

var gScriptU = func() []byte {
	b, _ := hex.DecodeString("41" + gUncompressed + "ac")
	return b
}()

// model is the reference UTXO set, a plain map.
type model map[wire.OutPoint]UtxoEntry

func (m model) clone() model {
	c := make(model, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// generator produces deterministic synthetic blocks from a seed and keeps a
// model of the resulting UTXO set. Only its own state decides which outputs
// a block spends, so the same seed always yields the same chain.
type generator struct {
	rng    *rand.Rand
	seed   uint64
	live   []wire.OutPoint // unspent outpoints, for random choice
	pos    map[wire.OutPoint]int
	model  model
	height int32
	// nOut, nSpend are outputs created and spent per block.
	nOut, nSpend int
}

func newGenerator(seed uint64, nOut, nSpend int) *generator {
	return &generator{rng: rand.New(rand.NewPCG(seed, 77)), seed: seed, pos: make(map[wire.OutPoint]int),
		model: make(model), height: -1, nOut: nOut, nSpend: nSpend}
}

func blockHash(h int32) wire.Hash {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(h))
	return sha256.Sum256(append([]byte("synthetic block"), b[:]...))
}

func (g *generator) randScript() []byte {
	switch k := g.rng.IntN(20); {
	case k < 8: // P2PKH
		s := append([]byte{opDup, opHash160, 20}, g.randBytes(20)...)
		return append(s, opEqualVerify, opCheckSig)
	case k < 11: // P2WPKH
		return append([]byte{0, 20}, g.randBytes(20)...)
	case k < 14: // P2TR
		return append([]byte{0x51, 32}, g.randBytes(32)...)
	case k < 15: // P2SH
		return append(append([]byte{opHash160, 20}, g.randBytes(20)...), opEqual)
	case k < 16: // uncompressed P2PK (arena; valid key)
		return bytes.Clone(gScriptU)
	case k < 17: // long bare script (arena)
		return g.randBytes(36 + g.rng.IntN(400))
	case k < 18: // OP_RETURN: never stored
		return append([]byte{opReturn}, g.randBytes(10)...)
	case k < 19:
		return nil
	default:
		return g.randBytes(1 + g.rng.IntN(35))
	}
}

func (g *generator) randBytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.rng.Uint32())
	}
	// Avoid accidental OP_RETURN first bytes in "random" scripts.
	if n > 0 && b[0] == opReturn {
		b[0] = 0
	}
	return b
}

func (g *generator) add(op wire.OutPoint, e UtxoEntry) {
	if IsUnspendable(e.PkScript) {
		return
	}
	g.model[op] = e
	g.pos[op] = len(g.live)
	g.live = append(g.live, op)
}

func (g *generator) del(op wire.OutPoint) {
	i, ok := g.pos[op]
	if !ok {
		return
	}
	last := g.live[len(g.live)-1]
	g.live[i] = last
	g.pos[last] = i
	g.live = g.live[:len(g.live)-1]
	delete(g.pos, op)
	delete(g.model, op)
}

// next generates the next block and applies it to the model. Some spends
// are of outputs created earlier in the same block (fresh in the cache).
func (g *generator) next() synthBlock {
	g.height++
	b := synthBlock{height: g.height}
	nSpend := min(g.nSpend, len(g.live))
	for range nSpend {
		op := g.live[g.rng.IntN(len(g.live))]
		b.spends = append(b.spends, op)
		b.spendAt = append(b.spendAt, -1)
		g.del(op)
	}
	txid := sha256.Sum256(binary.LittleEndian.AppendUint64([]byte("tx"), g.seed<<32|uint64(g.height)))
	for j := range g.nOut {
		op := wire.OutPoint{Hash: txid, Index: uint32(j * 37)} // sparse indices: multi-byte VARINTs
		e := UtxoEntry{Amount: g.rng.Int64N(maxMoney / 1000), PkScript: g.randScript(), Height: g.height, IsCoinBase: j == 0}
		b.creates = append(b.creates, op)
		b.entries = append(b.entries, e)
		g.add(op, e)
		if j%9 == 8 {
			// spend an output of this block right away
			sp := b.creates[g.rng.IntN(len(b.creates))]
			if _, ok := g.model[sp]; ok {
				b.spends = append(b.spends, sp)
				b.spendAt = append(b.spendAt, j)
				g.del(sp)
			}
		}
	}
	return b
}

// applyBlock applies b to the cache in the order the generator did:
// the initial spends, then creates interleaved with same-block spends.
// replay selects the roll-forward semantics used after an interrupted
// flush (overwrite allowed, missing inputs tolerated). It returns the spent
// entries for undo.
func applyBlock(t testing.TB, c *UtxoCache, b *synthBlock, replay bool) []UtxoEntry {
	var undo []UtxoEntry
	si := 0
	spend := func(op wire.OutPoint) {
		var e UtxoEntry
		ok, err := c.SpendEntry(&op, &e)
		if err != nil {
			t.Fatal(err)
		}
		if !ok && !replay {
			t.Fatalf("height %d: spend of %v: not found", b.height, op)
		}
		undo = append(undo, e)
	}
	for si < len(b.spends) && b.spendAt[si] < 0 {
		spend(b.spends[si])
		si++
	}
	for j, op := range b.creates {
		if err := c.AddEntry(&op, &b.entries[j], replay); err != nil {
			t.Fatal(err)
		}
		for si < len(b.spends) && b.spendAt[si] == j {
			spend(b.spends[si])
			si++
		}
	}
	if si != len(b.spends) {
		t.Fatalf("height %d: applied %d of %d spends", b.height, si, len(b.spends))
	}
	return undo
}

func entriesEqual(a, b UtxoEntry) bool {
	return a.Amount == b.Amount && a.Height == b.Height && a.IsCoinBase == b.IsCoinBase &&
		a.Missing == b.Missing && bytes.Equal(a.PkScript, b.PkScript)
}

// dbContents reads every coin straight from LevelDB.
func dbContents(t testing.TB, cs *ChainState) model {
	m := make(model)
	it := cs.db.NewIterator(nil, nil)
	defer it.Release()
	for it.Next() {
		k := it.Key()
		if k[0] != prefixCoin {
			continue
		}
		idx, n, err := ReadVarInt(k[33:])
		if err != nil || 33+n != len(k) {
			t.Fatalf("bad key %x", k)
		}
		e, _, _, err := DecodeCoin(it.Value(), nil)
		if err != nil {
			t.Fatal(err)
		}
		m[wire.OutPoint{Hash: wire.Hash(k[1:33]), Index: uint32(idx)}] = e
	}
	return m
}

func compareModels(t testing.TB, what string, got, want model) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d coins, want %d", what, len(got), len(want))
	}
	for op, w := range want {
		g, ok := got[op]
		if !ok || !entriesEqual(g, w) {
			t.Fatalf("%s: coin %v = %+v (present %v), want %+v", what, op, g, ok, w)
		}
	}
}
