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

// reloadHarness is a fresh pool over h's chain at h's time.
func reloadHarness(t *testing.T, h *harness, mutate func(*Config)) *harness {
	h2 := newHarness(t, mutate)
	h2.chain = h.chain
	h2.pool.cfg.Chain = h.chain.view()
	h2.now = h.now
	return h2
}

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
	if _, err := os.Stat(path + ".new"); !os.IsNotExist(err) {
		t.Fatalf("temporary file left behind: %v", err)
	}

	h2 := reloadHarness(t, h, nil)
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
	if e1.Time.Unix() != e2.Time.Unix() {
		t.Fatalf("entry time %v vs %v", e1.Time, e2.Time)
	}
	checkInvariants(t, h2.pool)

	// Expired entries are skipped on load.
	h3 := reloadHarness(t, h, nil)
	h3.now = h.now.Add(400 * time.Hour)
	st, _ = h3.pool.LoadFile(path)
	if st.Expired != 3 || h3.pool.Count() != 0 {
		t.Fatalf("expiry on load: %+v", st)
	}

	// Corrupt files are errors.
	data, _ := os.ReadFile(path)
	for _, bad := range [][]byte{data[:len(data)-1], []byte("BNMP\x02"), nil} {
		if _, err := DecodeMempoolFile(bad); !errors.Is(err, ErrCorruptFile) {
			t.Fatalf("corrupt mempool file accepted: %v", err)
		}
	}
	// A missing file is fine.
	if _, err := h3.pool.LoadFile(filepath.Join(t.TempDir(), "nope")); err != nil {
		t.Fatal(err)
	}
}

// TestMempoolSaveCoreFormat: a save is Core's version 2 with a fresh key
// each time and carries every entry's time and fee delta, the deltas of
// transactions not in the pool (in txid byte order) and the unbroadcast
// set; loading it back restores all of them.
func TestMempoolSaveCoreFormat(t *testing.T) {
	h := newHarness(t, nil)
	a := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	b := spend([]wire.OutPoint{outpoint(a, 0)}, 98_000)
	h.mustAccept(a)
	h.now = h.now.Add(time.Minute)
	h.mustAccept(b)
	h.pool.AddUnbroadcast(b.TxHash())
	if err := h.pool.PrioritiseTransaction(a.TxHash(), 700); err != nil {
		t.Fatal(err)
	}
	absent1, absent2 := hashOf(0x99), hashOf(0x05)
	for _, id := range []wire.Hash{absent1, absent2} {
		if err := h.pool.PrioritiseTransaction(id, -300); err != nil {
			t.Fatal(err)
		}
	}

	path := filepath.Join(t.TempDir(), "mempool.dat")
	if err := h.pool.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	f, err := DecodeMempoolFile(data)
	if err != nil {
		t.Fatal(err)
	}
	if binary.LittleEndian.Uint64(data) != MempoolFileV2 || f.Key == ([8]byte{}) {
		t.Fatalf("version %d key %x", f.Version, f.Key)
	}
	if again := h.pool.Snapshot(); again.Key == f.Key {
		t.Fatal("the same key twice")
	}
	if len(f.Txs) != 2 || f.Txs[0].Tx.TxHash() != a.TxHash() || f.Txs[1].Tx.TxHash() != b.TxHash() {
		t.Fatal("transactions missing or child before parent")
	}
	if f.Txs[0].FeeDelta != 700 || f.Txs[1].FeeDelta != 0 || f.Txs[1].Time != h.now.Unix() {
		t.Fatalf("records %+v", f.Txs)
	}
	if len(f.Deltas) != 2 || f.Deltas[0] != (FeeDelta{absent2, -300}) || f.Deltas[1] != (FeeDelta{absent1, -300}) {
		t.Fatalf("deltas %+v", f.Deltas)
	}
	if len(f.Unbroadcast) != 1 || f.Unbroadcast[0] != b.TxHash() {
		t.Fatalf("unbroadcast %v", f.Unbroadcast)
	}

	h2 := reloadHarness(t, h, nil)
	st, err := h2.pool.LoadFile(path)
	if err != nil || st.Accepted != 2 || st.Unbroadcast != 1 {
		t.Fatalf("load: %+v %v", st, err)
	}
	ea, _ := h2.pool.Get(a.TxHash())
	if ea.ModFee != ea.Fee+700 || !h2.pool.IsUnbroadcast(b.TxHash()) || h2.pool.IsUnbroadcast(a.TxHash()) {
		t.Fatalf("modified fee %d of %d, unbroadcast %v", ea.ModFee, ea.Fee, h2.pool.IsUnbroadcast(b.TxHash()))
	}
	deltas := map[wire.Hash]int64{}
	for _, p := range h2.pool.PrioritisedTransactions() {
		deltas[p.TxID] = p.Delta
	}
	if len(deltas) != 3 || deltas[a.TxHash()] != 700 || deltas[absent1] != -300 || deltas[absent2] != -300 {
		t.Fatalf("deltas after reload %v", deltas)
	}
	checkInvariants(t, h2.pool)
}

// TestMempoolSaveV1: with PersistV1 the file is version 1, without a
// key, and still loads.
func TestMempoolSaveV1(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.PersistV1 = true })
	a := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	h.mustAccept(a)
	path := filepath.Join(t.TempDir(), "mempool.dat")
	if err := h.pool.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if binary.LittleEndian.Uint64(data) != MempoolFileV1 || binary.LittleEndian.Uint64(data[8:]) != 1 {
		t.Fatalf("header %x", data[:16])
	}
	if st, err := reloadHarness(t, h, nil).pool.LoadFile(path); err != nil || st.Accepted != 1 {
		t.Fatalf("load: %+v %v", st, err)
	}
}

// TestLoadMempoolFileOptions: importmempool's options choose what of the
// file is taken over; a transaction's fee delta applies even when the
// transaction has expired, as in Core.
func TestLoadMempoolFileOptions(t *testing.T) {
	h := newHarness(t, nil)
	a := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	old := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	f := &MempoolFile{
		Version:     MempoolFileV2,
		Txs:         []FileTx{{Tx: a, Time: h.now.Unix() - 60, FeeDelta: 40}, {Tx: old, Time: 1, FeeDelta: 50}},
		Deltas:      []FeeDelta{{hashOf(1), 10}, {hashOf(1), 20}},
		Unbroadcast: []wire.Hash{a.TxHash(), hashOf(2)},
	}
	st := h.pool.LoadMempoolFile(f, LoadOptions{})
	if st.Accepted != 1 || st.Expired != 1 || st.Unbroadcast != 0 || len(h.pool.PrioritisedTransactions()) != 0 || h.pool.IsUnbroadcast(a.TxHash()) {
		t.Fatalf("without options: %+v", st)
	}
	if e, _ := h.pool.Get(a.TxHash()); e.Time.Unix() != h.now.Unix()-60 {
		t.Fatalf("entry time %v", e.Time)
	}

	h2 := reloadHarness(t, h, nil)
	st = h2.pool.LoadMempoolFile(f, LoadOptions{UseCurrentTime: true, ApplyFeeDeltas: true, ApplyUnbroadcast: true})
	if st.Accepted != 2 || st.Unbroadcast != 2 || !h2.pool.IsUnbroadcast(a.TxHash()) {
		t.Fatalf("with options: %+v", st)
	}
	if e, _ := h2.pool.Get(old.TxHash()); !e.Time.Equal(h2.now) {
		t.Fatalf("current time not used: %v", e.Time)
	}
	deltas := map[wire.Hash]int64{}
	for _, p := range h2.pool.PrioritisedTransactions() {
		deltas[p.TxID] = p.Delta
	}
	// The second delta of a txid listed twice is dropped, as Core's map.
	if deltas[a.TxHash()] != 40 || deltas[old.TxHash()] != 50 || deltas[hashOf(1)] != 10 {
		t.Fatalf("deltas %v", deltas)
	}

	// Expired or not, the delta of a file's transaction is kept.
	h3 := reloadHarness(t, h, nil)
	st = h3.pool.LoadMempoolFile(f, StartupLoadOptions)
	if st.Expired != 1 || h3.pool.Has(old.TxHash()) {
		t.Fatalf("startup options: %+v", st)
	}
	found := false
	for _, p := range h3.pool.PrioritisedTransactions() {
		found = found || (p.TxID == old.TxHash() && p.Delta == 50 && !p.InMempool)
	}
	if !found {
		t.Fatal("expired transaction's delta dropped")
	}
}

// encodeLegacyMempool writes the node's former "BNMP" format (version 1:
// records without flags; 2: with the unbroadcast flag), to check that
// files of existing data directories still load.
func encodeLegacyMempool(version byte, txs []FileTx, unbroadcast map[wire.Hash]bool) []byte {
	b := append([]byte(legacyMagic), version)
	b = binary.LittleEndian.AppendUint64(b, 1_700_000_000)
	b = wire.AppendVarInt(b, uint64(len(txs)))
	for _, s := range txs {
		b = binary.LittleEndian.AppendUint64(b, uint64(s.Time))
		if version >= 2 {
			var flags byte
			if unbroadcast[s.Tx.TxHash()] {
				flags |= legacyUnbroadcast
			}
			b = append(b, flags)
		}
		b = wire.AppendVarInt(b, uint64(s.Tx.SerializeSize()))
		b = s.Tx.AppendTo(b, true)
	}
	return b
}

// TestLegacyMempoolFileLoads: a mempool.dat of the node's former format
// loads with its entry times and unbroadcast flags.
func TestLegacyMempoolFileLoads(t *testing.T) {
	h := newHarness(t, nil)
	a := spend([]wire.OutPoint{h.coin(100_000)}, 99_000)
	b := spend([]wire.OutPoint{outpoint(a, 0)}, 98_000)
	when := h.now.Unix() - 120
	txs := []FileTx{{Tx: a, Time: when}, {Tx: b, Time: when}}
	dir := t.TempDir()
	for _, version := range []byte{1, 2} {
		path := filepath.Join(dir, "mempool.dat")
		if err := os.WriteFile(path, encodeLegacyMempool(version, txs, map[wire.Hash]bool{b.TxHash(): true}), 0o600); err != nil {
			t.Fatal(err)
		}
		h2 := reloadHarness(t, h, nil)
		st, err := h2.pool.LoadFile(path)
		if err != nil || st.Accepted != 2 {
			t.Fatalf("BNMP v%d: %+v %v", version, st, err)
		}
		if e, _ := h2.pool.Get(b.TxHash()); e.Time.Unix() != when {
			t.Fatalf("BNMP v%d: entry time %v", version, e.Time)
		}
		if got := h2.pool.IsUnbroadcast(b.TxHash()); got != (version == 2) || h2.pool.IsUnbroadcast(a.TxHash()) {
			t.Fatalf("BNMP v%d: unbroadcast %v", version, got)
		}
	}
	bad := encodeLegacyMempool(2, txs[:1], nil)
	bad[13+1+8] = 0x80 // an unknown record flag
	if _, err := DecodeMempoolFile(bad); !errors.Is(err, ErrCorruptFile) {
		t.Fatalf("unknown flag accepted: %v", err)
	}
	good := encodeLegacyMempool(2, txs, nil)
	for _, cut := range [][]byte{good[:len(good)-1], append(append([]byte(nil), good...), 0)} {
		if _, err := DecodeMempoolFile(cut); !errors.Is(err, ErrCorruptFile) {
			t.Fatalf("damaged BNMP file accepted: %v", err)
		}
	}
}
