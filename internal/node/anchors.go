package node

import (
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/peer/addrmgr"
	"github.com/btcnode/btcd/peer/connmgr"
	"github.com/btcnode/btcd/wire"
)

// anchorServices are the services an anchor must have been seen with to
// be reconnected to (Core's desirable services away from the tip).
const anchorServices = wire.SFNodeNetwork | wire.SFNodeWitness

// anchorsPath is where anchors.dat lives.
func (s *server) anchorsPath() string {
	return filepath.Join(s.cfg.DataDir, addrmgr.AnchorsFileName)
}

// connectAnchors reads (and removes) anchors.dat and reconnects to the
// block-relay-only peers it names, so a restart keeps the connections
// hardest for an attacker to have chosen (Core's anchors).
func (s *server) connectAnchors() {
	anchors, err := addrmgr.ReadAnchors(s.anchorsPath(), s.cfg.params.Net)
	if err != nil {
		amgrLog.Debugf("Reading %s: %v", addrmgr.AnchorsFileName, err)
		anchors = nil
	} else if anchors != nil {
		amgrLog.Infof("Loaded %d addresses from %q", len(anchors), addrmgr.AnchorsFileName)
	}
	anchors = anchors[:min(len(anchors), addrmgr.MaxAnchors)]
	amgrLog.Infof("%d block-relay-only anchors will be tried for connections.", len(anchors))
	for _, a := range anchors {
		if a.Services&anchorServices != anchorServices || !s.cfg.reachableNet(a.NetworkID) {
			continue
		}
		if ip, ok := a.IP(); ok && s.bans.IsBanned(ip) {
			continue
		}
		amgrLog.Debugf("Trying to make an anchor connection to %s", a.String())
		if err := s.dialOneShot(a.String(), peer.ConnBlockRelay); err != nil {
			amgrLog.Debugf("Anchor %s: %v", a.String(), err)
		}
	}
}

// dumpAnchors writes the outbound block-relay-only peers of peers (the
// ones connected at shutdown), then those still being dialed, to
// anchors.dat.
func (s *server) dumpAnchors(peers []*serverPeer) {
	var anchors []wire.NetAddressV2
	for _, p := range peers {
		if len(anchors) == addrmgr.MaxAnchors {
			break
		}
		if p.Inbound() || p.ConnType() != peer.ConnBlockRelay {
			continue
		}
		na, ok := dialedAddress(p.Addr())
		if !ok {
			continue
		}
		na.Services = p.Stats().Services
		na.Timestamp = uint32(clock.Unix())
		anchors = append(anchors, na)
	}
	// A block-relay-only dial still in progress counts too: bitcoind's
	// addconnection returns only once connected, ours sooner.
	s.mu.Lock()
	for _, r := range s.cm.Requests() {
		if len(anchors) == addrmgr.MaxAnchors {
			break
		}
		st := r.State()
		if s.oneShot[r.ID] != peer.ConnBlockRelay || (st != connmgr.ConnPending && st != connmgr.ConnEstablished) {
			continue
		}
		if na, ok := dialedAddress(r.Addr); ok && !slices.ContainsFunc(anchors, func(a wire.NetAddressV2) bool { return a.String() == na.String() }) {
			na.Timestamp = uint32(clock.Unix())
			anchors = append(anchors, na)
		}
	}
	s.mu.Unlock()
	what := "Flush " + strconv.Itoa(len(anchors)) + " outbound block-relay-only peer addresses to anchors.dat"
	start := time.Now()
	amgrLog.Infof("DumpAnchors: %s started", what)
	if err := addrmgr.WriteAnchors(s.anchorsPath(), s.cfg.params.Net, anchors); err != nil {
		amgrLog.Errorf("Writing %s: %v", addrmgr.AnchorsFileName, err)
		return
	}
	amgrLog.Infof("DumpAnchors: %s completed (%.2fs)", what, time.Since(start).Seconds())
}

// dialedAddress parses the host:port an outbound connection dialed (an
// IP, Tor v3 or I2P host).
func dialedAddress(addr string) (wire.NetAddressV2, bool) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return wire.NetAddressV2{}, false
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return wire.NetAddressV2{}, false
	}
	id, raw, err := wire.ParseHost(host)
	if err != nil {
		return wire.NetAddressV2{}, false
	}
	return wire.NetAddressV2{NetworkID: id, Addr: raw, Port: uint16(p)}, true
}
