package peer

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"time"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/wire"
)

// The peer's side of address gossip, as Core's net_processing keeps it per
// peer: whether the peer takes part, the token bucket limiting what it may
// make us process, what it already knows, and the addresses waiting for
// its next addr message. Choosing which peers an address is relayed to
// and answering getaddr are the server's (OnAddrs, OnGetAddr).

// Timestamps of received addresses outside this window are replaced,
// as Core does: before 1973 or more than ten minutes ahead of us.
const (
	minAddrTime    = 100_000_000
	maxAddrFuture  = 10 * 60
	staleAddrSince = 5 * 24 * 60 * 60 // what a bad timestamp becomes
)

// addrSeed keys the known-address set so remote peers cannot aim
// collisions at it.
var addrSeed = maphash.MakeSeed()

// addrSetKey identifies an address (network, bytes, port) in knownAddrs.
func addrSetKey(na *wire.NetAddressV2) uint64 {
	var h maphash.Hash
	h.SetSeed(addrSeed)
	h.WriteByte(byte(na.NetworkID))
	h.Write(na.Addr)
	h.WriteByte(byte(na.Port >> 8))
	h.WriteByte(byte(na.Port))
	return h.Sum64()
}

// enableAddrRelay makes the peer take part in address relay unless it is
// a block-relay-only connection (Core's SetupAddressRelay), and reports
// whether it does.
func (p *Peer) enableAddrRelay() bool {
	if p.connType == ConnBlockRelay {
		return false
	}
	p.addrRelay.Store(true)
	return true
}

// AddrRelayEnabled reports whether we gossip addresses with the peer:
// outbound peers except block-relay-only ones from the handshake on,
// inbound peers once they sent addr, addrv2 or getaddr (so a peer that
// never asks is no sink for our addresses).
func (p *Peer) AddrRelayEnabled() bool { return p.addrRelay.Load() }

// CanRelayAddress reports whether na may be relayed to the peer: it takes
// part in address relay and can receive na (addresses that only addrv2
// carries need a peer that asked for addrv2).
func (p *Peer) CanRelayAddress(na *wire.NetAddressV2) bool {
	if !p.addrRelay.Load() {
		return false
	}
	if _, v1 := na.ToNetAddress(); v1 {
		return true
	}
	return p.WantsAddrV2()
}

// PushAddress queues na for the peer's next addr message (sent at
// exponentially distributed intervals of AddrInterval on average). It
// does nothing when the peer cannot take it (see CanRelayAddress) or
// already knows it; once a message's worth is queued, a random queued
// address is replaced.
func (p *Peer) PushAddress(na wire.NetAddressV2) {
	if !p.CanRelayAddress(&na) {
		return
	}
	key := addrSetKey(&na)
	p.addrMu.Lock()
	defer p.addrMu.Unlock()
	if p.knownAddrs.has(key) {
		return
	}
	if len(p.addrsToSend) >= wire.MaxAddrPerMsg {
		p.addrsToSend[rand.IntN(len(p.addrsToSend))] = na
		return
	}
	p.addrsToSend = append(p.addrsToSend, na)
}

// PushGetAddr asks the peer for addresses, once per connection, and
// allows that many more addresses through its rate limit, as Core does.
// An outbound peer is asked by itself during the handshake, so calling
// this for one afterwards does nothing; a block-relay-only peer is never
// asked.
func (p *Peer) PushGetAddr() {
	if !p.enableAddrRelay() {
		return
	}
	p.addrMu.Lock()
	if p.askedAddrs {
		p.addrMu.Unlock()
		return
	}
	p.askedAddrs, p.getAddrSent = true, true
	p.addrTokens += wire.MaxAddrPerMsg
	p.addrMu.Unlock()
	p.QueueMessage(&wire.MsgGetAddr{}, nil)
}

// oversizedAddr handles an addr or addrv2 of more than 1000 entries: Core
// scores and disconnects, except on block-relay-only connections, where
// address messages are ignored unread.
func (p *Peer) oversizedAddr(cmd string, n uint64) {
	if !p.enableAddrRelay() {
		p.cfg.Log.Debugf("ignoring %s message from %s peer=%d", cmd, p.ConnType(), p.id)
		return
	}
	p.misbehaveAndDisconnect(PenaltyOversized, ErrProtocolViolation, fmt.Sprintf("%s message size = %d", cmd, n))
}

// handleAddrs processes a received addr or addrv2 message as Core does:
// refill the token bucket, take the entries in random order while tokens
// last (peers with the addr permission are not limited), skip addresses
// without a useful service, fix implausible timestamps, remember each as
// known to the peer, and hand the ones not banned to OnAddrs.
func (p *Peer) handleAddrs(cmd string, addrs []wire.NetAddressV2) {
	if !p.enableAddrRelay() {
		p.cfg.Log.Debugf("ignoring %s message from %s peer=%d", cmd, p.ConnType(), p.id)
		return
	}
	total := len(addrs)
	now := clock.Now()
	unix := now.Unix()
	limited := !p.perms.Has(PermAddr)
	rand.Shuffle(total, func(i, j int) { addrs[i], addrs[j] = addrs[j], addrs[i] })
	kept := addrs[:0]
	var processed, rateLimited uint64

	p.addrMu.Lock()
	if p.addrTokens < addrTokenBucketMax {
		if elapsed := now.Sub(p.addrTokensTime); elapsed > 0 {
			p.addrTokens = min(p.addrTokens+elapsed.Seconds()*addrRatePerSecond, addrTokenBucketMax)
		}
	}
	p.addrTokensTime = now
	for i := range addrs {
		na := addrs[i]
		if p.addrTokens < 1 {
			if limited {
				rateLimited++
				continue
			}
		} else {
			p.addrTokens--
		}
		if na.Services&(wire.SFNodeNetwork|wire.SFNodeNetworkLimited) == 0 {
			continue // not a node we could sync from
		}
		if ts := int64(na.Timestamp); ts <= minAddrTime || ts > unix+maxAddrFuture {
			na.Timestamp = uint32(unix - staleAddrSince)
		}
		p.knownAddrs.add(addrSetKey(&na), maxKnownAddrs)
		if p.addrBanned(&na) {
			continue
		}
		processed++
		kept = append(kept, na)
	}
	relay := !p.getAddrSent && total <= 10
	if total < wire.MaxAddrPerMsg {
		// A short message is the answer to our getaddr (or there
		// will be none); later small ones are gossip again.
		p.getAddrSent = false
	}
	p.addrProcessed += processed
	p.addrRateLimited += rateLimited
	p.addrMu.Unlock()

	p.cfg.Log.Debugf("Received addr: %d addresses (%d processed, %d rate-limited) from peer=%d",
		total, processed, rateLimited, p.id)
	if l := p.cfg.Listeners.OnAddrs; l != nil && len(kept) > 0 {
		l(p, kept, relay)
	}
	if p.connType == ConnAddrFetch && total > 1 {
		// One address may be a self-announcement; more answer our
		// getaddr, which is all an addr-fetch connection is for.
		p.cfg.Log.Debugf("addrfetch connection completed, disconnecting peer=%d", p.id)
		p.disconnectf(ErrFeelerDone, "addrfetch connection completed")
	}
}

// addrBanned reports whether na is a banned address, which is remembered
// as known but not processed further.
func (p *Peer) addrBanned(na *wire.NetAddressV2) bool {
	if p.cfg.Bans == nil {
		return false
	}
	ip, ok := na.IP()
	return ok && p.cfg.Bans.IsBanned(ip.Unmap())
}

// handleGetAddr answers an inbound peer's first getaddr through
// OnGetAddr; Core ignores getaddr from outbound peers, so the addresses
// we hold cannot be used to recognise us, and repeated ones.
func (p *Peer) handleGetAddr() {
	if !p.inbound {
		p.cfg.Log.Debugf("Ignoring \"getaddr\" from %s connection. peer=%d", p.ConnType(), p.id)
		return
	}
	if p.gotGetAddr {
		p.cfg.Log.Debugf("Ignoring repeated \"getaddr\". peer=%d", p.id)
		return
	}
	p.gotGetAddr = true
	p.addrSendMu.Lock()
	defer p.addrSendMu.Unlock()
	p.enableAddrRelay()
	// The answer replaces whatever gossip was waiting.
	p.addrMu.Lock()
	p.addrsToSend = p.addrsToSend[:0]
	p.addrMu.Unlock()
	if l := p.cfg.Listeners.OnGetAddr; l != nil {
		l(p)
	}
}

// maybeSendAddr sends the queued addresses once the next addr send time
// has passed, first adding our own address when its announcement is due.
// Addresses the peer knows are dropped, and the rest marked known.
func (p *Peer) maybeSendAddr(now time.Time) {
	if !p.addrRelay.Load() {
		return
	}
	p.addrSendMu.Lock()
	defer p.addrSendMu.Unlock()
	if p.cfg.LocalAddress != nil {
		p.addrMu.Lock()
		due := p.nextLocalAddr.Before(now)
		if due {
			if !p.nextLocalAddr.IsZero() {
				// Forget what the peer knows so the announcement
				// really goes out again.
				p.knownAddrs.reset()
			}
			p.nextLocalAddr = now.Add(poissonDelay(p.cfg.LocalAddrInterval))
		}
		p.addrMu.Unlock()
		if due {
			if na, ok := p.cfg.LocalAddress(p); ok {
				na.Timestamp = uint32(now.Unix())
				p.PushAddress(na)
			}
		}
	}
	p.addrMu.Lock()
	if !now.After(p.nextAddrSend) {
		p.addrMu.Unlock()
		return
	}
	p.nextAddrSend = now.Add(poissonDelay(p.cfg.AddrInterval))
	batch := make([]wire.NetAddressV2, 0, len(p.addrsToSend))
	for _, na := range p.addrsToSend {
		key := addrSetKey(&na)
		if p.knownAddrs.has(key) {
			continue
		}
		p.knownAddrs.add(key, maxKnownAddrs)
		batch = append(batch, na)
	}
	clear(p.addrsToSend)
	p.addrsToSend = p.addrsToSend[:0]
	if cap(p.addrsToSend) > 40 {
		// A getaddr answer is sent once; do not keep its array.
		p.addrsToSend = nil
	}
	p.addrMu.Unlock()
	if len(batch) == 0 {
		return
	}
	if p.WantsAddrV2() {
		p.QueueMessage(&wire.MsgAddrV2{AddrList: batch}, nil)
		return
	}
	v1 := make([]wire.NetAddress, 0, len(batch))
	for i := range batch {
		if na, ok := batch[i].ToNetAddress(); ok {
			v1 = append(v1, na)
		}
	}
	if len(v1) > 0 {
		p.QueueMessage(&wire.MsgAddr{AddrList: v1}, nil)
	}
}
