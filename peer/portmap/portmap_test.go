package portmap

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"testing"
	"time"
)

// fakeGateway answers PCP MAP requests (pcp) or only NAT-PMP, granting
// ext with the requested port and lifetime; refuse sets a result code.
func fakeGateway(t *testing.T, pcp bool, ext netip.Addr, refuse byte) netip.AddrPort {
	t.Helper()
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	go func() {
		buf := make([]byte, 1100)
		for {
			n, from, err := c.ReadFromUDP(buf)
			if err != nil {
				return
			}
			r := buf[:n]
			var out []byte
			switch {
			case r[0] == 2 && pcp && n >= 60:
				out = make([]byte, 60)
				copy(out, r)
				out[1] |= 0x80
				out[2], out[3] = 0, refuse
				copy(out[4:8], r[4:8])
				clear(out[8:24])
				e := netip.AddrFrom16(netip.AddrFrom4(ext.As4()).As16()).As16()
				copy(out[44:60], e[:])
			case r[0] == 2:
				out = []byte{0, 0x80 | r[1], 0, 1, 0, 0, 0, 0} // unsupported version
			case r[0] == 0 && r[1] == 0:
				out = make([]byte, 12)
				out[1] = 128
				a := ext.As4()
				copy(out[8:], a[:])
			case r[0] == 0 && r[1] == 2 && n >= 12:
				out = make([]byte, 16)
				out[1] = 130
				out[3] = refuse
				copy(out[8:10], r[4:6])
				copy(out[10:12], r[6:8])
				copy(out[12:16], r[8:12])
			}
			if out != nil {
				c.WriteToUDP(out, from)
			}
		}
	}()
	ap, _ := netip.ParseAddrPort(c.LocalAddr().String())
	return ap
}

func TestMapTCP(t *testing.T) {
	ext := netip.MustParseAddr("44.4.4.4")
	ctx := context.Background()
	for _, pcp := range []bool{true, false} {
		m, err := MapTCP(ctx, fakeGateway(t, pcp, ext, 0), 8333, 40*time.Minute)
		want := map[bool]string{true: "PCP", false: "NAT-PMP"}[pcp]
		if err != nil || m.External != netip.AddrPortFrom(ext, 8333) || m.Lifetime != 40*time.Minute || m.Proto != want {
			t.Fatalf("pcp=%v: mapping %+v, err %v", pcp, m, err)
		}
		_, err = MapTCP(ctx, fakeGateway(t, pcp, ext, 2), 8333, time.Minute)
		var re *ResultError
		if !errors.As(err, &re) || re.Code != 2 || re.Proto != want {
			t.Fatalf("pcp=%v refused: %v", pcp, err)
		}
	}
	// Nobody answering.
	dead, _ := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	ap, _ := netip.ParseAddrPort(dead.LocalAddr().String())
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if _, err := MapTCP(short, ap, 8333, time.Minute); err == nil {
		t.Fatal("a silent gateway gave a mapping")
	}
	dead.Close()
}

// FuzzParseReplies feeds arbitrary datagrams to the reply parsers: no
// panic, and a mapping they accept has a valid address.
func FuzzParseReplies(f *testing.F) {
	nonce := make([]byte, 12)
	f.Add(make([]byte, 60))
	f.Add([]byte{0, 0x81, 0, 1})
	f.Add([]byte{0, 128, 0, 0, 0, 0, 0, 0, 44, 4, 4, 4})
	f.Add([]byte{0, 130, 0, 0, 0, 0, 0, 0, 0x20, 0x8d, 0x20, 0x8d, 0, 0, 1, 0})
	f.Fuzz(func(t *testing.T, r []byte) {
		if m, ok, err := parsePCPMap(r, nonce); ok && err == nil && !m.External.Addr().IsValid() {
			t.Fatal("PCP mapping without an address")
		}
		ext, ok, err := parseNATPMPAddr(r)
		if ok && err == nil && !ext.Is4() {
			t.Fatal("NAT-PMP address not IPv4")
		}
		parseNATPMPMap(r, netip.MustParseAddr("44.4.4.4"), 8333)
	})
}
