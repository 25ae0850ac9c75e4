package node

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/peer/addrmgr"
	"github.com/btcnode/btcd/rpc"
	"github.com/btcnode/btcd/wire"
)

// errNetworkInactive rejects peers while setnetworkactive false is in
// force.
var errNetworkInactive = errors.New("network activity disabled by setnetworkactive")

// netState is the RPC layer's view of P2P activity: the setnetworkactive
// switch and the traffic of peers that have gone (getnettotals counts
// them as bitcoind does).
type netState struct {
	active atomic.Bool

	mu         sync.Mutex
	closedSent uint64
	closedRecv uint64
	closed     map[int32]struct{} // gone peers still in the peer list
}

// maxClosedTracked is how many gone peers may wait in netState.closed for
// their removal from the peer list before the set is pruned without a
// getnettotals call.
const maxClosedTracked = 256

// prune forgets gone peers that have left the peer list.
func (ns *netState) prune(live []*serverPeer) {
	ids := make(map[int32]struct{}, len(live))
	for _, p := range live {
		ids[p.ID()] = struct{}{}
	}
	ns.mu.Lock()
	ns.pruneLocked(ids)
	ns.mu.Unlock()
}

func (ns *netState) pruneLocked(live map[int32]struct{}) {
	for id := range ns.closed {
		if _, ok := live[id]; !ok {
			delete(ns.closed, id)
		}
	}
}

// newNetState hooks the peer listeners: while the network is inactive new
// peers are refused at their version message, and every peer's final
// traffic is added to the totals when it disconnects.
func (s *server) newNetState() *netState {
	ns := &netState{closed: map[int32]struct{}{}}
	ns.active.Store(true)
	l := &s.peerCfg.Listeners
	prevVersion, prevVerAck := l.OnVersion, l.OnVerAck
	l.OnVersion = func(p *peer.Peer, m *wire.MsgVersion) error {
		if !ns.active.Load() {
			return errNetworkInactive
		}
		if prevVersion != nil {
			return prevVersion(p, m)
		}
		return nil
	}
	l.OnVerAck = func(p *peer.Peer) {
		go func() {
			p.WaitForDisconnect()
			st := p.Stats()
			ns.mu.Lock()
			ns.closedSent += st.BytesSent
			ns.closedRecv += st.BytesRecv
			ns.closed[p.ID()] = struct{}{}
			n := len(ns.closed)
			ns.mu.Unlock()
			if n > maxClosedTracked {
				ns.prune(s.peerList())
			}
		}()
		if prevVerAck != nil {
			prevVerAck(p)
		}
	}
	return ns
}

// netTotals answers getnettotals: the traffic of connected peers plus
// that of peers that completed their handshake and left, and the
// --maxuploadtarget state.
func (s *server) netTotals(ns *netState) (*rpc.NetTotals, error) {
	live := s.peerList()
	ns.mu.Lock()
	sent, recv := ns.closedSent, ns.closedRecv
	liveIDs := make(map[int32]struct{}, len(live))
	for _, p := range live {
		liveIDs[p.ID()] = struct{}{}
		if _, gone := ns.closed[p.ID()]; gone {
			continue
		}
		st := p.Stats()
		sent += st.BytesSent
		recv += st.BytesRecv
	}
	ns.pruneLocked(liveIDs)
	ns.mu.Unlock()
	return &rpc.NetTotals{
		TotalBytesRecv: recv,
		TotalBytesSent: sent,
		TimeMillis:     clock.Now().UnixMilli(),
		UploadTarget:   s.upload.status(),
	}, nil
}

// setNetworkActive answers setnetworkactive: false disconnects every peer
// and refuses new ones until it is switched back on.
func (s *server) setNetworkActive(ns *netState, active bool) (bool, error) {
	// bitcoind logs every call, a change or not, in these words.
	srvrLog.Infof("SetNetworkActive: %v", active)
	ns.active.Store(active)
	if !active {
		for _, p := range s.peerList() {
			p.Disconnect()
		}
	}
	return active, nil
}

// networkName is the getnodeaddresses/getpeerinfo network name of an
// address.
func networkName(id wire.NetworkID) string {
	switch id {
	case wire.NetIPv4:
		return "ipv4"
	case wire.NetIPv6:
		return "ipv6"
	case wire.NetTorV3:
		return "onion"
	case wire.NetI2P:
		return "i2p"
	case wire.NetCJDNS:
		return "cjdns"
	}
	return "unknown"
}

// nodeAddresses answers getnodeaddresses from the address manager: up to
// count addresses (0: all) of the named network ("" for any).
func (s *server) nodeAddresses(count int, network string) ([]rpc.NodeAddress, error) {
	all := s.addrs.GetAddresses(0, 100)
	out := make([]rpc.NodeAddress, 0, min(len(all), max(count, 0)))
	for i := range all {
		a := &all[i]
		nw := networkName(a.NetworkID)
		if network != "" && nw != network {
			continue
		}
		out = append(out, rpc.NodeAddress{
			Time: int64(a.Timestamp), Services: uint64(a.Services),
			Address: a.HostString(), Port: int(a.Port), Network: nw,
		})
		if count > 0 && len(out) == count {
			break
		}
	}
	return out, nil
}

// addedNodeInfo answers getaddednodeinfo for the permanent connection
// requests (addnode "add", --addpeer and --connect).
func (s *server) addedNodeInfo(node string) ([]rpc.AddedNodeInfo, error) {
	peers := s.peerList()
	out := []rpc.AddedNodeInfo{}
	for _, r := range s.cm.Requests() {
		if !r.Permanent {
			continue
		}
		name := s.addedName(r) // addnode.go
		if node != "" && r.Addr != normalizePeerAddr(node, s.cfg.params.DefaultPort) && r.Addr != node && name != node {
			continue
		}
		e := rpc.AddedNodeInfo{AddedNode: name, Addresses: []rpc.AddedNodeAddress{}}
		for _, p := range peers {
			if p.req != nil && p.req.ID == r.ID {
				e.Connected = true
				e.Addresses = append(e.Addresses, rpc.AddedNodeAddress{Address: p.Addr(), Connected: "outbound"})
				break
			}
		}
		out = append(out, e)
	}
	if node != "" && len(out) == 0 {
		return nil, rpc.NewError(rpc.ErrClientNodeNotAdded, "Error: Node has not been added.")
	}
	return out, nil
}

// addPeerInfoExtras fills the getpeerinfo fields the generic adapter
// leaves out: pingwait (seconds an unanswered ping has waited, present
// only while one is outstanding, as in bitcoind), addrlocal, and
// last_transaction and last_block (unix times of the last new
// transaction and block the peer gave us, 0 if none).
func (s *server) addPeerInfoExtras(infos []rpc.PeerInfo) {
	byID := make(map[int32]*serverPeer)
	for _, p := range s.peerList() {
		byID[p.ID()] = p
	}
	for i := range infos {
		p := byID[int32(infos[i].ID)]
		if p == nil {
			continue
		}
		st := p.Stats()
		if st.PingWait > 0 {
			f := rpc.Float(st.PingWait.Seconds())
			infos[i].PingWait = &f
		}
		if me := p.AddrLocal(); me.IsValid() {
			infos[i].AddrLocal = me.String()
		}
		if !st.LastNewTx.IsZero() {
			infos[i].LastTransaction = st.LastNewTx.Unix()
		}
		if !st.LastNewBlock.IsZero() {
			infos[i].LastBlock = st.LastNewBlock.Unix()
		}
	}
}

// localAddresses answers getnetworkinfo's localaddresses from the address
// manager's own addresses.
func (s *server) localAddresses() []rpc.LocalAddress {
	out := []rpc.LocalAddress{}
	for _, la := range s.addrs.LocalAddresses() {
		out = append(out, rpc.LocalAddress{Address: la.Addr.HostString(), Port: int(la.Addr.Port), Score: la.Score})
	}
	return out
}

// addExternalIPs records the --externalip addresses as our own, scored
// as Core scores manually configured ones; host names are resolved once.
func (s *server) addExternalIPs() {
	for _, a := range s.cfg.ExternalIPs {
		host, portStr, err := net.SplitHostPort(a)
		if err != nil {
			continue
		}
		port, _ := strconv.ParseUint(portStr, 10, 16)
		ips := []netip.Addr{}
		if ip, err := netip.ParseAddr(host); err == nil {
			ips = append(ips, ip)
		} else if s.cfg.NoDNS {
			srvrLog.Warnf("--externalip %s: a host name, and --nodns forbids looking it up", a)
			continue
		} else {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			ips, err = net.DefaultResolver.LookupNetIP(ctx, "ip", host)
			cancel()
			if err != nil {
				srvrLog.Warnf("--externalip %s: %v", a, err)
				continue
			}
		}
		for _, ip := range ips {
			ap := netip.AddrPortFrom(ip.Unmap(), uint16(port))
			if s.addrs.AddLocalAddress(ap, addrmgr.LocalScoreManual) {
				srvrLog.Infof("Advertising local address %v", ap)
			} else {
				srvrLog.Warnf("--externalip %s: not a routable address", a)
			}
		}
	}
}

// Local address discovery: an address that outbound peers in this many
// different network groups report seeing us at becomes a local address
// (scored as learned from peers), so a node without --externalip can still
// announce itself. Requiring several groups keeps one lying peer, or a few
// in one network, from choosing what we advertise.
const (
	discoverQuorum = 2
	maxDiscoverIPs = 64 // candidate addresses tracked at once
)

// localDiscovery counts, per reported address, the network groups of the
// outbound peers that reported it.
type localDiscovery struct {
	mu   sync.Mutex
	seen map[netip.Addr]map[string]struct{}
}

// noteSeenAs records that outbound peer p saw us at its version's
// addr_recv. Only routable addresses count, and only while we listen and
// are neither behind --proxy nor limited to --connect peers (whose view
// of us says nothing about our reachability).
func (s *server) noteSeenAs(p *peer.Peer) {
	me := p.AddrLocal()
	if !me.IsValid() || p.Inbound() || len(s.listeners) == 0 || s.cfg.proxies.any() || len(s.cfg.ConnectPeers) > 0 {
		return
	}
	s.addrs.SeenLocal(me)
	ip := me.Addr().Unmap()
	if !ip.IsGlobalUnicast() || ip.IsPrivate() {
		return
	}
	na, ok := p.NetAddress()
	if !ok {
		return
	}
	group := addrmgr.GroupKey(&na)
	d := &s.discovery
	d.mu.Lock()
	if d.seen == nil {
		d.seen = make(map[netip.Addr]map[string]struct{})
	}
	groups := d.seen[ip]
	if groups == nil {
		if len(d.seen) >= maxDiscoverIPs {
			d.mu.Unlock()
			return
		}
		groups = make(map[string]struct{})
		d.seen[ip] = groups
	}
	groups[group] = struct{}{}
	reached := len(groups) == discoverQuorum
	d.mu.Unlock()
	if !reached {
		return
	}
	ap := netip.AddrPortFrom(ip, s.listenPort())
	if s.addrs.AddLocalAddress(ap, addrmgr.LocalScorePeer) {
		srvrLog.Infof("Discovered local address %v (reported by %d peer groups)", ap, discoverQuorum)
	}
}

// localAddressFor is the peers' LocalAddress hook: the address to
// announce to p. Like Core it announces nothing while in initial block
// download, prefers our best-scored local address for p's network, and
// otherwise falls back to the routable address p says it sees us at,
// with our listening port.
func (s *server) localAddressFor(p *peer.Peer) (wire.NetAddressV2, bool) {
	if !s.chain.IsCurrent() {
		return wire.NetAddressV2{}, false
	}
	remote, _ := p.NetAddress()
	if s.inboundOnion(p) {
		remote = wire.NetAddressV2{NetworkID: wire.NetTorV3, Addr: make([]byte, 32)}
	}
	na, ok := s.addrs.BestLocalAddress(remote)
	if !ok {
		me := p.AddrLocal()
		ip := me.Addr()
		if !me.IsValid() || !ip.IsGlobalUnicast() || ip.IsPrivate() || len(s.listeners) == 0 || s.cfg.proxies.any() {
			return wire.NetAddressV2{}, false
		}
		na = wire.NetAddressV2FromNetAddress(wire.NewNetAddress(netip.AddrPortFrom(ip, s.listenPort()), 0, 0))
	}
	na.Services = s.peerCfg.Services
	return na, true
}

// listenPort is the port of our first P2P listener, which is where peers
// that learn an address of ours discovered from others can reach us.
func (s *server) listenPort() uint16 {
	if len(s.listeners) == 0 {
		return 0
	}
	if ap, err := netip.ParseAddrPort(s.listeners[0].Addr().String()); err == nil {
		return ap.Port()
	}
	return 0
}
