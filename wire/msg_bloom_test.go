package wire

import (
	"bytes"
	"errors"
	"testing"
)

// TestFilterLoadOverLimitsDecodes checks that filterload and filteradd
// over BIP37's limits still parse, so the receiver can score the sender
// instead of dropping it for a malformed message, and that the limit
// checks tell the two apart at the exact boundaries.
func TestFilterLoadOverLimitsDecodes(t *testing.T) {
	cases := []struct {
		m      *MsgFilterLoad
		within bool
	}{
		{&MsgFilterLoad{Filter: bytes.Repeat([]byte{0xbb}, MaxFilterLoadFilterSize)}, true},
		{&MsgFilterLoad{Filter: bytes.Repeat([]byte{0xbb}, MaxFilterLoadFilterSize+1)}, false},
		{&MsgFilterLoad{Filter: []byte{0xaa}, HashFuncs: MaxFilterLoadHashFuncs}, true},
		{&MsgFilterLoad{Filter: []byte{0xaa}, HashFuncs: MaxFilterLoadHashFuncs + 1}, false},
		{&MsgFilterLoad{}, true},
	}
	for i, c := range cases {
		b, err := c.m.BtcEncode(nil, testPver, BaseEncoding)
		if err != nil {
			t.Fatalf("case %d: encode: %v", i, err)
		}
		var got MsgFilterLoad
		if err := got.BtcDecode(b, testPver, BaseEncoding); err != nil {
			t.Fatalf("case %d: decode: %v", i, err)
		}
		if !bytes.Equal(got.Filter, c.m.Filter) || got.HashFuncs != c.m.HashFuncs {
			t.Fatalf("case %d: round trip changed the filter", i)
		}
		if got.WithinSizeConstraints() != c.within {
			t.Errorf("case %d: WithinSizeConstraints = %v, want %v", i, !c.within, c.within)
		}
	}
	for _, n := range []int{MaxFilterAddDataSize, MaxFilterAddDataSize + 1} {
		m := &MsgFilterAdd{Data: bytes.Repeat([]byte{0xcc}, n)}
		b, _ := m.BtcEncode(nil, testPver, BaseEncoding)
		var got MsgFilterAdd
		if err := got.BtcDecode(b, testPver, BaseEncoding); err != nil {
			t.Fatalf("filteradd of %d bytes: %v", n, err)
		}
		if want := n <= MaxFilterAddDataSize; got.WithinSizeLimit() != want {
			t.Errorf("filteradd of %d bytes: WithinSizeLimit = %v", n, !want)
		}
	}
}

// TestFilterLoadTruncated checks that a length prefix claiming more than
// the payload holds fails before anything is allocated for it.
func TestFilterLoadTruncated(t *testing.T) {
	for _, cmd := range []string{CmdFilterLoad, CmdFilterAdd} {
		p := AppendVarInt(nil, 1<<20)
		if _, err := decodeMsg(t, cmd, append(p, 1, 2, 3), BaseEncoding); !errors.Is(err, ErrTruncated) {
			t.Errorf("%s: huge length: %v", cmd, err)
		}
	}
	var m MsgFilterLoad
	if err := m.BtcDecode([]byte{1, 0xff, 0, 0, 0}, testPver, BaseEncoding); err == nil {
		t.Error("filterload without tweak and flags decoded")
	}
}
