package database

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"
)

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Bit patterns from Core's serialize_tests (varint_bitpatterns).
func TestVarIntVectors(t *testing.T) {
	cases := []struct {
		n   uint64
		hex string
	}{
		{0, "00"}, {0x7f, "7f"}, {0x80, "8000"}, {0x1234, "a334"}, {0xffff, "82fe7f"},
		{0x123456, "c7e756"}, {0x80123456, "86ffc7e756"}, {0xffffffff, "8efefefe7f"},
		{0x7fffffffffffffff, "fefefefefefefefe7f"}, {0xffffffffffffffff, "80fefefefefefefefe7f"},
	}
	for _, c := range cases {
		got := AppendVarInt(nil, c.n)
		if hex.EncodeToString(got) != c.hex {
			t.Errorf("AppendVarInt(%#x) = %x, want %s", c.n, got, c.hex)
		}
		if VarIntLen(c.n) != len(got) {
			t.Errorf("VarIntLen(%#x) = %d, want %d", c.n, VarIntLen(c.n), len(got))
		}
		v, n, err := ReadVarInt(got)
		if err != nil || v != c.n || n != len(got) {
			t.Errorf("ReadVarInt(%x) = %d,%d,%v", got, v, n, err)
		}
	}
	for _, bad := range []string{"", "80", "ff", "80fefefefefefefefe80", "81fefefefefefefefe7f"} {
		if _, _, err := ReadVarInt(mustHex(t, bad)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("ReadVarInt(%s) err = %v, want ErrCorrupt", bad, err)
		}
	}
}

// Values from Core's compress_tests.
func TestCompressAmountVectors(t *testing.T) {
	const coin = 100_000_000
	cases := []struct{ n, c uint64 }{
		{0, 0x0}, {1, 0x1}, {1_000_000, 0x7}, {coin, 0x9}, {50 * coin, 0x32}, {21_000_000 * coin, 0x1406f40},
	}
	for _, c := range cases {
		if got := CompressAmount(c.n); got != c.c {
			t.Errorf("CompressAmount(%d) = %#x, want %#x", c.n, got, c.c)
		}
		if got := DecompressAmount(c.c); got != c.n {
			t.Errorf("DecompressAmount(%#x) = %d, want %d", c.c, got, c.n)
		}
	}
	// Core's exhaustive loops, shortened.
	for i := uint64(1); i <= 100000; i++ {
		if DecompressAmount(CompressAmount(i)) != i {
			t.Fatalf("round trip of amount %d", i)
		}
	}
	for i := uint64(0); i < 100000; i++ {
		if CompressAmount(DecompressAmount(i)) != i {
			t.Fatalf("round trip of code %d", i)
		}
	}
	for i := uint64(1); i <= 21_000_000; i += 997 {
		if DecompressAmount(CompressAmount(i*coin)) != i*coin {
			t.Fatalf("round trip of %d BTC", i)
		}
	}
}

// Generator point G, a valid public key.
const (
	gCompressed   = "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
	gUncompressed = "0479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8"
)

func testScripts(t testing.TB) map[string]struct {
	script []byte
	clen   int
} {
	h20 := bytes.Repeat([]byte{0xab}, 20)
	p2pkh := append(append([]byte{opDup, opHash160, 20}, h20...), opEqualVerify, opCheckSig)
	p2sh := append(append([]byte{opHash160, 20}, h20...), opEqual)
	pkc := append(append([]byte{33}, mustHex(t, gCompressed)...), opCheckSig)
	pku := append(append([]byte{65}, mustHex(t, gUncompressed)...), opCheckSig)
	badPK := bytes.Clone(pku)
	badPK[40] ^= 1 // off the curve: must be stored raw
	p2wpkh := append([]byte{0x00, 20}, h20...)
	big := bytes.Repeat([]byte{0x51}, 300)
	return map[string]struct {
		script []byte
		clen   int
	}{
		"p2pkh": {p2pkh, 21}, "p2sh": {p2sh, 21}, "p2pk-compressed": {pkc, 33}, "p2pk-uncompressed": {pku, 33},
		"p2pk-invalid": {badPK, 68}, "p2wpkh": {p2wpkh, 23}, "empty": {nil, 1}, "big": {big, 302},
	}
}

func TestScriptCompression(t *testing.T) {
	for name, c := range testScripts(t) {
		enc := AppendCompressedScript(nil, c.script)
		if len(enc) != c.clen || CompressedScriptLen(c.script) != c.clen {
			t.Errorf("%s: compressed to %d bytes (%x), want %d", name, len(enc), enc, c.clen)
		}
		dec, n, err := DecodeCompressedScript(nil, enc)
		if err != nil || n != len(enc) || !bytes.Equal(dec, c.script) {
			t.Errorf("%s: decode = %x,%d,%v", name, dec, n, err)
		}
		for cut := 0; cut < len(enc); cut++ {
			if _, _, err := DecodeCompressedScript(nil, enc[:cut]); !errors.Is(err, ErrCorrupt) {
				t.Errorf("%s: truncated to %d: err %v", name, cut, err)
			}
		}
	}
	// Special code 0 carries a 20-byte hash after the code byte.
	if got := AppendCompressedScript(nil, testScripts(t)["p2pkh"].script); got[0] != 0 {
		t.Errorf("p2pkh code %#x", got[0])
	}
}

func TestCoinRoundTrip(t *testing.T) {
	for name, c := range testScripts(t) {
		for _, cb := range []bool{false, true} {
			v := AppendCoin(nil, 5_000_000_000, c.script, 123456, cb)
			e, _, n, err := DecodeCoin(v, nil)
			if err != nil || n != len(v) || e.Amount != 5_000_000_000 || e.Height != 123456 ||
				e.IsCoinBase != cb || !bytes.Equal(e.PkScript, c.script) {
				t.Errorf("%s cb=%v: %+v n=%d err=%v", name, cb, e, n, err)
			}
		}
	}
	// btcd's documented example (same encoding as Core): block 1's
	// coinbase output, 50 BTC to an uncompressed P2PK key with even y.
	e, _, _, err := DecodeCoin(mustHex(t, block1Coin), nil)
	if err != nil {
		t.Fatal(err)
	}
	if e.Height != 1 || !e.IsCoinBase || e.Amount != 50*100_000_000 || hex.EncodeToString(e.PkScript) != block1Script {
		t.Errorf("block 1 coin decoded to %+v %x", e, e.PkScript)
	}
}

const (
	block1Coin   = "03320496b538e853519c726a2c91e61ec11600ae1390813a627c66fb8be7947be63c52"
	block1Script = "410496b538e853519c726a2c91e61ec11600ae1390813a627c66fb8be7947be63c52da7589379515d4e0a604f8141781e62294721166bf621e73a82cbf2342c858eeac"
)
