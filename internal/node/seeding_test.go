package node

import (
	"net"
	"testing"
	"time"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/peer/addrmgr"
	"github.com/btcnode/btcd/wire"
)

// runSeeding runs runOpenConnSeeding in the background and returns a
// channel closed when it returns.
func runSeeding(n *testNode, network wire.BitcoinNet) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		n.s.runOpenConnSeeding(addrmgr.FixedSeeds(network))
	}()
	return done
}

// With another source of addresses configured (here the --connect peer),
// the fixed seeds wait until a minute of node time has passed with the
// address manager still empty; setmocktime moves that minute. The
// node never dials them: --connect turns automatic connections off.
func TestFixedSeedsAfterAMinute(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	start := time.Now().Unix()
	clock.SetMock(start)
	defer clock.SetMock(0)
	n := newTestNode(t, "--connect="+closed)
	done := runSeeding(n, wire.MainNet)
	time.Sleep(3 * openConnTick)
	if n.s.addrs.Size() != 0 {
		t.Fatal("fixed seeds added before the minute passed")
	}
	clock.SetMock(start + 65)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("fixed seeds not added after the minute")
	}
	if n.s.addrs.Size() == 0 {
		t.Fatal("no fixed seed addresses")
	}
}

// With no DNS seeds, seed nodes or added nodes, the fixed seeds are added
// at once; with --nofixedseeds never.
func TestFixedSeedsAtOnceWithoutOtherSources(t *testing.T) {
	n := newTestNode(t, "--noconnect", "--nodnsseed")
	select {
	case <-runSeeding(n, wire.MainNet):
	case <-time.After(10 * time.Second):
		t.Fatal("fixed seeds not added at once")
	}
	if n.s.addrs.Size() == 0 {
		t.Fatal("no fixed seed addresses")
	}

	m := newTestNode(t, "--noconnect", "--nodnsseed", "--nofixedseeds")
	select {
	case <-runSeeding(m, wire.MainNet):
	case <-time.After(5 * time.Second):
		t.Fatal("seeding loop kept running with --nofixedseeds")
	}
	if m.s.addrs.Size() != 0 {
		t.Fatal("fixed seeds added with --nofixedseeds")
	}
}

// Regtest has bitcoind's dummy DNS seed, under .invalid, which is never
// looked up.
func TestRegtestDummySeedNeverResolves(t *testing.T) {
	n := newTestNode(t, "--noconnect", "--nodnsseed")
	seeds := n.s.dnsSeeds()
	if len(seeds) != 1 || !neverResolves(seeds[0].Host) {
		t.Fatalf("regtest seeds %+v", seeds)
	}
	for _, h := range []string{"seed.bitcoin.sipa.be", "invalidx.org"} {
		if neverResolves(h) {
			t.Errorf("%s taken as never resolving", h)
		}
	}
}

// --forcednsseed cannot be combined with DNS seeding off (--connect turns
// it off too).
func TestForceDNSSeedNeedsDNSSeed(t *testing.T) {
	dir := t.TempDir()
	for _, extra := range [][]string{{"--nodnsseed"}, {"--connect=127.0.0.1:1"}} {
		args := append([]string{"--regtest", "--appdata=" + dir, "--datadir=" + dir, "--norpc", "--forcednsseed"}, extra...)
		_, err := loadConfig(args)
		if err == nil || ErrorText(err) != "Cannot set -forcednsseed to true when setting -dnsseed to false." {
			t.Errorf("%v: %v", extra, err)
		}
	}
}

// --onlynet takes bitcoind's network names; leaving out IPv4 and IPv6
// turns the DNS seeds off, or is an error when they were asked for.
func TestOnlyNet(t *testing.T) {
	dir := t.TempDir()
	base := []string{"--regtest", "--appdata=" + dir, "--datadir=" + dir, "--norpc"}
	if _, err := loadConfig(append(base, "--onlynet=ipx")); err == nil || ErrorText(err) != "Unknown network specified in -onlynet: 'ipx'" {
		t.Errorf("unknown network: %v", err)
	}
	cfg, err := loadConfig(append(base, "--onlynet=onion", "--onion=127.0.0.1:9050"))
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.DisableDNSSeed || cfg.reachableNet(wire.NetIPv4) || !cfg.reachableNet(wire.NetTorV3) {
		t.Errorf("--onlynet=onion: dnsseed off %v, ipv4 %v", cfg.DisableDNSSeed, cfg.reachableNet(wire.NetIPv4))
	}
	c := DefaultConfig()
	c.Bitcoind.KeepDNSSeed = true
	c.OnlyNets = []string{"i2p"}
	c.I2PSAM = "127.0.0.1:7656"
	if err := c.validateOnlyNet(); err == nil || ErrorText(err) != "Incompatible options: -dnsseed=1 was explicitly specified, but -onlynet forbids connections to IPv4/IPv6" {
		t.Errorf("explicit dnsseed with onlynet=i2p: %v", err)
	}
}
