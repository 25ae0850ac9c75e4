package addrmgr

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/btcnode/btcd/wire"
)

func testAnchors(t testing.TB) []wire.NetAddressV2 {
	_, onion, err := wire.ParseHost("pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd.onion")
	if err != nil {
		t.Fatal(err)
	}
	return []wire.NetAddressV2{
		{Timestamp: 1_700_000_000, Services: wire.SFNodeNetwork | wire.SFNodeWitness, NetworkID: wire.NetIPv4, Addr: []byte{127, 0, 0, 1}, Port: 0x1234},
		{Timestamp: 5, NetworkID: wire.NetTorV3, Addr: onion, Port: 8333},
	}
}

// The layout is Core's: magic, count, then per address the disk version,
// time and services, so services sit at byte 13 for the first one.
func TestAnchorsRoundTripAndLayout(t *testing.T) {
	in := testAnchors(t)
	b, err := EncodeAnchors(wire.RegTest, in)
	if err != nil {
		t.Fatal(err)
	}
	if b[4] != 2 || b[13] != byte(wire.SFNodeNetwork|wire.SFNodeWitness) {
		t.Fatalf("layout: count %d services %#x", b[4], b[13])
	}
	out, err := DecodeAnchors(wire.RegTest, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out[0].String() != "127.0.0.1:4660" || out[1].HostString() != "pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd.onion" ||
		out[0].Services != in[0].Services || out[1].Timestamp != 5 {
		t.Fatalf("decoded %v", out)
	}
	if _, err := DecodeAnchors(wire.MainNet, b); !errors.Is(err, ErrCorruptAnchors) {
		t.Fatalf("other network's magic: %v", err)
	}
	bad := append(append([]byte{}, b[:20]...), append([]byte{'1'}, b[20:]...)...)
	if _, err := DecodeAnchors(wire.RegTest, bad); !errors.Is(err, ErrCorruptAnchors) {
		t.Fatalf("perturbed file: %v", err)
	}
}

// ReadAnchors removes the file whatever it held.
func TestReadAnchorsRemovesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), AnchorsFileName)
	if got, err := ReadAnchors(path, wire.RegTest); err != nil || got != nil {
		t.Fatalf("missing file: %v %v", got, err)
	}
	if err := WriteAnchors(path, wire.RegTest, testAnchors(t)); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadAnchors(path, wire.RegTest); err != nil || len(got) != 2 {
		t.Fatalf("read: %v %v", got, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("file still there: %v", err)
	}
	os.WriteFile(path, []byte("garbage"), 0o600)
	if _, err := ReadAnchors(path, wire.RegTest); err == nil {
		t.Fatal("garbage accepted")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("garbage file kept")
	}
}

func FuzzDecodeAnchors(f *testing.F) {
	b, _ := EncodeAnchors(wire.RegTest, testAnchors(f))
	f.Add(b)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		addrs, err := DecodeAnchors(wire.RegTest, data)
		if err != nil {
			return
		}
		again, err := EncodeAnchors(wire.RegTest, addrs)
		if err != nil {
			t.Fatalf("re-encoding decoded anchors: %v", err)
		}
		if _, err := DecodeAnchors(wire.RegTest, again); err != nil {
			t.Fatalf("re-encoded anchors do not decode: %v", err)
		}
	})
}
