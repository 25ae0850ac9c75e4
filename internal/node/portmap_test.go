package node

import (
	"net"
	"net/netip"
	"path/filepath"
	"testing"
	"time"
)

// --natpmp asks the gateway to forward the listening port and lists the
// public address it gives among the node's own; not listening turns it
// off.
func TestNatPMP(t *testing.T) {
	gw, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer gw.Close()
	asked := make(chan uint16, 4)
	go func() {
		buf := make([]byte, 1100)
		for {
			n, from, err := gw.ReadFromUDP(buf)
			if err != nil {
				return
			}
			if n < 60 || buf[0] != 2 {
				continue
			}
			// A PCP gateway granting the port asked for at 44.4.4.4.
			out := make([]byte, 60)
			copy(out, buf[:60])
			out[1] |= 0x80
			out[3] = 0
			clear(out[8:24])
			ext := netip.AddrFrom16(netip.AddrFrom4([4]byte{44, 4, 4, 4}).As16()).As16()
			copy(out[44:60], ext[:])
			asked <- uint16(buf[40])<<8 | uint16(buf[41])
			gw.WriteToUDP(out, from)
		}
	}()
	dir := t.TempDir()
	cfg, err := loadConfig([]string{"--regtest", "--appdata=" + dir, "--datadir=" + filepath.Join(dir, "data"),
		"--logdir=" + filepath.Join(dir, "logs"), "--listen=127.0.0.1:0", "--norpc", "--nodnsseed", "--natpmp"})
	if err != nil {
		t.Fatal(err)
	}
	cfg.portmapGateway, _ = netip.ParseAddrPort(gw.LocalAddr().String())
	s, err := newServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	defer s.Stop()
	var port uint16
	select {
	case port = <-asked:
	case <-time.After(10 * time.Second):
		t.Fatal("the gateway was never asked")
	}
	if port != s.listenPort() {
		t.Fatalf("asked to map port %d, listening on %d", port, s.listenPort())
	}
	waitFor(t, 10*time.Second, "the mapped address listed as ours", func() bool {
		for _, la := range s.addrs.LocalAddresses() {
			if la.Addr.String() == netip.AddrPortFrom(netip.MustParseAddr("44.4.4.4"), port).String() {
				return true
			}
		}
		return false
	})

	cfg, err = loadConfig([]string{"--regtest", "--appdata=" + dir, "--datadir=" + dir, "--norpc", "--nolisten", "--natpmp"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.NatPMP {
		t.Fatal("--natpmp kept without listening")
	}
}
