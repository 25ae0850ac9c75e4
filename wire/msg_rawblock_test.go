package wire

import (
	"bytes"
	"testing"
)

// TestRawBlockMatchesBlock checks that a block sent from its stored bytes
// is byte-for-byte the message a MsgBlock would produce, with and without
// witness data, and that it decodes back.
func TestRawBlockMatchesBlock(t *testing.T) {
	blk := testBlock(t)
	raw := &MsgRawBlock{Raw: blk.AppendTo(nil, true)}
	for _, enc := range []MessageEncoding{WitnessEncoding, BaseEncoding} {
		var want, got bytes.Buffer
		if _, err := WriteMessage(&want, blk, testPver, MainNet, enc); err != nil {
			t.Fatal(err)
		}
		if _, err := WriteMessage(&got, raw, testPver, MainNet, enc); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("encoding %v: raw block message differs from the block's", enc)
		}
	}
	var back MsgRawBlock
	if err := back.BtcDecode(raw.Raw, testPver, WitnessEncoding); err != nil || !bytes.Equal(back.Raw, raw.Raw) {
		t.Fatalf("decode: %v", err)
	}
	if err := back.BtcDecode(raw.Raw[:len(raw.Raw)-1], testPver, WitnessEncoding); err == nil {
		t.Error("truncated block decoded")
	}
	if _, err := (&MsgRawBlock{Raw: []byte{1, 2}}).BtcEncode(nil, testPver, BaseEncoding); err == nil {
		t.Error("garbage re-encoded without witness")
	}
}
