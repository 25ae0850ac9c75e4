package wire

import (
	"bytes"
	"errors"
	"net/netip"
	"strings"
	"testing"
)

// addrV2Payload wraps one BIP155 network/address encoding (network id,
// length, address) in an addrv2 payload with time 0, no services and port
// 8333.
func addrV2Payload(t *testing.T, entry string) []byte {
	p := []byte{1, 0, 0, 0, 0, 0}
	p = append(p, mustHex(t, entry)...)
	return append(p, 0x20, 0x8d)
}

// TestAddrV2CoreVectors uses the network/address encodings of Bitcoin
// Core's cnetaddr_unserialize_v2 test.
func TestAddrV2CoreVectors(t *testing.T) {
	cases := []struct {
		entry string
		host  string // "" means skipped
		err   error
	}{
		{"010401020304", "1.2.3.4", nil},
		{"01040102", "", ErrTruncated},
		{"01050102030405", "", ErrMalformed},
		{"01fd010201020304", "", ErrLimitExceeded},
		{"02100102030405060708090a0b0c0d0e0f10", "102:304:506:708:90a:b0c:d0e:f10", nil},
		{"020400000000", "", ErrMalformed},
		{"030af1f2f3f4f5f6f7f8f9fa", "", nil}, // Tor v2: no longer supported, skipped
		{"042079bcc625184b05194975c28b66b66b0469f7f6556fb1ac3189a79b40dda32f1f",
			"pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd.onion", nil},
		{"040000", "", ErrMalformed},
		{"0520a2894dabaec08c0051a481a6dac88b64f98232ae42d4b6fd2fa81952dfe36a87",
			"ukeu3k5oycgaauneqgtnvselmt4yemvoilkln7jpvamvfx7dnkdq.b32.i2p", nil},
		{"050300000000", "", ErrMalformed},
		{"0610fc000001000200030004000500060007", "fc00:1:2:3:4:5:6:7", nil},
		{"060100", "", ErrMalformed},
		{"aafe0000000201020304050607", "", ErrLimitExceeded},
		{"aa0401020304", "", nil},
		{"aa00", "", nil},
	}
	for _, c := range cases {
		var m MsgAddrV2
		err := m.BtcDecode(addrV2Payload(t, c.entry), testPver, WitnessEncoding)
		if c.err != nil {
			if !errors.Is(err, c.err) {
				t.Errorf("%s: want %v, got %v", c.entry, c.err, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.entry, err)
			continue
		}
		if c.host == "" {
			if len(m.AddrList) != 0 {
				t.Errorf("%s: not skipped", c.entry)
			}
			continue
		}
		if len(m.AddrList) != 1 || m.AddrList[0].HostString() != c.host || m.AddrList[0].Port != 8333 {
			t.Errorf("%s: got %+v (%s)", c.entry, m.AddrList, m.AddrList[0].HostString())
		}
		// Canonical entries re-encode to the same bytes.
		if enc := encodeMsg(t, &m, WitnessEncoding); !bytes.Equal(enc, addrV2Payload(t, c.entry)) {
			t.Errorf("%s: re-encoding %x", c.entry, enc)
		}
	}
	if err := new(MsgAddrV2).BtcDecode(addrV2Payload(t, "aafe0000000201020304050607"), 0, 0); !strings.Contains(err.Error(), "33554432 exceeds maximum 512") {
		t.Errorf("limit message: %v", err)
	}
}

func TestNetAddressConversions(t *testing.T) {
	mapped := netip.MustParseAddr("::ffff:198.51.100.9")
	m := MsgAddr{AddrList: []NetAddress{{Timestamp: 9, Services: SFNodeNetwork, Addr: mapped, Port: 8333}}}
	enc := encodeMsg(t, &m, 0)
	if !bytes.Equal(enc[1+4+8:1+4+8+16], mustHex(t, "00000000000000000000ffffc6336409")) {
		t.Fatalf("IPv4-mapped encoding %x", enc)
	}
	var got MsgAddr
	if err := got.BtcDecode(enc, testPver, 0); err != nil {
		t.Fatal(err)
	}
	na := got.AddrList[0]
	if !na.Addr.Is4() || na.Addr.String() != "198.51.100.9" || na.AddrPort().String() != "198.51.100.9:8333" {
		t.Fatalf("decoded %v", na.Addr)
	}
	v2 := NetAddressV2FromNetAddress(na)
	if v2.NetworkID != NetIPv4 || len(v2.Addr) != 4 || v2.String() != "198.51.100.9:8333" {
		t.Fatalf("v2 %+v", v2)
	}
	back, ok := v2.ToNetAddress()
	if !ok || back != na {
		t.Fatalf("back %+v", back)
	}
	v6 := NetAddressV2FromNetAddress(NewNetAddress(netip.MustParseAddrPort("[2001:db8::5]:18444"), SFNodeWitness, 3))
	if v6.NetworkID != NetIPv6 || v6.String() != "[2001:db8::5]:18444" {
		t.Fatalf("v6 %+v %s", v6, v6.String())
	}
	tor := NetAddressV2{NetworkID: NetTorV3, Addr: make([]byte, 32)}
	if _, ok := tor.ToNetAddress(); ok {
		t.Fatal("tor converted to addr")
	}
	if _, ok := tor.IP(); ok {
		t.Fatal("tor has an IP")
	}
	if s := NetworkID(77).String(); s != "NetworkID(77)" {
		t.Fatal(s)
	}
}

func TestParseHost(t *testing.T) {
	for _, c := range []struct {
		host string
		net  NetworkID
		hex  string
	}{
		{"1.2.3.4", NetIPv4, "01020304"},
		{"::ffff:1.2.3.4", NetIPv4, "01020304"},
		{"[2001:db8::1]", NetIPv6, "20010db8000000000000000000000001"},
		{"pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd.onion", NetTorV3, "79bcc625184b05194975c28b66b66b0469f7f6556fb1ac3189a79b40dda32f1f"},
		{"PG6MMJIYJMCRSSLVYKFWNNTLARU7P5SVN6Y2YMMJU6NUBXNDF4PSCRYD.onion", NetTorV3, "79bcc625184b05194975c28b66b66b0469f7f6556fb1ac3189a79b40dda32f1f"},
		{"ukeu3k5oycgaauneqgtnvselmt4yemvoilkln7jpvamvfx7dnkdq.b32.i2p", NetI2P, "a2894dabaec08c0051a481a6dac88b64f98232ae42d4b6fd2fa81952dfe36a87"},
	} {
		n, b, err := ParseHost(c.host)
		if err != nil || n != c.net || !bytes.Equal(b, mustHex(t, c.hex)) {
			t.Errorf("%s: %v %x %v", c.host, n, b, err)
		}
	}
	for _, bad := range []string{
		"pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscrye.onion", // checksum
		"6hzph5hv6337r6p2.onion", // Tor v2
		"ukeu3k5oycgaauneqgtnvselmt4yemvoilkln7jpvamvfx7dnkd.b32.i2p",
		"example.com", "", "fe80::1%eth0",
	} {
		if _, _, err := ParseHost(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
