package connmgr

import (
	"sort"
	"time"

	"github.com/btcnode/btcd/wire"
)

// EvictionCandidate describes an inbound peer for SelectEviction, with
// the facts Bitcoin Core's eviction logic weighs.
type EvictionCandidate struct {
	ID        int32
	Connected time.Time
	// MinPing is the fastest ping round trip seen; zero means none yet.
	MinPing time.Duration
	// LastBlock and LastTx are when the peer last gave us a new block or
	// a transaction we accepted; zero means never.
	LastBlock time.Time
	LastTx    time.Time
	// RelayTxs is false for peers that asked for no transactions; with
	// RelevantServices they are block-relay peers worth keeping.
	RelayTxs         bool
	RelevantServices bool
	// NetGroup is the peer's network group, hashed with a per-node
	// secret (so outsiders cannot predict which groups are protected).
	NetGroup uint64
	// NoBan peers (whitelisted) and outbound peers are never evicted.
	NoBan   bool
	Inbound bool
	// PreferEvict marks peers to evict first (for example ones that
	// misbehaved a little).
	PreferEvict bool
	// Network is the network the peer came through: wire.NetTorV3 for a
	// peer of our onion service, wire.NetI2P, wire.NetCJDNS, or its IP
	// network. Local marks a loopback peer. Onion, I2P, CJDNS and local
	// peers have slow pings and so lose on the other criteria; part of
	// the uptime protection is kept for them.
	Network wire.NetworkID
	Local   bool
}

// SelectEviction picks the inbound peer to drop when a new inbound
// connection arrives and all slots are taken, following Bitcoin Core: it
// protects, in turn, the 4 peers with the highest keyed network groups, the
// 8 with the lowest ping, the 4 that most recently sent new transactions,
// up to 8 block-relay peers and the 4 that most recently sent new blocks,
// and then half of the rest by longest uptime, up to half of those spots
// going to the longest-connected peers of the disadvantaged networks
// (protectByUptime). An attacker must beat honest
// peers on all of these at once to take over our inbound slots. Of the
// remaining peers it evicts the youngest in the network group with the
// most connections. ok is false when every peer is protected.
func SelectEviction(cands []EvictionCandidate) (id int32, ok bool) {
	c := make([]EvictionCandidate, 0, len(cands))
	for _, e := range cands {
		if e.Inbound && !e.NoBan {
			c = append(c, e)
		}
	}
	// protect sorts so the best k (by less, "better" last) are at the end
	// and drops those that pass keep.
	protect := func(less func(a, b *EvictionCandidate) bool, k int, eligible func(*EvictionCandidate) bool) {
		sort.SliceStable(c, func(i, j int) bool { return less(&c[i], &c[j]) })
		removed := 0
		for i := len(c) - 1; i >= 0 && removed < k; i-- {
			if eligible == nil || eligible(&c[i]) {
				c = append(c[:i], c[i+1:]...)
				removed++
			}
		}
	}
	protect(func(a, b *EvictionCandidate) bool { return a.NetGroup < b.NetGroup }, 4, nil)
	protect(func(a, b *EvictionCandidate) bool { return pingKey(a) > pingKey(b) }, 8, nil)
	protect(func(a, b *EvictionCandidate) bool {
		if !a.LastTx.Equal(b.LastTx) {
			return a.LastTx.Before(b.LastTx)
		}
		return a.Connected.After(b.Connected)
	}, 4, nil)
	protect(func(a, b *EvictionCandidate) bool {
		if !a.LastBlock.Equal(b.LastBlock) {
			return a.LastBlock.Before(b.LastBlock)
		}
		return a.Connected.After(b.Connected)
	}, 8, func(e *EvictionCandidate) bool { return !e.RelayTxs && e.RelevantServices })
	protect(func(a, b *EvictionCandidate) bool {
		if !a.LastBlock.Equal(b.LastBlock) {
			return a.LastBlock.Before(b.LastBlock)
		}
		return a.Connected.After(b.Connected)
	}, 4, nil)
	c = protectByUptime(c)
	if len(c) == 0 {
		return 0, false
	}
	if pref := filter(c, func(e *EvictionCandidate) bool { return e.PreferEvict }); len(pref) > 0 {
		c = pref
	}
	// The group with the most connections; ties go to the group whose
	// youngest member is youngest.
	type groupInfo struct {
		n        int
		youngest *EvictionCandidate
	}
	groups := make(map[uint64]*groupInfo)
	var worst *groupInfo
	for i := range c {
		e := &c[i]
		g := groups[e.NetGroup]
		if g == nil {
			g = &groupInfo{}
			groups[e.NetGroup] = g
		}
		g.n++
		if g.youngest == nil || e.Connected.After(g.youngest.Connected) {
			g.youngest = e
		}
	}
	for _, g := range groups {
		if worst == nil || g.n > worst.n || (g.n == worst.n && g.youngest.Connected.After(worst.youngest.Connected)) {
			worst = g
		}
	}
	return worst.youngest.ID, true
}

// disadvantaged is one of the networks whose peers keep part of the
// uptime protection: local peers, or those of one network.
type disadvantaged struct {
	local bool
	net   wire.NetworkID
	count int
}

func (d *disadvantaged) match(e *EvictionCandidate) bool {
	if d.local {
		return e.Local
	}
	return e.Network == d.net
}

// protectByUptime removes from c the half of it to protect by uptime, as
// Core's ratio protection: up to a quarter of c (half of the protected
// spots) goes first to the longest-connected peers of CJDNS, I2P, local
// and onion, shared evenly between the networks that have candidates,
// the ones with fewer candidates first so they can take over spots
// another leaves unused; the rest of the half goes to the longest
// connected overall.
func protectByUptime(c []EvictionCandidate) []EvictionCandidate {
	total := len(c) / 2
	nets := []disadvantaged{{net: wire.NetCJDNS}, {net: wire.NetI2P}, {local: true}, {net: wire.NetTorV3}}
	for i := range nets {
		for j := range c {
			if nets[i].match(&c[j]) {
				nets[i].count++
			}
		}
	}
	sort.SliceStable(nets, func(i, j int) bool { return nets[i].count < nets[j].count })
	// removeOldest drops up to k candidates that keep passes, longest
	// connected first, and returns how many it dropped.
	removeOldest := func(k int, keep func(*EvictionCandidate) bool) int {
		sort.SliceStable(c, func(i, j int) bool { return c[i].Connected.After(c[j].Connected) })
		removed := 0
		for i := len(c) - 1; i >= 0 && removed < k; i-- {
			if keep(&c[i]) {
				c = append(c[:i], c[i+1:]...)
				removed++
			}
		}
		return removed
	}
	maxByNet := total / 2
	done := 0
	for done < maxByNet {
		active := 0
		for i := range nets {
			if nets[i].count > 0 {
				active++
			}
		}
		if active == 0 {
			break
		}
		per := max((maxByNet-done)/active, 1)
		progress := false
		for i := range nets {
			if nets[i].count == 0 {
				continue
			}
			n := removeOldest(min(per, maxByNet-done), nets[i].match)
			if n > 0 {
				progress = true
				done += n
				nets[i].count -= n
			}
			if done >= maxByNet {
				break
			}
		}
		if !progress {
			break
		}
	}
	removeOldest(total-done, func(*EvictionCandidate) bool { return true })
	return c
}

// pingKey orders unknown pings as slowest.
func pingKey(e *EvictionCandidate) time.Duration {
	if e.MinPing <= 0 {
		return time.Duration(1<<63 - 1)
	}
	return e.MinPing
}

func filter(c []EvictionCandidate, keep func(*EvictionCandidate) bool) []EvictionCandidate {
	var out []EvictionCandidate
	for i := range c {
		if keep(&c[i]) {
			out = append(out, c[i])
		}
	}
	return out
}
