package blockfilter

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzFilterDecode parses arbitrary bytes as a basic filter and queries
// it; nothing may panic, and whatever parses must match its own elements
// consistently between Match and MatchAny.
func FuzzFilterDecode(f *testing.F) {
	f.Add([]byte{0}, []byte{}, []byte{1})
	f.Add([]byte{1, 0x9d, 0xfc, 0xa8}, make([]byte, 16), []byte{0x51})
	f.Add([]byte{0xfe, 0xff, 0xff, 0xff, 0xff}, make([]byte, 16), []byte{})
	if _, err := os.Stat(filepath.Join(vectorsDir, "bip158")); err == nil {
		for _, v := range loadVectors(f) {
			item := []byte{0x51}
			if len(v.block.Transactions[0].TxOut) > 0 {
				item = v.block.Transactions[0].TxOut[0].PkScript
			}
			f.Add(v.filter, v.hash[:16], item)
		}
	}
	f.Fuzz(func(t *testing.T, raw, key, item []byte) {
		var k Key
		copy(k[:], key)
		flt, err := FromBytes(BasicParams, k, raw)
		if err != nil {
			if !errors.Is(err, ErrMalformedFilter) {
				t.Fatalf("error kind: %v", err)
			}
			return
		}
		m := flt.Match(item)
		if flt.MatchAny([][]byte{item, {0xff, 0xfe}}) != (m || flt.Match([]byte{0xff, 0xfe})) {
			t.Fatal("MatchAny disagrees with Match")
		}
		_ = flt.Hash()
	})
}
