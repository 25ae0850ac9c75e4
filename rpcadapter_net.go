package main

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/btcnode/btcd/peer"
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
// that of peers that completed their handshake and left. There is no
// upload target (-maxuploadtarget), so it reports none, as bitcoind does
// by default.
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
		TimeMillis:     time.Now().UnixMilli(),
		UploadTarget:   rpc.UploadTarget{TimeFrame: 86400, ServeHistoricalBlocks: true},
	}, nil
}

// setNetworkActive answers setnetworkactive: false disconnects every peer
// and refuses new ones until it is switched back on.
func (s *server) setNetworkActive(ns *netState, active bool) (bool, error) {
	was := ns.active.Swap(active)
	if was != active {
		srvrLog.Infof("setnetworkactive: %v", active)
	}
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
		if node != "" && r.Addr != normalizePeerAddr(node, s.cfg.params.DefaultPort) && r.Addr != node {
			continue
		}
		e := rpc.AddedNodeInfo{AddedNode: r.Addr, Addresses: []rpc.AddedNodeAddress{}}
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
