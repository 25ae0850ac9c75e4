package mempool

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

// The layout of a small Core mempool.dat (one transaction, one fee delta
// of a transaction not in the pool, one unbroadcast txid), written out by
// hand so that the format is pinned independently of the encoder.
var (
	// sampleTxHex is a one-input one-output segwit transaction.
	sampleTxHex = "02000000" + "0001" + // version, marker and flag
		"01" + strings.Repeat("11", 32) + "00000000" + "00" + "ffffffff" + // input
		"01" + "e803000000000000" + "01" + "51" + // output: 1000 sat to OP_TRUE
		"01" + "01" + "51" + // witness
		"00000000" // lock time
	sampleBodyHex = "0100000000000000" + // one transaction
		sampleTxHex + "00f1536500000000" + "fbffffffffffffff" + // time 1700000000, delta -5
		"01" + strings.Repeat("22", 32) + "d204000000000000" + // one delta: 1234
		"01" + strings.Repeat("33", 32) // one unbroadcast txid
	sampleV1Hex = "0100000000000000" + sampleBodyHex
	// sampleV2Hex is the same file in version 2 with the key
	// a0b1c2d3e4f50617: from offset 17 each byte is XORed with
	// key[offset%8], so the body starts with key[1].
	sampleV2Hex = "0200000000000000" + "08" + "a0b1c2d3e4f50617" +
		"b0c2d3e4f50617a0b3c2d3e4f50716b1a0d3c2f5e41706b1a0d3c2f5e41706b1" +
		"a0d3c2f5e41706b1a0d3c2f5e41706a0b1c2d3e40af9e85fb02ad0e4f50617a0" +
		"b1c382e5f45717a0b1c2d315a66317a0b1c2281b0af9e85f4e3dd2c6d7243582" +
		"93e0f1c6d724358293e0f1c6d724358293e0f1c6d724358293e0f136f10617a0" +
		"b1c2d3e5c635249382f1e0d7c635249382f1e0d7c635249382f1e0d7c6352493" +
		"82f1e0d7"
	sampleKey = [8]byte{0xa0, 0xb1, 0xc2, 0xd3, 0xe4, 0xf5, 0x06, 0x17}
)

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sampleMempoolFile(t testing.TB, version uint64) *MempoolFile {
	t.Helper()
	tx := new(wire.MsgTx)
	if _, err := tx.Decode(mustHex(t, sampleTxHex)); err != nil {
		t.Fatal(err)
	}
	f := &MempoolFile{
		Version:     version,
		Txs:         []FileTx{{Tx: tx, Time: 1_700_000_000, FeeDelta: -5}},
		Deltas:      []FeeDelta{{TxID: hashOf(0x22), Delta: 1234}},
		Unbroadcast: []wire.Hash{hashOf(0x33)},
	}
	if version == MempoolFileV2 {
		f.Key = sampleKey
	}
	return f
}

func hashOf(b byte) wire.Hash {
	var h wire.Hash
	for i := range h {
		h[i] = b
	}
	return h
}

// TestMempoolFileLayout pins both versions byte for byte, both ways.
func TestMempoolFileLayout(t *testing.T) {
	for _, c := range []struct {
		version uint64
		hex     string
	}{{MempoolFileV1, sampleV1Hex}, {MempoolFileV2, sampleV2Hex}} {
		want := mustHex(t, c.hex)
		f := sampleMempoolFile(t, c.version)
		got, err := EncodeMempoolFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("v%d encoding\n got %x\nwant %x", c.version, got, want)
		}
		dec, err := DecodeMempoolFile(want)
		if err != nil {
			t.Fatalf("v%d: %v", c.version, err)
		}
		if dec.Txs[0].Tx.TxHash() != f.Txs[0].Tx.TxHash() {
			t.Fatalf("v%d: transaction %v", c.version, dec.Txs[0].Tx.TxHash())
		}
		dec.Txs[0].Tx, f.Txs[0].Tx = nil, nil
		if !reflect.DeepEqual(dec, f) {
			t.Fatalf("v%d decoded %+v, want %+v", c.version, dec, f)
		}
	}
	if _, err := EncodeMempoolFile(&MempoolFile{Version: 3}); err == nil {
		t.Fatal("version 3 written")
	}
}

// TestMempoolFileObfuscationOffset: the key is indexed by the offset in
// the whole file, so the first obfuscated byte (offset 17) takes key[1],
// not key[0].
func TestMempoolFileObfuscationOffset(t *testing.T) {
	v1, v2 := mustHex(t, sampleV1Hex), mustHex(t, sampleV2Hex)
	const headerV2 = 8 + 1 + 8
	body := v1[8:]
	for i, b := range body {
		off := headerV2 + i
		if v2[off] != b^sampleKey[off%8] {
			t.Fatalf("byte at offset %d is %#x, want %#x ^ key[%d]", off, v2[off], b, off%8)
		}
	}
	if v2[headerV2] != 0x01^sampleKey[1] {
		t.Fatal("count's first byte not XORed with key[1]")
	}
	// A key read as if it started at the body would garble the count.
	shifted := append([]byte(nil), v2...)
	for i := headerV2; i < len(shifted); i++ {
		shifted[i] ^= sampleKey[i%8] ^ sampleKey[(i-headerV2)%8]
	}
	if _, err := DecodeMempoolFile(shifted); err == nil {
		t.Fatal("a file obfuscated from the wrong offset decoded")
	}
}

// TestDecodeMempoolFileLimits: truncation anywhere, counts beyond the
// file, bad keys and unknown versions are corrupt files; bytes after the
// unbroadcast set are ignored, as Core does.
func TestDecodeMempoolFileLimits(t *testing.T) {
	for _, h := range []string{sampleV1Hex, sampleV2Hex} {
		b := mustHex(t, h)
		if _, err := DecodeMempoolFile(append(append([]byte(nil), b...), 0xaa)); err != nil {
			t.Fatalf("trailing byte: %v", err)
		}
		for cut := 0; cut < len(b); cut++ {
			if _, err := DecodeMempoolFile(b[:cut]); !errors.Is(err, ErrCorruptFile) {
				t.Fatalf("truncated at %d: %v", cut, err)
			}
		}
	}
	huge := binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, 1), 1<<62)
	hugeDeltas := append(binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, 1), 0), 0xff, 0, 0, 0, 0, 0, 0, 0, 0x10)
	hugeUnbroadcast := append(binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, 1), 0), 0, 0xfe, 0, 0, 0, 1)
	for name, b := range map[string][]byte{
		"transaction count": huge,
		"delta count":       hugeDeltas,
		"unbroadcast count": hugeUnbroadcast,
		"version 3":         binary.LittleEndian.AppendUint64(nil, 3),
		"key of 7 bytes":    append(binary.LittleEndian.AppendUint64(nil, 2), 7, 1, 2, 3, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
		"empty":             nil,
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := DecodeMempoolFile(b)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrCorruptFile) {
			t.Errorf("%s: %v", name, err)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<16 {
			t.Errorf("%s: %d bytes allocated for a %d-byte file", name, grew, len(b))
		}
	}
}

// FuzzDecodeMempoolFile checks that no input makes the decoder panic or
// allocate far beyond its size, that it fails only with ErrCorruptFile,
// and that what it decodes encodes back to the bytes it read. Seeds are
// in testdata/fuzz/FuzzDecodeMempoolFile.
func FuzzDecodeMempoolFile(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		m, err := DecodeMempoolFile(b)
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20+64*uint64(len(b)) {
			t.Fatalf("%d bytes allocated decoding %d", grew, len(b))
		}
		if err != nil {
			if !errors.Is(err, ErrCorruptFile) {
				t.Fatalf("error of the wrong kind: %v", err)
			}
			return
		}
		if m.Version != 0 { // the former format is read only
			again, err := EncodeMempoolFile(m)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(b, again) {
				t.Fatalf("re-encoding differs:\n%x\n%x", again, b)
			}
		}
		p := fuzzPool(m)
		p.LoadMempoolFile(m, LoadOptions{UseCurrentTime: len(b)%2 == 0, ApplyFeeDeltas: true, ApplyUnbroadcast: true})
		checkInvariants(t, p)
	})
}

// fuzzPool is a pool whose scripts always verify over a chain holding
// the coins that m's transactions spend from outside the file.
func fuzzPool(m *MempoolFile) *Pool {
	chain := newFakeChain()
	inFile := map[wire.Hash]bool{}
	for _, e := range m.Txs {
		inFile[e.Tx.TxHash()] = true
	}
	for _, e := range m.Txs {
		for _, in := range e.Tx.TxIn {
			if !inFile[in.PreviousOutPoint.Hash] {
				chain.coins[in.PreviousOutPoint] = Coin{Value: 1e8, PkScript: p2wpkh(1), Height: chain.height - 10}
			}
		}
	}
	cfg := DefaultConfig()
	cfg.Chain = chain.view()
	cfg.VerifyScripts = func(*wire.MsgTx, []Coin, bool) error { return nil }
	cfg.Now = func() time.Time { return time.Unix(1_700_000_000, 0) }
	return New(cfg)
}
