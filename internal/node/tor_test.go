package node

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

// fakeTorControl is a Tor control port that allows NULL authentication,
// names a SOCKS port and creates onion services; drop ends the current
// connection as a Tor restart would.
type fakeTorControl struct {
	l    net.Listener
	mu   sync.Mutex
	cmds []string
	conn net.Conn
}

const fakeServiceID = "pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd"

func startFakeTorControl(t *testing.T) *fakeTorControl {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeTorControl{l: l}
	t.Cleanup(func() { l.Close(); f.drop() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			f.mu.Lock()
			f.conn = c
			f.mu.Unlock()
			go f.serve(c)
		}
	}()
	return f
}

func (f *fakeTorControl) drop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.conn != nil {
		f.conn.Close()
	}
}

func (f *fakeTorControl) commands() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.cmds...)
}

func (f *fakeTorControl) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		f.mu.Lock()
		f.cmds = append(f.cmds, line)
		f.mu.Unlock()
		switch cmd, arg, _ := strings.Cut(line, " "); cmd {
		case "PROTOCOLINFO":
			fmt.Fprint(c, "250-PROTOCOLINFO 1\r\n250-AUTH METHODS=NULL\r\n250-VERSION Tor=\"0.4.8.10\"\r\n250 OK\r\n")
		case "AUTHENTICATE":
			fmt.Fprint(c, "250 OK\r\n")
		case "GETINFO":
			fmt.Fprint(c, "250-net/listeners/socks=\"unix:/run/tor/socks\" \"127.0.0.1:9150\"\r\n250 OK\r\n")
		case "ADD_ONION":
			if strings.HasPrefix(arg, "NEW:") {
				fmt.Fprintf(c, "250-ServiceID=%s\r\n250-PrivateKey=ED25519-V3:a2V5\r\n250 OK\r\n", fakeServiceID)
			} else {
				fmt.Fprintf(c, "250-ServiceID=%s\r\n250 OK\r\n", fakeServiceID)
			}
		default:
			fmt.Fprint(c, "510 Unrecognized command\r\n")
		}
	}
}

// localOnion reports whether the node lists the fake service's address
// among its own.
func localOnion(n *testNode) bool {
	for _, la := range n.s.addrs.LocalAddresses() {
		if la.Addr.NetworkID == wire.NetTorV3 && la.Addr.Port == 18444 {
			return true
		}
	}
	return false
}

// --listenonion publishes the node through Tor's control port: a new
// key the first time, saved and reused when the control connection
// comes back; the service's address is the node's own while the
// connection lasts, and onion peers go through the SOCKS port Tor names.
func TestListenOnion(t *testing.T) {
	f := startFakeTorControl(t)
	onionBind := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	n := newTestNode(t, "--listenonion", "--torcontrol="+f.l.Addr().String(), "--onionbind="+onionBind)
	waitFor(t, 10*time.Second, "onion service published", func() bool { return localOnion(n) })
	cmds := f.commands()
	want := "ADD_ONION NEW:ED25519-V3 Port=18444," + onionBind
	if len(cmds) < 4 || cmds[0] != "PROTOCOLINFO 1" || cmds[1] != "AUTHENTICATE" || cmds[2] != "GETINFO net/listeners/socks" || cmds[3] != want {
		t.Fatalf("commands %q, want ADD_ONION %q", cmds, want)
	}
	if c, err := net.DialTimeout("tcp", onionBind, 5*time.Second); err != nil {
		t.Fatalf("nothing listens on the onion bind: %v", err)
	} else {
		c.Close()
	}
	key, err := os.ReadFile(filepath.Join(n.s.cfg.DataDir, onionKeyFileName))
	if err != nil || string(key) != "ED25519-V3:a2V5" {
		t.Fatalf("saved key %q %v", key, err)
	}
	nets := networksInfo(n.s.cfg, n.s.tor.socksText())
	if nets[2].Name != "onion" || !nets[2].Reachable || nets[2].Proxy != "127.0.0.1:9150" {
		t.Fatalf("onion network %+v", nets[2])
	}
	if p := n.s.dialConfig().TorSOCKS(); p == nil || p.Addr != "127.0.0.1:9150" {
		t.Fatalf("dialer's Tor SOCKS port %+v", p)
	}
	checkInboundOnion(t, n, onionBind)
	f.drop()
	waitFor(t, 10*time.Second, "onion address withdrawn", func() bool { return !localOnion(n) })
	waitFor(t, 10*time.Second, "onion service published again", func() bool { return localOnion(n) })
	if cmds := f.commands(); !strings.Contains(strings.Join(cmds, "\n"), "ADD_ONION ED25519-V3:a2V5 Port=18444,") {
		t.Fatalf("the saved key was not reused: %q", cmds)
	}
}

// Without a listener there is no service to publish: --listenonion is
// dropped, as bitcoind's -listen=0 does. The service forwards to the
// onion bind, else to the first listener.
func TestListenOnionNeedsListening(t *testing.T) {
	dir := t.TempDir()
	cfg, err := loadConfig([]string{"--regtest", "--appdata=" + dir, "--datadir=" + dir, "--norpc", "--nolisten", "--listenonion"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ListenOnion {
		t.Fatal("--listenonion kept without listening")
	}
	for _, tc := range []struct {
		args      []string
		target    string
		listeners int
	}{
		{[]string{"--listen=127.0.0.1:18555"}, "127.0.0.1:18555", 1},
		{[]string{}, "127.0.0.1:18444", 1}, // every interface: Tor comes on loopback
		{[]string{"--listen=0.0.0.0:18555", "--onionbind=127.0.0.1:18556"}, "127.0.0.1:18556", 2},
	} {
		args := append([]string{"--regtest", "--appdata=" + dir, "--datadir=" + dir, "--norpc", "--listenonion"}, tc.args...)
		cfg, err := loadConfig(args)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.torTarget != tc.target || len(cfg.Listeners) != tc.listeners {
			t.Errorf("%v: target %q, listeners %q", tc.args, cfg.torTarget, cfg.Listeners)
		}
	}
}

// checkInboundOnion connects to the onion bind as Tor would for a peer
// of the service: that peer is shown as onion and is told our onion
// address.
func checkInboundOnion(t *testing.T, n *testNode, onionBind string) {
	t.Helper()
	n.mine(t, 1) // a current tip: addresses are announced only then
	c, err := net.DialTimeout("tcp", onionBind, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := &netPeer{conn: c, net: n.s.cfg.params.Net, msgs: make(chan wire.Message, 256)}
	r.send(t, netPeerVersion(n, netip.MustParseAddrPort(c.RemoteAddr().String())))
	go r.readLoop()
	r.next(t, 10*time.Second, "verack", func(m wire.Message) bool { _, ok := m.(*wire.MsgVerAck); return ok })
	r.send(t, &wire.MsgVerAck{})
	var infos []struct {
		Addr    string `json:"addr"`
		Network string `json:"network"`
	}
	waitFor(t, 10*time.Second, "the onion peer in getpeerinfo", func() bool {
		json.Unmarshal(n.must(t, "getpeerinfo"), &infos)
		return len(infos) == 1
	})
	if infos[0].Network != "onion" {
		t.Fatalf("peer through the onion bind: network %q", infos[0].Network)
	}
	for _, p := range n.s.sync.Peers() {
		if got := n.s.connectedNetwork(p); got != wire.NetTorV3 {
			t.Fatalf("the onion peer came through network %d (eviction protection)", got)
		}
		na, ok := n.s.localAddressFor(p)
		if !ok || na.NetworkID != wire.NetTorV3 || na.Port != 18444 {
			t.Fatalf("announced to the onion peer: %v %v", na.String(), ok)
		}
	}
}
