package addrmgr

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"net"
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/btcnode/btcd/wire"
)

// DNSSeed is a DNS seed; HasFiltering means it answers
// "x<services in hex>.<host>" with nodes offering those services. It has
// the same fields as chaincfg.DNSSeed, so one converts to the other.
type DNSSeed struct {
	Host         string
	HasFiltering bool
}

// seedServices are the services asked of filtering seeds and assumed for
// their answers (Core asks "x9.": NODE_NETWORK | NODE_WITNESS).
const seedServices = wire.SFNodeNetwork | wire.SFNodeWitness

// maxSeedResults bounds what one seed may add.
const maxSeedResults = 256

// SeedFromDNS queries the seeds in parallel and adds what they return,
// with timestamps three to seven days old as Core gives them, so they rank
// below addresses seen in relay. Each seed's answers are bucketed with the
// first of them as source, so one seed fills a limited part of the new
// table. It returns the number of addresses added.
func (m *Manager) SeedFromDNS(ctx context.Context, seeds []DNSSeed, port uint16) int {
	lookup := m.cfg.Lookup
	if lookup == nil {
		lookup = func(host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for _, s := range seeds {
		host := s.Host
		if s.HasFiltering {
			host = fmt.Sprintf("x%x.%s", uint64(seedServices), host)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ips, err := lookup(host)
			if err != nil {
				log.Debugf("DNS seed %s: %v", host, err)
				return
			}
			if ctx.Err() != nil || len(ips) == 0 {
				return
			}
			if len(ips) > maxSeedResults {
				ips = ips[:maxSeedResults]
			}
			now := m.cfg.Now()
			addrs := make([]wire.NetAddressV2, 0, len(ips))
			for _, ip := range ips {
				age := 3*24*time.Hour + time.Duration(mrand.Int64N(int64(4*24*time.Hour)))
				na := wire.NetAddressV2FromNetAddress(wire.NetAddress{
					Timestamp: uint32(now.Add(-age).Unix()), Services: seedServices,
					Addr: ip.Unmap(), Port: port})
				addrs = append(addrs, na)
			}
			n := m.AddAddresses(addrs, addrs[0], 0)
			log.Infof("%d addresses from DNS seed %s", n, host)
			mu.Lock()
			total += n
			mu.Unlock()
		}()
	}
	wg.Wait()
	return total
}

// AddFixedSeeds adds hard-coded seed addresses, used when DNS seeding
// fails or is disabled, with timestamps one to two weeks old as Core gives
// them. They share one synthetic source, so they cannot crowd out relayed
// addresses.
func (m *Manager) AddFixedSeeds(seeds []netip.AddrPort) int {
	now := m.cfg.Now()
	addrs := make([]wire.NetAddressV2, 0, len(seeds))
	for _, ap := range seeds {
		age := 7*24*time.Hour + time.Duration(mrand.Int64N(int64(7*24*time.Hour)))
		addrs = append(addrs, wire.NetAddressV2FromNetAddress(wire.NewNetAddress(ap, seedServices, uint32(now.Add(-age).Unix()))))
	}
	src := internalKey("fixed seeds")
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for i := range addrs {
		if m.addSingle(&addrs[i], &src, 0) {
			n++
		}
	}
	return n
}

// Local address scores: an address given with --externalip beats one the
// gateway mapped for us (--natpmp), which beats one we learned from peers.
const (
	LocalScoreManual = 4
	LocalScoreMapped = 3
	LocalScorePeer   = 1
)

// AddLocalAddress records an address of ours to advertise (--externalip,
// or one peers report seeing). Unroutable addresses are ignored. A higher
// score wins over a lower one for the same address.
func (m *Manager) AddLocalAddress(ap netip.AddrPort, score int) bool {
	k := keyFromAddrPort(ap)
	if !isRoutable(&k) {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.locals[k]; !ok || score > old {
		m.locals[k] = score
	}
	return true
}

// AddLocalNetAddress is AddLocalAddress for an address of any network,
// such as the onion service Tor publishes for us.
func (m *Manager) AddLocalNetAddress(na wire.NetAddressV2, score int) bool {
	k, ok := keyOf(&na)
	if !ok || !isRoutable(&k) {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.locals[k]; !ok || score > old {
		m.locals[k] = score
	}
	return true
}

// RemoveLocalNetAddress forgets one of our addresses, as when the onion
// service behind it ends.
func (m *Manager) RemoveLocalNetAddress(na wire.NetAddressV2) {
	if k, ok := keyOf(&na); ok {
		m.mu.Lock()
		delete(m.locals, k)
		m.mu.Unlock()
	}
}

// LocalAddress is one of our own addresses with its score, as
// getnetworkinfo lists them.
type LocalAddress struct {
	Addr  wire.NetAddressV2
	Score int
}

// LocalAddresses lists our own addresses, best score first.
func (m *Manager) LocalAddresses() []LocalAddress {
	m.mu.Lock()
	out := make([]LocalAddress, 0, len(m.locals))
	keys := make([]addrKey, 0, len(m.locals))
	for k := range m.locals {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b addrKey) int {
		if sa, sb := m.locals[a], m.locals[b]; sa != sb {
			return sb - sa
		}
		if keyLess(&a, &b) {
			return -1
		}
		return 1
	})
	for _, k := range keys {
		out = append(out, LocalAddress{Addr: k.netAddress(), Score: m.locals[k]})
	}
	m.mu.Unlock()
	return out
}

// SeenLocal raises the score of one of our addresses that a peer reported
// seeing us at, as Core does, so addresses confirmed by more peers are
// preferred. Addresses we do not already have are not added: a single
// peer could lie.
func (m *Manager) SeenLocal(ap netip.AddrPort) bool {
	seen := keyFromAddrPort(ap)
	m.mu.Lock()
	defer m.mu.Unlock()
	found := false
	for k, score := range m.locals {
		// The port the peer saw is our outgoing one; like Core, match
		// the address only.
		if k.net != seen.net || k.addr != seen.addr {
			continue
		}
		found = true
		// Bounded so a flood of peers cannot raise a score without
		// limit.
		if score < 1<<20 {
			m.locals[k] = score + 1
		}
	}
	return found
}

// BestLocalAddress returns the local address to advertise to a peer at
// remote: the best-scored one of the same network, else the best IPv4 one
// (which every IPv6 host can also reach through a relay), else one of
// another network (an onion address for an IP peer: as Core, better than
// none, since the peer may reach Tor).
func (m *Manager) BestLocalAddress(remote wire.NetAddressV2) (wire.NetAddressV2, bool) {
	rk, _ := keyOf(&remote)
	m.mu.Lock()
	defer m.mu.Unlock()
	var best addrKey
	bestRank := -1
	const otherNet = 1 << 20 // below every same-network or IPv4 rank
	for k, score := range m.locals {
		rank := otherNet + score*2
		switch {
		case k.net == rk.net:
			rank++
		case k.net != wire.NetIPv4:
			rank -= otherNet
		}
		if rank > bestRank || (rank == bestRank && keyLess(&k, &best)) {
			best, bestRank = k, rank
		}
	}
	if bestRank < 0 {
		return wire.NetAddressV2{}, false
	}
	na := best.netAddress()
	na.Timestamp = uint32(m.cfg.Now().Unix())
	return na, true
}

// keyLess orders keys so ties are broken the same way every time.
func keyLess(a, b *addrKey) bool {
	if a.net != b.net {
		return a.net < b.net
	}
	if a.addr != b.addr {
		for i := range a.addr {
			if a.addr[i] != b.addr[i] {
				return a.addr[i] < b.addr[i]
			}
		}
	}
	return a.port < b.port
}
