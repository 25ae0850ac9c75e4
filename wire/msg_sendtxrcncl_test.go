package wire

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"
)

// The layout BIP330 gives: version as uint32 then salt as uint64, both
// little-endian, twelve bytes in all.
func TestSendTxRcnclVector(t *testing.T) {
	const want = "01000000" + "0807060504030201"
	m := &MsgSendTxRcncl{Version: 1, Salt: 0x0102030405060708}
	b, err := m.BtcEncode(nil, testPver, WitnessEncoding)
	if err != nil || hex.EncodeToString(b) != want {
		t.Fatalf("encoded %x (%v), want %s", b, err, want)
	}
	var got MsgSendTxRcncl
	if err := got.BtcDecode(b, testPver, WitnessEncoding); err != nil || got != *m {
		t.Fatalf("decoded %+v (%v), want %+v", got, err, *m)
	}
	if m.MaxPayloadLength(testPver) != uint32(len(b)) {
		t.Fatalf("MaxPayloadLength %d, payload %d", m.MaxPayloadLength(testPver), len(b))
	}
}

// A short or long payload is refused, and a failed decode leaves the
// message unchanged.
func TestSendTxRcnclBadLength(t *testing.T) {
	full, _ := (&MsgSendTxRcncl{Version: 7, Salt: 9}).BtcEncode(nil, testPver, WitnessEncoding)
	for _, p := range [][]byte{nil, full[:4], full[:11], append(bytes.Clone(full), 0)} {
		m := MsgSendTxRcncl{Version: 3, Salt: 4}
		err := m.BtcDecode(p, testPver, WitnessEncoding)
		if err == nil {
			t.Fatalf("%d-byte payload decoded", len(p))
		}
		if len(p) > len(full) && !errors.Is(err, ErrTrailingData) {
			t.Errorf("%d-byte payload: %v, want ErrTrailingData", len(p), err)
		}
		if m != (MsgSendTxRcncl{Version: 3, Salt: 4}) {
			t.Errorf("%d-byte payload changed the message to %+v", len(p), m)
		}
	}
}
