package wire

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"
)

func hexDecode(dst, src []byte) (int, error) { return hex.Decode(dst, src) }

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A BIP143 example segwit transaction (P2WPKH spend) and its ids.
const segwitTxHex = "01000000000102fff7f7881a8099afa6940d42d1e7f6362bec38171ea3edf433541db4e4ad969f00000000494830450221008b9d1dc26ba6a9cb62127b02742fa9d754cd3bebf337f7a55d114c8e5cdd30be022040529b194ba3f9281a99f2b1c0a19c0489bc22ede944ccf4ecbab4cc618ef3ed01eeffffffef51e1b804cc89d182d279655c3aa89e815b1b309fe287d9b2b55d57b90ec68a0100000000ffffffff02202cb206000000001976a9148280b37df378db99f66f85c95a783a76ac7a6d5988ac9093510d000000001976a9143bde42dbee7e4dbe6a21b2d50ce2f0167faa815988ac000247304402203609e17b84f6a7d30c80bfa610b5b4542f32a8a0d5447a12fb1366d7f01cc44a0220573a954c4518331561406f90300e8f3358f51928d43c212a8caed02de67eebee0121025476c2e83188368da1ff3e292e7acafcdb3566bb0ad253f62fc70f07aeee635711000000"

func TestTxRoundTrip(t *testing.T) {
	raw := mustHex(t, segwitTxHex)
	var tx MsgTx
	n, err := tx.Decode(raw)
	if err != nil || n != len(raw) {
		t.Fatalf("decode: n=%d err=%v", n, err)
	}
	if !tx.HasWitness() || len(tx.TxIn) != 2 || len(tx.TxOut) != 2 {
		t.Fatalf("unexpected shape")
	}
	if !bytes.Equal(tx.Bytes(), raw) {
		t.Fatal("re-encoding differs")
	}
	if tx.SerializeSize() != len(raw) {
		t.Fatalf("size %d want %d", tx.SerializeSize(), len(raw))
	}
	stripped := tx.AppendTo(nil, false)
	if tx.SerializeSizeStripped() != len(stripped) {
		t.Fatal("stripped size")
	}
	if tx.TxHash() != DoubleHashH(stripped) || tx.WitnessHash() != DoubleHashH(raw) {
		t.Fatal("hashes")
	}
	c := tx.Copy()
	if !bytes.Equal(c.Bytes(), raw) {
		t.Fatal("copy differs")
	}
	if tx.Weight() != int64(len(stripped)*3+len(raw)) {
		t.Fatal("weight")
	}
}

func TestTxDecodeErrors(t *testing.T) {
	raw := mustHex(t, segwitTxHex)
	for i := 0; i < len(raw); i++ {
		var tx MsgTx
		if _, err := tx.Decode(raw[:i]); err == nil {
			t.Fatalf("truncated at %d decoded", i)
		}
	}
	// Flag byte other than 1.
	bad := append([]byte(nil), raw...)
	bad[5] = 2
	var tx MsgTx
	if _, err := tx.Decode(bad); !errors.Is(err, ErrMalformed) {
		t.Fatalf("flag 2: %v", err)
	}
	// Witness form with all-empty witnesses is rejected.
	one := MsgTx{Version: 1, TxIn: []TxIn{{Sequence: 1}}, TxOut: []TxOut{{Value: 1}}}
	enc := one.AppendTo(nil, false)
	sw := append(append(append([]byte{}, enc[:4]...), 0, 1), enc[4:len(enc)-4]...)
	sw = append(sw, 0)
	sw = append(sw, enc[len(enc)-4:]...)
	if _, err := tx.Decode(sw); !errors.Is(err, ErrMalformed) {
		t.Fatalf("superfluous witness: %v", err)
	}
	// An input count far beyond the data is refused before allocating.
	huge := []byte{1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, 0x7f}
	if _, err := tx.Decode(huge); err == nil {
		t.Fatal("huge count decoded")
	}
	// Non-canonical var-int.
	nc := []byte{1, 0, 0, 0, 0xfd, 1, 0}
	if _, err := tx.Decode(nc); !errors.Is(err, ErrNonCanonical) {
		t.Fatalf("non-canonical: %v", err)
	}
}

// Regression: btcd once capped witness items at 11,000 bytes and split off
// mainnet on a tapscript with a larger one. Only the block size limits a
// witness item.
func TestLargeWitnessItem(t *testing.T) {
	item := bytes.Repeat([]byte{0x51}, MaxBlockSerializedSize-1000)
	tx := MsgTx{Version: 2, TxIn: []TxIn{{Witness: [][]byte{item}}}, TxOut: []TxOut{{Value: 1}}}
	blk := MsgBlock{Transactions: []*MsgTx{&tx}}
	raw := blk.Bytes()
	var got MsgBlock
	if _, err := got.Decode(raw); err != nil {
		t.Fatal(err)
	}
	if len(got.Transactions[0].TxIn[0].Witness[0]) != len(item) {
		t.Fatal("item length")
	}
}

// Regression: block 761,249 had a transaction with 500,003 witness items;
// btcd's cap of 500,000 split it off mainnet.
func TestManyWitnessItems(t *testing.T) {
	const n = 500_010
	wit := make([][]byte, n)
	for i := range wit {
		wit[i] = []byte{byte(i)}
	}
	tx := MsgTx{Version: 2, TxIn: []TxIn{{Witness: wit}}, TxOut: []TxOut{{Value: 1}}}
	raw := tx.Bytes()
	var got MsgTx
	if _, err := got.Decode(raw); err != nil {
		t.Fatal(err)
	}
	if len(got.TxIn[0].Witness) != n {
		t.Fatalf("got %d items", len(got.TxIn[0].Witness))
	}
	blk := MsgBlock{Transactions: []*MsgTx{&tx}}
	var gb MsgBlock
	if _, err := gb.Decode(blk.Bytes()); err != nil {
		t.Fatal(err)
	}
}

func TestVarInt(t *testing.T) {
	for _, v := range []uint64{0, 1, 0xfc, 0xfd, 0xffff, 0x10000, 0xffffffff, 0x100000000, 1<<64 - 1} {
		b := AppendVarInt(nil, v)
		if len(b) != VarIntSerializeSize(v) {
			t.Fatalf("%d: size", v)
		}
		got, n, err := ReadVarInt(b)
		if err != nil || got != v || n != len(b) {
			t.Fatalf("%d: got %d %d %v", v, got, n, err)
		}
	}
}

func TestHashString(t *testing.T) {
	s := "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f"
	h, err := NewHashFromStr(s)
	if err != nil || h.String() != s || h[31] != 0 || h[0] != 0x6f {
		t.Fatalf("%v %v", h, err)
	}
}

func TestMerkleMutation(t *testing.T) {
	a, b, c := Hash{1}, Hash{2}, Hash{3}
	r1, m1 := CalcMerkleRoot([]Hash{a, b, c})
	r2, m2 := CalcMerkleRoot([]Hash{a, b, c, c})
	if r1 != r2 || m1 || !m2 {
		t.Fatalf("CVE-2012-2459 case: %v %v %v %v", r1, r2, m1, m2)
	}
}

func TestBufferPool(t *testing.T) {
	for _, n := range []int{0, 1, 255, 256, 257, 4000024, 9 << 20} {
		bp := GetBuffer(n)
		if len(*bp) != n {
			t.Fatalf("len %d want %d", len(*bp), n)
		}
		PutBuffer(bp)
	}
}

// The cached witness root equals the computed one and goes with the other
// hash caches.
func TestCacheWitnessRoot(t *testing.T) {
	blk, _ := benchData(t)
	want := (&MsgBlock{Header: blk.Header, Transactions: blk.Transactions}).WitnessMerkleRoot()
	blk.CacheWitnessRoot()
	if got := blk.WitnessMerkleRoot(); got != want || !blk.hasWroot {
		t.Fatalf("cached root %v, want %v", got, want)
	}
	blk.ClearHashCache()
	if blk.hasWroot {
		t.Fatal("ClearHashCache kept the witness root")
	}
	if got := blk.WitnessMerkleRoot(); got != want {
		t.Fatalf("recomputed root %v, want %v", got, want)
	}
}
