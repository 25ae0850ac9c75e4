package node

import (
	"crypto/rand"
	"encoding/binary"
	"time"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/peer/addrmgr"
	"github.com/btcnode/btcd/wire"
)

// Address gossip, the node's half: storing what peers tell us, choosing
// which peers an address is relayed to, and answering getaddr. The peer
// package does the per-peer half (rate limiting, what each peer knows,
// the send schedule).

const (
	// addrRelayFresh is how recent an address's timestamp must be for
	// it to be relayed (Core relays only addresses seen in the last ten
	// minutes).
	addrRelayFresh = 10 * 60
	// addrRelayRotation is how long an address keeps the same relay
	// destinations (Core's ROTATE_ADDR_RELAY_DEST_INTERVAL): peers that
	// repeat an address to us within it do not spread it further.
	addrRelayRotation = 24 * 60 * 60
	// addrRelayPenalty lowers the timestamps of gossiped addresses in
	// the address manager, as hearsay ranks below what we saw.
	addrRelayPenalty = 2 * time.Hour
)

// addrRelay holds the node-wide address gossip state: the secret that
// makes relay destinations unpredictable to outsiders.
type addrRelay struct {
	s      *server
	k0, k1 uint64
}

// setupAddrRelay installs the address listeners on the peer template.
func (s *server) setupAddrRelay() {
	r := &addrRelay{s: s}
	var key [16]byte
	rand.Read(key[:])
	r.k0, r.k1 = binary.LittleEndian.Uint64(key[:8]), binary.LittleEndian.Uint64(key[8:])
	s.peerCfg.Listeners.OnAddrs = r.received
	s.peerCfg.Listeners.OnGetAddr = r.getAddr
}

// reachable reports whether we could connect to na (Core's reachable
// networks): IP always, Tor through a proxy, CJDNS with
// --cjdnsreachable, I2P never (not supported). Only reachable addresses
// are stored.
func (r *addrRelay) reachable(na *wire.NetAddressV2) bool {
	switch na.NetworkID {
	case wire.NetIPv4, wire.NetIPv6:
		return true
	case wire.NetTorV3:
		return r.s.cfg.proxies.onion != "" || r.s.tor.socks.Load() != nil
	case wire.NetCJDNS:
		return r.s.cfg.CJDNSReachable
	}
	return false
}

// received stores the reachable addresses a peer sent and relays the
// fresh, routable ones of a relayable message.
func (r *addrRelay) received(p *peer.Peer, addrs []wire.NetAddressV2, relay bool) {
	now := clock.Unix()
	keep := make([]wire.NetAddressV2, 0, len(addrs))
	for i := range addrs {
		na := &addrs[i]
		reachable := r.reachable(na)
		if relay && int64(na.Timestamp) > now-addrRelayFresh && addrmgr.IsRoutable(na) {
			r.relay(p, na, reachable, now)
		}
		if reachable {
			keep = append(keep, *na)
		}
	}
	if len(keep) > 0 {
		// A peer without an IP (reached by name through a proxy) is an
		// unknown source to the address manager.
		src, _ := p.NetAddress()
		r.s.addrs.AddAddresses(keep, src, addrRelayPenalty)
	}
}

// addrHash is SipHash of an address's network, bytes and port, then of
// extra words, under the relay secret.
func (r *addrRelay) addrHash(na *wire.NetAddressV2) uint64 {
	b := make([]byte, 0, 1+len(na.Addr)+2)
	b = append(b, byte(na.NetworkID))
	b = append(b, na.Addr...)
	b = append(b, byte(na.Port>>8), byte(na.Port))
	return wire.SipHash24(r.k0, r.k1, b)
}

func (r *addrRelay) hashWords(words ...uint64) uint64 {
	b := make([]byte, 0, 8*len(words))
	for _, w := range words {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	return wire.SipHash24(r.k0, r.k1, b)
}

// relay queues na for up to two peers other than from that take part in
// address relay, as Core's RelayAddress: the peers are those ranking
// highest under a hash of the address, the current day-long window and
// the peer id, so an address goes to the same peers for a day and a peer
// repeating it gains nothing. Unreachable addresses go to one or two.
func (r *addrRelay) relay(from *peer.Peer, na *wire.NetAddressV2, reachable bool, now int64) {
	h := r.addrHash(na)
	// Adding the address hash spreads the windows' edges over the day.
	window := (uint64(now) + h) / addrRelayRotation
	seed := r.hashWords(h, window)
	n := 2
	if !reachable && seed&1 == 0 {
		n = 1
	}
	type ranked struct {
		score uint64
		p     *peer.Peer
	}
	var best [2]ranked
	for _, sp := range r.s.peerList() {
		q := sp.Peer
		if q.ID() == from.ID() || !q.CanRelayAddress(na) {
			continue
		}
		score := r.hashWords(seed, uint64(q.ID()))
		for i := 0; i < n; i++ {
			if score > best[i].score {
				copy(best[i+1:n], best[i:n-1])
				best[i] = ranked{score, q}
				break
			}
		}
	}
	for i := 0; i < n && best[i].p != nil; i++ {
		best[i].p.PushAddress(*na)
	}
}

// getAddr answers a peer's getaddr with up to 1000 addresses, at most 23%
// of the table. As in Core, peers with the addr permission get a fresh
// sample; others get the answer cached for the local address they
// connected to, which changes only every 21 to 27 hours, so repeated
// requests cannot map the table. Banned addresses are left out.
func (r *addrRelay) getAddr(p *peer.Peer) {
	var addrs []wire.NetAddressV2
	if p.HasPermission(peer.PermAddr) {
		addrs = r.s.addrs.GetAddresses(addrmgr.GetAddrMax, addrmgr.GetAddrMaxPct)
	} else {
		addrs = r.s.addrs.CachedAddresses(getAddrCacheKey(p))
	}
	for _, na := range addrs {
		if ip, ok := na.IP(); ok && r.s.bans.IsBanned(ip.Unmap()) {
			continue
		}
		p.PushAddress(na)
	}
}

// getAddrCacheKey names the getaddr cache a peer is answered from: one
// per local address (and port) peers connect to, as Core keys it by the
// network and the local socket, so a node listening on several addresses
// (an onion bind among them) cannot be linked by its answers.
func getAddrCacheKey(p *peer.Peer) string {
	if a := p.LocalAddr(); a != nil {
		return a.String()
	}
	return ""
}
