package peer

import (
	"github.com/btcnode/btcd/peer/bloom"
	"github.com/btcnode/btcd/wire"
)

// PenaltyBloom scores a filterload over BIP37's limits and a filteradd
// that is too large or comes without a loaded filter: Core treats both as
// misbehaviour that discourages the peer, so the score reaches the default
// threshold.
const PenaltyBloom = DefaultBanThreshold

// LocalServices returns the services we offer this peer: the configured
// ones, plus NODE_BLOOM for a peer with the bloomfilter permission, as
// Core offers it to such peers whatever -peerbloomfilters says.
func (p *Peer) LocalServices() wire.ServiceFlag {
	s := p.cfg.Services
	if p.perms.Has(PermBloomFilter) {
		s |= wire.SFNodeBloom
	}
	return s
}

// handleFilterMsg handles filterload, filteradd and filterclear (BIP37).
// A peer we offer no NODE_BLOOM is disconnected for any of them. Loading
// or clearing a filter also turns transaction relay on, whatever the
// version message's relay flag said. Block-relay-only connections keep no
// filter, so the messages change nothing there.
func (p *Peer) handleFilterMsg(msg wire.Message) {
	if p.LocalServices()&wire.SFNodeBloom == 0 {
		p.cfg.Log.Debugf("%s received despite not offering bloom services, disconnecting peer=%d", msg.Command(), p.id)
		p.disconnectf(ErrProtocolViolation, "%s without bloom service", msg.Command())
		return
	}
	txRelay := p.connType != ConnBlockRelay
	switch m := msg.(type) {
	case *wire.MsgFilterLoad:
		if !m.WithinSizeConstraints() {
			p.Misbehaving(PenaltyBloom, "too-large bloom filter")
			return
		}
		if txRelay {
			f := bloom.Load(m)
			p.mu.Lock()
			p.bloom, p.relayTx = f, true
			p.mu.Unlock()
		}
	case *wire.MsgFilterAdd:
		bad := !m.WithinSizeLimit()
		if !bad && txRelay {
			if f := p.BloomFilter(); f != nil {
				f.Add(m.Data)
			} else {
				bad = true
			}
		}
		if bad {
			p.Misbehaving(PenaltyBloom, "bad filteradd message")
		}
	case *wire.MsgFilterClear:
		if txRelay {
			p.mu.Lock()
			p.bloom, p.relayTx = nil, true
			p.mu.Unlock()
		}
	}
}

// BloomFilter returns the BIP37 filter the peer loaded, nil if none.
func (p *Peer) BloomFilter() *bloom.Filter {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.bloom
}

// RelevantTx reports whether tx may be announced to the peer as far as
// its bloom filter is concerned: always without a filter, otherwise when
// it matches (which may add its outputs to the filter, per the filter's
// update mode).
func (p *Peer) RelevantTx(tx *wire.MsgTx) bool {
	f := p.BloomFilter()
	return f == nil || f.MatchTxAndUpdate(tx)
}
