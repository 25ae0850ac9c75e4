package node

import (
	"context"
	mrand "math/rand/v2"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/btcnode/btcd/internal/clock"
	"github.com/btcnode/btcd/peer"
	"github.com/btcnode/btcd/peer/addrmgr"
)

// Bitcoin Core's seeding constants (net.cpp), which its functional tests
// time themselves by.
const (
	// dnsSeedsAtOnce is how many DNS seeds are queried before the node
	// waits again to see whether it found peers.
	dnsSeedsAtOnce = 3
	// dnsSeedsDelayFewPeers is the wait before querying DNS seeds when
	// the address manager knows some addresses.
	dnsSeedsDelayFewPeers = 11 * time.Second
	// dnsSeedsDelayManyPeers is that wait when it knows many.
	dnsSeedsDelayManyPeers = 5 * time.Minute
	// dnsSeedsManyPeers is what "many" means.
	dnsSeedsManyPeers = 1000
	// seedOutboundThreshold is how many full-relay outbound peers make
	// seeding unnecessary.
	seedOutboundThreshold = 2
	// seedNodeTimeout is how long the seed nodes get before the DNS
	// seeds are tried.
	seedNodeTimeout = 30 * time.Second
	// addNextSeedNode is how long the node waits for outbound peers
	// before it asks the next seed node.
	addNextSeedNode = 10 * time.Second
	// fixedSeedDelay is how long the address manager may stay empty
	// before the fixed seeds are added while other sources (DNS seeds,
	// seed nodes, added nodes) may still fill it.
	fixedSeedDelay = time.Minute
	// openConnTick is how often the seeding loop looks at the state; the
	// deadlines it checks follow the node clock, so setmocktime moves them.
	openConnTick = 500 * time.Millisecond
)

// regtestDummySeed is regtest's one DNS seed, as in bitcoind: a name under
// .invalid, which never resolves (RFC 6761), so the seeding logic runs and
// logs as on other networks without a query leaving the machine.
const regtestDummySeed = "dummySeed.invalid."

// dnsSeeds returns the network's DNS seeds in random order, so no seed is
// always asked first.
func (s *server) dnsSeeds() []addrmgr.DNSSeed {
	seeds := make([]addrmgr.DNSSeed, 0, len(s.cfg.params.DNSSeeds)+1)
	for _, d := range s.cfg.params.DNSSeeds {
		seeds = append(seeds, addrmgr.DNSSeed(d))
	}
	if len(seeds) == 0 && s.cfg.netName == "regtest" {
		seeds = append(seeds, addrmgr.DNSSeed{Host: regtestDummySeed})
	}
	mrand.Shuffle(len(seeds), func(i, j int) { seeds[i], seeds[j] = seeds[j], seeds[i] })
	return seeds
}

// neverResolves reports whether host is under a name RFC 6761 reserves as
// never existing; looking it up would only leak a query.
func neverResolves(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	return h == "invalid" || strings.HasSuffix(h, ".invalid")
}

// fullOutboundCount counts the connected full-relay outbound peers, the
// ones that give us addresses.
func (s *server) fullOutboundCount() int {
	n := 0
	for _, p := range s.peerList() {
		if p.ConnType() == peer.ConnFullRelay && p.Stats().HandshakeDone {
			n++
		}
	}
	return n
}

// sleep waits d or until shutdown; it reports false on shutdown.
func (s *server) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.quit:
		return false
	case <-t.C:
		return true
	}
}

// startSeeding starts what finds the first peers, as bitcoind's dnsseed
// and opencon threads do: the DNS seeds, the seed nodes and the fixed
// seeds.
func (s *server) startSeeding() {
	// bitcoind names its connection threads in these lines; the added
	// nodes (--addpeer, addnode) are the connection manager's own.
	cmgrLog.Info("addcon thread start")
	if s.dnsSeed {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			amgrLog.Info("dnsseed thread start")
			s.runDNSSeeding()
		}()
	} else {
		amgrLog.Info("DNS seeding disabled")
	}
	auto := s.autoConnect
	if auto {
		s.connectAnchors() // anchors.go
	}
	if auto || len(s.cfg.ConnectPeers) > 0 {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			amgrLog.Info("opencon thread start")
			if auto {
				s.runOpenConnSeeding(addrmgr.FixedSeeds(s.cfg.params.Net))
			}
		}()
	}
}

// runDNSSeeding queries the DNS seeds when addresses are needed: at once
// when the address manager is empty (or --forcednsseed), otherwise only
// if the node still lacks outbound peers after a delay, a few seeds at a
// time, so the seeds get little say over whom the node connects to.
func (s *server) runDNSSeeding() {
	outbound := 0
	if len(s.cfg.SeedNodes) > 0 {
		amgrLog.Infof("-seednode enabled. Trying the provided seeds for %d seconds before defaulting to the dnsseeds.", int(seedNodeTimeout/time.Second))
		start := time.Now()
		for {
			if !s.sleep(openConnTick) {
				return
			}
			if time.Since(start) > seedNodeTimeout {
				amgrLog.Info("Couldn't connect to enough peers via seed nodes. Handing fetch logic to the DNS seeds.")
				break
			}
			if outbound = s.fullOutboundCount(); outbound >= seedOutboundThreshold {
				amgrLog.Info("P2P peers available. Finished fetching data from seed nodes.")
				break
			}
		}
	}
	seeds := s.dnsSeeds()
	now := 0 // seeds to query before looking at the peers again
	if s.cfg.ForceDNSSeed || s.addrs.Size() == 0 {
		now = len(seeds)
	}
	if outbound >= seedOutboundThreshold && now == 0 {
		amgrLog.Info("Skipping DNS seeds. Enough peers have been found")
		return
	}
	wait := dnsSeedsDelayFewPeers
	if s.addrs.Size() >= dnsSeedsManyPeers {
		wait = dnsSeedsDelayManyPeers
	}
	port, _ := strconv.Atoi(s.cfg.params.DefaultPort)
	found := 0
	for _, seed := range seeds {
		if now == 0 {
			now = dnsSeedsAtOnce
			if s.addrs.Size() > 0 {
				amgrLog.Infof("Waiting %d seconds before querying DNS seeds.", int(wait/time.Second))
				for left := wait; left > 0; {
					// Waking every few seconds lets a node that found
					// its peers meanwhile stop early.
					w := min(dnsSeedsDelayFewPeers, left)
					if !s.sleep(w) {
						return
					}
					left -= w
					if s.fullOutboundCount() >= seedOutboundThreshold {
						if found > 0 {
							amgrLog.Infof("%d addresses found from DNS seeds", found)
							amgrLog.Info("P2P peers available. Finished DNS seeding.")
						} else {
							amgrLog.Info("P2P peers available. Skipped DNS seeding.")
						}
						return
					}
				}
			}
		}
		if !s.net.active.Load() {
			amgrLog.Info("Waiting for network to be reactivated before querying DNS seeds.")
			for !s.net.active.Load() {
				if !s.sleep(time.Second) {
					return
				}
			}
		}
		amgrLog.Infof("Loading addresses from DNS seed %s", seed.Host)
		switch {
		case neverResolves(seed.Host):
		case s.cfg.proxies.name != "":
			// Resolving locally would tell the resolver who we are;
			// the proxy reaches the seed's name instead.
			s.addrFetch(strings.TrimSuffix(seed.Host, "."))
		default:
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			go func() {
				select {
				case <-s.quit:
					cancel()
				case <-ctx.Done():
				}
			}()
			found += s.addrs.SeedFromDNS(ctx, []addrmgr.DNSSeed{seed}, uint16(port))
			cancel()
		}
		now--
	}
	amgrLog.Infof("%d addresses found from DNS seeds", found)
}

// runOpenConnSeeding hands the seed nodes out as addr-fetch connections
// (one at once when the address manager is empty, the next whenever the
// node has lacked outbound peers for addNextSeedNode) and adds the fixed
// seeds when nothing else fills the address manager: at once when no
// other source is configured, otherwise after fixedSeedDelay.
func (s *server) runOpenConnSeeding(fixed []netip.AddrPort) {
	seedNodes := append([]string(nil), s.cfg.SeedNodes...)
	fetchNext := s.addrs.Size() == 0 && len(seedNodes) > 0
	seedTimer := clock.Now()
	addFixed := !s.cfg.NoFixedSeeds
	if !addFixed {
		amgrLog.Info("Fixed seeds are disabled")
	}
	start := clock.Now()
	for addFixed || len(seedNodes) > 0 {
		if fetchNext {
			fetchNext = false
			seed := seedNodes[len(seedNodes)-1]
			seedNodes = seedNodes[:len(seedNodes)-1]
			if s.addrs.Size() == 0 {
				amgrLog.Infof("Empty addrman, adding seednode (%s) to addrfetch", seed)
			} else {
				amgrLog.Infof("Couldn't connect to peers from addrman after %d seconds. Adding seednode (%s) to addrfetch", int(addNextSeedNode/time.Second), seed)
			}
			s.addrFetch(seed)
		}
		if !s.sleep(openConnTick) {
			return
		}
		if addFixed && s.addrs.Size() == 0 {
			now := false
			if clock.Now().After(start.Add(fixedSeedDelay)) {
				now = true
				amgrLog.Info("Adding fixed seeds as 60 seconds have passed and addrman is empty")
			} else if !s.dnsSeed && len(s.cfg.SeedNodes) == 0 && !s.hasAddedNodes() {
				now = true
				amgrLog.Info("Adding fixed seeds as -dnsseed=0 (or IPv4/IPv6 connections are disabled via -onlynet) and neither -addnode nor -seednode are provided")
			}
			if now {
				n := s.addrs.AddFixedSeeds(fixed)
				amgrLog.Infof("Added %d fixed seeds from reachable networks.", n)
				addFixed = false
			}
		}
		if len(seedNodes) > 0 && s.fullOutboundCount() < seedOutboundThreshold && clock.Now().After(seedTimer.Add(addNextSeedNode)) {
			seedTimer = clock.Now()
			fetchNext = true
		}
	}
}

// hasAddedNodes reports whether -addnode or the addnode RPC gave peers to
// keep connected to.
func (s *server) hasAddedNodes() bool {
	if len(s.cfg.AddPeers) > 0 {
		return true
	}
	for _, r := range s.cm.Requests() {
		if r.Permanent {
			return true
		}
	}
	return false
}
