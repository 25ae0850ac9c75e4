package mempool

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

func TestMempoolPersistence(t *testing.T) {
	h := newHarness(t, nil)
	a := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	b := spend([]wire.OutPoint{outpoint(a, 0)}, 98_000)
	c := spend([]wire.OutPoint{h.coin(100_000)}, 99_500)
	c.Version = 1
	h.mustAccept(a)
	h.now = h.now.Add(time.Minute)
	h.mustAccept(b)
	h.mustAccept(c)
	path := filepath.Join(t.TempDir(), "mempool.dat")
	if err := h.pool.SaveFile(path); err != nil {
		t.Fatal(err)
	}

	h2 := newHarness(t, nil)
	h2.chain = h.chain
	h2.pool.cfg.Chain = h.chain.view()
	h2.now = h.now
	st, err := h2.pool.LoadFile(path)
	if err != nil || st.Accepted != 3 {
		t.Fatalf("load: %+v %v", st, err)
	}
	got, want := h2.pool.TxIDs(), h.pool.TxIDs()
	sort.Slice(got, func(i, j int) bool { return hashLess(got[i][:], got[j][:]) })
	sort.Slice(want, func(i, j int) bool { return hashLess(want[i][:], want[j][:]) })
	for i := range want {
		if got[i] != want[i] {
			t.Fatal("different transactions after reload")
		}
	}
	e1, _ := h.pool.Get(a.TxHash())
	e2, _ := h2.pool.Get(a.TxHash())
	if !e1.Time.Equal(e2.Time) {
		t.Fatalf("entry time %v vs %v", e1.Time, e2.Time)
	}
	checkInvariants(t, h2.pool)

	// Expired entries are skipped on load.
	h3 := newHarness(t, nil)
	h3.chain = h.chain
	h3.pool.cfg.Chain = h.chain.view()
	h3.now = h.now.Add(400 * time.Hour)
	st, _ = h3.pool.LoadFile(path)
	if st.Expired != 3 || h3.pool.Count() != 0 {
		t.Fatalf("expiry on load: %+v", st)
	}

	// Corrupt files are errors.
	data, _ := os.ReadFile(path)
	for _, bad := range [][]byte{data[:len(data)-1], append(append([]byte{}, data...), 0), []byte("BNMP\x02"), nil} {
		if _, _, err := DecodeMempool(bad); !errors.Is(err, ErrCorruptFile) {
			t.Fatalf("corrupt mempool file accepted: %v", err)
		}
	}
	// A missing file is fine.
	if _, err := h3.pool.LoadFile(filepath.Join(t.TempDir(), "nope")); err != nil {
		t.Fatal(err)
	}
}

func fuzzPool(t *testing.T) *Pool {
	chain := newFakeChain()
	cfg := DefaultConfig()
	cfg.Chain = chain.view()
	cfg.VerifyScripts = func(*wire.MsgTx, []Coin, bool) error { return nil }
	cfg.Now = func() time.Time { return time.Unix(1_700_000_000, 0) }
	return New(cfg)
}

func FuzzLoadMempool(f *testing.F) {
	tx := spend([]wire.OutPoint{{Index: 1}}, 1000)
	tx2 := spend([]wire.OutPoint{outpoint(tx, 0)}, 500)
	valid := EncodeMempool([]SavedTx{{Tx: tx, Time: time.Unix(1_699_999_000, 0)}, {Tx: tx2, Time: time.Unix(1_699_999_100, 0), Unbroadcast: true}}, time.Unix(1_700_000_000, 0))
	f.Add(valid)
	f.Add(encodeMempoolV1([]SavedTx{{Tx: tx, Time: time.Unix(1_699_999_000, 0)}}, time.Unix(1_700_000_000, 0)))
	f.Add(valid[:20])
	f.Add(EncodeMempool(nil, time.Unix(0, 0)))
	f.Add([]byte("BNMP\x01\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		txs, saved, err := DecodeMempool(b)
		if err != nil {
			if !errors.Is(err, ErrCorruptFile) {
				t.Fatalf("error of wrong kind: %v", err)
			}
			return
		}
		// Older versions are re-encoded in the current one.
		if again := EncodeMempool(txs, saved); b[4] == mempoolVersion && string(again) != string(b) {
			t.Fatal("round trip differs")
		}
		p := fuzzPool(t)
		if _, err := p.Load(bytesReader(b)); err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, p)
	})
}

// encodeMempoolV1 writes the version 1 layout (records without flags), to
// check that files from before the unbroadcast set still load.
func encodeMempoolV1(txs []SavedTx, saved time.Time) []byte {
	b := append([]byte(mempoolMagic), 1)
	b = binary.LittleEndian.AppendUint64(b, uint64(saved.Unix()))
	b = wire.AppendVarInt(b, uint64(len(txs)))
	for _, s := range txs {
		b = binary.LittleEndian.AppendUint64(b, uint64(s.Time.Unix()))
		b = wire.AppendVarInt(b, uint64(s.Tx.SerializeSize()))
		b = s.Tx.AppendTo(b, true)
	}
	return b
}

func TestMempoolFileV1(t *testing.T) {
	tx := spend([]wire.OutPoint{{Index: 1}}, 1000)
	b := encodeMempoolV1([]SavedTx{{Tx: tx, Time: time.Unix(1_699_999_000, 0)}}, time.Unix(1_700_000_000, 0))
	txs, _, err := DecodeMempool(b)
	if err != nil || len(txs) != 1 || txs[0].Tx.TxHash() != tx.TxHash() || txs[0].Unbroadcast {
		t.Fatalf("version 1 file: %v %+v", err, txs)
	}
	bad := EncodeMempool([]SavedTx{{Tx: tx, Time: time.Unix(1_699_999_000, 0)}}, time.Unix(1_700_000_000, 0))
	bad[13+1+8] = 0x80 // an unknown record flag
	if _, _, err := DecodeMempool(bad); !errors.Is(err, ErrCorruptFile) {
		t.Fatalf("unknown flag accepted: %v", err)
	}
}
