package addrmgr

import (
	"bytes"
	"encoding/binary"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
	"github.com/btcsuite/btclog"
)

// craftedDat builds an empty peers.dat the way feature_addrman.py's
// serialize_addrman does; the zero values of its fields give that
// script's defaults.
type craftedDat struct {
	format, lowest   int
	magic            wire.BitcoinNet
	key              byte // 0xff writes a zero key
	lenNew, lenTried int32
	mockChecksum     bool
}

func (c craftedDat) bytes() []byte {
	format, lowest, magic, key := 1, 4, wire.RegTest, byte(1)
	if c.format != 0 {
		format = c.format
	}
	if c.lowest != 0 {
		lowest = c.lowest
	}
	if c.magic != 0 {
		magic = c.magic
	}
	if c.key == 0xff {
		key = 0
	}
	b := binary.LittleEndian.AppendUint32(nil, uint32(magic))
	b = append(b, byte(format), byte(incompatibilityBase+lowest))
	k := make([]byte, 32)
	k[0] = key
	b = append(b, k...)
	b = binary.LittleEndian.AppendUint32(b, uint32(c.lenNew))
	b = binary.LittleEndian.AppendUint32(b, uint32(c.lenTried))
	b = binary.LittleEndian.AppendUint32(b, uint32(newBucketCount^1<<30))
	b = append(b, make([]byte, 4*newBucketCount)...)
	if c.mockChecksum {
		return append(b, bytes.Repeat([]byte("ab"), 32)...)
	}
	return append(b, wire.DoubleHashB(b)...)
}

func capturePersistLog(t *testing.T) *bytes.Buffer {
	t.Helper()
	var out bytes.Buffer
	l := btclog.NewBackend(&out).Logger("AMGR")
	l.SetLevel(btclog.LevelDebug)
	UseLogger(l)
	t.Cleanup(func() { UseLogger(btclog.Disabled) })
	return &out
}

func writeDat(t *testing.T, b []byte) (dir, path string) {
	t.Helper()
	dir = t.TempDir()
	path = filepath.Join(dir, FileName)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

// The start-up errors feature_addrman.py expects, in bitcoind's words.
func TestPeersDatCorruptFiles(t *testing.T) {
	valid := craftedDat{}.bytes()
	signet := craftedDat{magic: wire.SigNet}.bytes()
	for _, tc := range []struct {
		name string
		file []byte
		want string
	}{
		{"negative lowest_compatible", craftedDat{lowest: -32}.bytes(),
			"Corrupted addrman database: The compat value (0) is lower than the expected minimum value 32.: iostream error"},
		{"eof", valid[:len(valid)-1], "AutoFile::read: end of file: iostream error"},
		{"magic", signet, "Invalid network magic number"},
		{"checksum", craftedDat{mockChecksum: true}.bytes(), "Checksum mismatch, data corrupted"},
		{"len_tried", craftedDat{lenTried: -1}.bytes(),
			"Corrupt AddrMan serialization: nTried=-1, should be in [0, 16384]: iostream error"},
		{"large len_tried", craftedDat{lenTried: 16385}.bytes(),
			"Corrupt AddrMan serialization: nTried=16385, should be in [0, 16384]: iostream error"},
		{"len_new", craftedDat{lenNew: -1}.bytes(),
			"Corrupt AddrMan serialization: nNew=-1, should be in [0, 65536]: iostream error"},
		{"large len_new", craftedDat{lenNew: 65537}.bytes(),
			"Corrupt AddrMan serialization: nNew=65537, should be in [0, 65536]: iostream error"},
		{"failed check", craftedDat{key: 0xff}.bytes(), "Corrupt data. Consistency check failed with code -16: iostream error"},
	} {
		dir, path := writeDat(t, tc.file)
		m, err := New(Config{DataDir: dir, Net: wire.RegTest, BugReport: "https://example.org/issues"})
		if m != nil || err == nil {
			t.Errorf("%s: loaded", tc.name)
			continue
		}
		want := "Invalid or corrupt peers.dat (" + tc.want + "). If you believe this is a bug, please report it to https://example.org/issues. " +
			`As a workaround, you can move the file ("` + path + `") out of the way (rename, move, or delete) to have a new one created on the next start.`
		if err.Error() != want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, err, want)
		}
	}
}

func TestPeersDatStartupMessages(t *testing.T) {
	out := capturePersistLog(t)

	dir, _ := writeDat(t, craftedDat{}.bytes())
	mustNew(t, Config{DataDir: dir, Net: wire.RegTest})
	if !strings.Contains(out.String(), "Loaded 0 addresses from peers.dat  ") {
		t.Fatalf("valid file:\n%s", out)
	}

	// A file from a newer version is kept aside and replaced.
	dir, path := writeDat(t, craftedDat{lowest: 111}.bytes())
	out.Reset()
	m := mustNew(t, Config{DataDir: dir, Net: wire.RegTest})
	want := `Creating new peers.dat because the file version was not compatible ("` + path + `"). Original backed up to peers.dat.bak`
	if !strings.Contains(out.String(), want) {
		t.Fatalf("log:\n%s", out)
	}
	if _, err := os.Stat(path + ".bak"); err != nil {
		t.Fatal(err)
	}
	if m.Size() != 0 {
		t.Fatal("addresses from a replaced file")
	}
	if _, err := New(Config{DataDir: dir, Net: wire.RegTest}); err != nil {
		t.Fatalf("replacement does not load: %v", err)
	}

	// A missing file is created at once.
	dir = t.TempDir()
	path = filepath.Join(dir, FileName)
	out.Reset()
	mustNew(t, Config{DataDir: dir, Net: wire.RegTest})
	if !strings.Contains(out.String(), `Creating peers.dat because the file was not found ("`+path+`")`) {
		t.Fatalf("log:\n%s", out)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}

// Entries of every network, tried and new, survive a save and load in
// Core's format, with the fields Core stores.
func TestPeersDatRoundTrip(t *testing.T) {
	dir := t.TempDir()
	now := time.Unix(1_750_000_000, 0)
	m := mustNew(t, Config{DataDir: dir, Net: wire.RegTest, Now: func() time.Time { return now }})
	ts := uint32(now.Unix() - 100)
	i2p := wire.NetAddressV2{NetworkID: wire.NetI2P, Addr: bytes.Repeat([]byte{7}, 32), Port: 0, Timestamp: ts}
	cjdns := wire.NetAddressV2{NetworkID: wire.NetCJDNS, Addr: append([]byte{0xfc}, bytes.Repeat([]byte{3}, 15)...), Port: 8333, Timestamp: ts}
	v6 := na("[2a01::5]:18444")
	v6.Timestamp = ts
	v4 := ip4(23, 4, 5, 6, 18444)
	v4.Timestamp, v4.Services = ts, wire.SFNodeNetwork|wire.SFNodeWitness
	m.AddAddresses([]wire.NetAddressV2{i2p, cjdns, v6, v4}, ip4(8, 8, 8, 8, 1), 0)
	// A fixed seed has Core's internal source address.
	seed := netip.MustParseAddrPort("24.5.6.7:18444")
	if m.AddFixedSeeds([]netip.AddrPort{seed}) != 1 {
		t.Fatal("seed not added")
	}
	m.Good(v4)
	m.Attempt(v6)
	if err := m.Save(); err != nil {
		t.Fatal(err)
	}
	m2 := mustNew(t, Config{DataDir: dir, Net: wire.RegTest, Now: func() time.Time { return now }})
	checkInv(t, m2)
	if m2.Size() != m.Size() || m2.key != m.key {
		t.Fatalf("size %d want %d", m2.Size(), m.Size())
	}
	for _, a := range []wire.NetAddressV2{i2p, cjdns, v6, na(seed.String())} {
		if _, ok := m2.Lookup(a); !ok {
			t.Errorf("%v lost", a.String())
		}
	}
	ka, ok := m2.Lookup(v4)
	if !ok || !ka.Tried || ka.LastSuccess.Unix() != now.Unix() || ka.Addr.Services != v4.Services || ka.Addr.Timestamp == 0 {
		t.Fatalf("tried entry %+v", ka)
	}
	if ka, _ := m2.Lookup(v6); ka.Attempts != 1 {
		t.Fatalf("attempts %d", ka.Attempts)
	}
}

// Core's legacy and BIP155 encodings of one host decode to one key; the
// disguised networks Core ignores decode as unusable.
func TestPeersDatAddressEncodings(t *testing.T) {
	v4mapped := append(append([]byte{}, ipv4InIPv6Prefix...), 1, 2, 3, 4)
	if k, ok := legacyKey(v4mapped); !ok || k.net != wire.NetIPv4 || !bytes.Equal(k.addr[:4], []byte{1, 2, 3, 4}) {
		t.Fatalf("legacy IPv4 %v %v", k, ok)
	}
	tor2 := append(append([]byte{}, torV2InIPv6Prefix...), make([]byte, 10)...)
	if _, ok := legacyKey(tor2); ok {
		t.Fatal("legacy Tor v2 accepted")
	}
	r := &datReader{b: append([]byte{byte(wire.NetIPv6), 16}, v4mapped...)}
	if _, ok := r.netAddr(true); ok || r.err != nil {
		t.Fatalf("BIP155 IPv4-in-IPv6: ok %v err %v", ok, r.err)
	}
	r = &datReader{b: []byte{byte(wire.NetIPv4), 5, 1, 2, 3, 4, 5}}
	r.netAddr(true)
	if r.err == nil || r.err.Error() != "BIP155 IPv4 address with length 5 (should be 4): iostream error" {
		t.Fatalf("bad length: %v", r.err)
	}
	// Unknown networks are skipped, so the next field still reads.
	r = &datReader{b: []byte{99, 2, 0xaa, 0xbb, 0x20, 0x8d}}
	if _, ok := r.netAddr(true); ok || r.u16be() != 8333 || r.err != nil {
		t.Fatalf("unknown network: %v", r.err)
	}
	in := internalKey("fixed seeds")
	w := &datWriter{}
	w.netAddr(&in)
	r = &datReader{b: w.b}
	if k, ok := r.netAddr(true); !ok || k != in {
		t.Fatalf("internal source %v, want %v", k, in)
	}
}
