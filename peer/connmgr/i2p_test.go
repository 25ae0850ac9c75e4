package connmgr

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/btcnode/btcd/peer/i2p"
	"github.com/btcsuite/btclog"
)

const (
	i2pHost  = "h3r6bkn46qxftwja53pxiykntegfyfjqtnzbm6iv6r5mungmqgmq.b32.i2p"
	i2pHost2 = "zsxwyo6qcn3chqzwxnseusqgsnuw3maqnztkiypyfxtya4snkoka.b32.i2p"
)

// I2P addresses with a port other than 0 are refused without touching
// the bridge, with bitcoind's log wording.
func TestI2PArbitraryPortRefused(t *testing.T) {
	called := false
	d := NewDialer(DialConfig{I2P: func(context.Context, string) (net.Conn, error) {
		called = true
		return nil, errors.New("dialed")
	}})
	addr := i2pHost2 + ":8333"
	_, err := d(context.Background(), addr)
	if !errors.Is(err, ErrArbitraryPort) || called {
		t.Fatalf("error %v, bridge called %v", err, called)
	}
	want := "Error connecting to " + addr + ", connection refused due to arbitrary port 8333"
	if got := ConnectError(addr, err); got != want {
		t.Errorf("log %q, want %q", got, want)
	}
}

// Port 0 I2P addresses go to the I2P session with the bare host; without
// one they fail instead of leaking to DNS or a direct dial.
func TestI2PDialRouting(t *testing.T) {
	var got string
	d := NewDialer(DialConfig{
		Proxies: AllNetworks(&Proxy{Addr: "127.0.0.1:1"}),
		I2P: func(_ context.Context, host string) (net.Conn, error) {
			got = host
			return nil, errors.New("no bridge")
		},
	})
	d(context.Background(), i2pHost+":0")
	if got != i2pHost {
		t.Errorf("I2P session asked for %q", got)
	}
	if _, err := NewDialer(DialConfig{})(context.Background(), i2pHost+":0"); !errors.Is(err, ErrNoI2PSession) {
		t.Errorf("without a session: %v", err)
	}
}

func closedAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// With no bridge listening the attempt is logged as bitcoind logs it.
func TestI2PNoBridgeLogged(t *testing.T) {
	out := &syncBuffer{}
	lg := btclog.NewBackend(out).Logger("CMGR")
	lg.SetLevel(btclog.LevelDebug)
	UseLogger(lg)
	defer UseLogger(btclog.Disabled)
	sam := closedAddr(t)
	s := i2p.New(i2p.Config{SAMAddr: sam, Timeout: 2 * time.Second})
	m := New(Config{Dial: NewDialer(DialConfig{I2P: s.Connect}), MaxPeers: 4})
	m.Start()
	defer m.Stop()
	if _, err := m.ConnectOneShot(i2pHost + ":0"); err != nil {
		t.Fatal(err)
	}
	want := "Error connecting to " + i2pHost + ":0: Cannot connect to " + sam + "\n"
	waitFor(t, "connect error log line", 5*time.Second, func() bool { return strings.Contains(out.String(), want) })
}

func TestNormalizeI2PAddress(t *testing.T) {
	if got := NormalizeAddress(i2pHost, "8333"); got != i2pHost+":0" {
		t.Errorf("I2P host without port: %q", got)
	}
	if got := NormalizeAddress(i2pHost+":8333", "8333"); got != i2pHost+":8333" {
		t.Errorf("I2P host with port: %q", got)
	}
	if got := NormalizeAddress("1.2.3.4", "8333"); got != "1.2.3.4:8333" {
		t.Errorf("IPv4: %q", got)
	}
}
