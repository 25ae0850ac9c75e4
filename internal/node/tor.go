package node

import (
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/peer/addrmgr"
	"github.com/btcnode/btcd/peer/connmgr"
	"github.com/btcnode/btcd/peer/torcontrol"
	"github.com/btcnode/btcd/wire"
)

// onionKeyFileName keeps the onion service's private key in the data
// directory, so the node's onion address survives restarts (bitcoind's
// name for the file).
const onionKeyFileName = "onion_v3_private_key"

// maxOnionKeyFile bounds what is read from the key file; a key is about
// a hundred bytes.
const maxOnionKeyFile = 4096

// The control connection is retried after 1 s, then half as long again
// after each failure, up to 10 minutes (bitcoind's back-off).
const (
	torRetryStart = time.Second
	torRetryMax   = 10 * time.Minute
)

// torService is --listenonion: a connection to Tor's control port that
// keeps the node's onion service alive and tells the dialer where Tor's
// SOCKS port is.
type torService struct {
	// socks is Tor's SOCKS port as its control port named it; set only
	// when no --onion proxy is configured.
	socks atomic.Pointer[connmgr.Proxy]
	// onion is the published address while the service is up.
	onion atomic.Pointer[wire.NetAddressV2]
}

// socksProxy is the dialer's TorSOCKS hook.
func (t *torService) socksProxy() *connmgr.Proxy { return t.socks.Load() }

// socksText is Tor's SOCKS port for getnetworkinfo, "" when none.
func (t *torService) socksText() string {
	if p := t.socks.Load(); p != nil {
		return p.Addr
	}
	return ""
}

// startTorControl runs the control connection of --listenonion until
// shutdown, reconnecting with back-off.
func (s *server) startTorControl() {
	if !s.cfg.ListenOnion {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		torLog.Info("torcontrol thread start")
		defer torLog.Info("torcontrol thread exit")
		retry := torRetryStart
		for {
			if s.torSession() {
				retry = torRetryStart
			}
			select {
			case <-s.quit:
				return
			default:
			}
			torLog.Infof("Not connected to Tor control port %s, retrying in %.2f s", s.cfg.TorControl, retry.Seconds())
			if !s.sleep(retry) {
				return
			}
			retry = min(retry*3/2, torRetryMax)
		}
	}()
}

// torSession runs one control connection: authenticate, learn the SOCKS
// port, publish the onion service, and hold the connection (Tor removes
// the service when it closes). It reports whether the service got
// published.
func (s *server) torSession() bool {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	conn, err := torcontrol.Dial(ctx, s.cfg.TorControl)
	cancel()
	if err != nil {
		torLog.Debugf("Error connecting to Tor control socket %s: %v", s.cfg.TorControl, err)
		return false
	}
	defer conn.Close()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-s.quit:
			conn.Close()
		case <-done:
		}
	}()
	torLog.Debugf("Connected to Tor control port %s", s.cfg.TorControl)
	if err := conn.Authenticate(s.cfg.TorPassword); err != nil {
		torLog.Errorf("Tor control authentication failed: %v", err)
		return false
	}
	torLog.Info("Authentication successful")
	if s.cfg.OnionProxy == "" && !s.cfg.NoOnion {
		s.learnTorSOCKS(conn)
	}
	na, err := s.addOnion(conn)
	if err != nil {
		torLog.Errorf("Creating the onion service failed: %v", err)
		return false
	}
	s.tor.onion.Store(&na)
	s.addrs.AddLocalNetAddress(na, addrmgr.LocalScoreManual)
	err = conn.Wait()
	s.addrs.RemoveLocalNetAddress(na)
	s.tor.onion.Store(nil)
	select {
	case <-s.quit:
	default:
		torLog.Infof("Disconnected from Tor control port %s: %v", s.cfg.TorControl, err)
	}
	return true
}

// learnTorSOCKS points the dialer's onion connections at the first TCP
// SOCKS port Tor names, or at port 9050 of the control port's host.
func (s *server) learnTorSOCKS(conn *torcontrol.Conn) {
	addr := ""
	if socks, err := conn.SOCKSListeners(); err == nil {
		for _, a := range socks {
			if _, err := netip.ParseAddrPort(a); err == nil {
				addr = a
				break
			}
		}
	} else {
		torLog.Debugf("GETINFO net/listeners/socks: %v", err)
	}
	if addr == "" {
		host, _, _ := net.SplitHostPort(s.cfg.TorControl)
		addr = net.JoinHostPort(host, defaultSOCKSPort)
	}
	s.tor.socks.Store(&connmgr.Proxy{Addr: addr, TorIsolation: !s.cfg.NoProxyRandomize})
	torLog.Infof("Configuring onion proxy for %s", addr)
}

// addOnion publishes the service with the saved key, or a new one that
// it then saves, and returns the address peers reach it at: the
// network's default port, as bitcoind advertises it.
func (s *server) addOnion(conn *torcontrol.Conn) (wire.NetAddressV2, error) {
	keyPath := filepath.Join(s.cfg.DataDir, onionKeyFileName)
	key, err := readOnionKey(keyPath)
	if err != nil {
		return wire.NetAddressV2{}, err
	}
	port, err := strconv.ParseUint(s.cfg.params.DefaultPort, 10, 16)
	if err != nil {
		return wire.NetAddressV2{}, err
	}
	o, err := conn.AddOnion(key, uint16(port), s.cfg.torTarget)
	if err != nil {
		return wire.NetAddressV2{}, err
	}
	if o.PrivateKey != "" {
		if err := os.WriteFile(keyPath, []byte(o.PrivateKey), 0o600); err != nil {
			torLog.Warnf("Saving the onion service key to %s: %v", keyPath, err)
		} else {
			torLog.Infof("Cached service private key to %s", keyPath)
		}
	}
	host := o.ServiceID + ".onion"
	id, raw, err := wire.ParseHost(host)
	if err != nil {
		return wire.NetAddressV2{}, err
	}
	torLog.Infof("Got service ID %s, advertising service %s:%d", o.ServiceID, host, port)
	return wire.NetAddressV2{NetworkID: id, Addr: raw, Port: uint16(port), Services: s.peerCfg.Services}, nil
}

// readOnionKey returns the saved key, or torcontrol.NewKey when there is
// none yet.
func readOnionKey(path string) (string, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return torcontrol.NewKey, nil
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxOnionKeyFile+1))
	if err != nil {
		return "", err
	}
	key := strings.TrimSpace(string(b))
	if len(b) > maxOnionKeyFile || !strings.HasPrefix(key, "ED25519-V3:") || strings.ContainsAny(key, " \r\n") {
		return "", errors.New(path + " does not hold an ED25519-V3 onion service key")
	}
	return key, nil
}

// inboundOnion reports whether p came in through the onion service: an
// inbound connection to --onionbind, which only Tor makes. Such a peer
// is shown as onion (its address is Tor's, on loopback) and is told our
// onion address.
func (s *server) inboundOnion(p *peer.Peer) bool {
	return s.cfg.OnionBind != "" && p.Inbound() && p.LocalAddr() != nil && p.LocalAddr().String() == s.cfg.OnionBind
}
