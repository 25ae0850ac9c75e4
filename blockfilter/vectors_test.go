package blockfilter

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/btcnode/btcd/wire"
)

const vectorsDir = "../../shared/vectors"

// vector is one row of bip158/testnet-19.json.
type vector struct {
	height      int32
	hash        wire.Hash
	block       *wire.MsgBlock
	prevScripts [][]byte
	prevHeader  wire.Hash
	filter      []byte
	header      wire.Hash
	notes       string
}

func loadVectors(tb testing.TB) []vector {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join(vectorsDir, "bip158", "testnet-19.json"))
	if os.IsNotExist(err) {
		tb.Skip("../shared/vectors not present")
	}
	if err != nil {
		tb.Fatal(err)
	}
	var rows [][]any
	if err := json.Unmarshal(raw, &rows); err != nil {
		tb.Fatal(err)
	}
	mustHex := func(s any) []byte {
		b, err := hex.DecodeString(s.(string))
		if err != nil {
			tb.Fatal(err)
		}
		return b
	}
	mustHash := func(s any) wire.Hash {
		h, err := wire.NewHashFromStr(s.(string))
		if err != nil {
			tb.Fatal(err)
		}
		return h
	}
	var out []vector
	for _, r := range rows {
		if len(r) == 1 {
			continue // header/comment row
		}
		if len(r) != 8 {
			tb.Fatalf("row of %d fields", len(r))
		}
		v := vector{
			height:     int32(r[0].(float64)),
			hash:       mustHash(r[1]),
			prevHeader: mustHash(r[4]),
			filter:     mustHex(r[5]),
			header:     mustHash(r[6]),
			notes:      r[7].(string),
		}
		v.block = new(wire.MsgBlock)
		if _, err := v.block.Decode(mustHex(r[2])); err != nil {
			tb.Fatalf("height %d: %v", v.height, err)
		}
		for _, s := range r[3].([]any) {
			v.prevScripts = append(v.prevScripts, mustHex(s))
		}
		out = append(out, v)
	}
	return out
}

func TestBIP158Vectors(t *testing.T) {
	vs := loadVectors(t)
	var b Builder
	for _, v := range vs {
		if got := v.block.BlockHash(); got != v.hash {
			t.Fatalf("height %d: block hash %v, want %v", v.height, got, v.hash)
		}
		got := b.AppendBasic(nil, v.block, v.prevScripts)
		if !bytes.Equal(got, v.filter) {
			t.Errorf("height %d (%s): filter\n got %x\nwant %x", v.height, v.notes, got, v.filter)
			continue
		}
		if h := FilterHeader(got, &v.prevHeader); h != v.header {
			t.Errorf("height %d (%s): header %v, want %v", v.height, v.notes, h, v.header)
		}
		f := BuildBasic(v.block, v.prevScripts)
		if !bytes.Equal(f.Bytes(), v.filter) || f.Header(&v.prevHeader) != v.header {
			t.Errorf("height %d: BuildBasic differs", v.height)
		}

		// Every element matches, alone and in a batch with misses.
		pf, err := FromBytes(BasicParams, KeyFromHash(&v.hash), v.filter)
		if err != nil {
			t.Fatalf("height %d: FromBytes: %v", v.height, err)
		}
		var items [][]byte
		for _, tx := range v.block.Transactions {
			for _, o := range tx.TxOut {
				items = append(items, o.PkScript)
			}
		}
		items = append(items, v.prevScripts...)
		for _, it := range items {
			if !basicItem(it) {
				continue
			}
			if !pf.Match(it) {
				t.Errorf("height %d: %x does not match", v.height, it)
			}
			if !pf.MatchAny([][]byte{{0xde, 0xad}, it, {0xbe, 0xef}}) {
				t.Errorf("height %d: MatchAny misses %x", v.height, it)
			}
		}
		if pf.N() > 0 && pf.MatchAny([][]byte{{0x01, 0x02, 0x03}, []byte("not in any filter")}) {
			t.Logf("height %d: false positive (rate 1/M; tolerated)", v.height)
		}
	}
}

// TestVectorHeaderChain feeds the consecutive vector blocks through an
// index and checks the stored headers.
func TestVectorHeaderChain(t *testing.T) {
	vs := loadVectors(t)
	for i := 1; i < len(vs); i++ {
		// Rows are not consecutive blocks, but each carries the
		// previous header, so the chain links row by row.
		if vs[i].height == vs[i-1].height+1 && vs[i].prevHeader != vs[i-1].header {
			t.Errorf("height %d: prev header does not chain", vs[i].height)
		}
	}
}
