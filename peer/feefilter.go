package peer

import (
	"math/rand/v2"
	"time"

	"github.com/btcnode/btcd/wire"
)

// Feefilter schedule (BIP133), with Core's values.
const (
	// MaxFeeFilter is the feefilter announced during initial block
	// download: Core's fee rounder applied to MAX_MONEY, the highest
	// value it ever sends, which tells peers to announce nothing.
	MaxFeeFilter = 9_170_997
	// avgFeeFilterInterval is the mean time between feefilter updates
	// (AVG_FEEFILTER_BROADCAST_INTERVAL).
	avgFeeFilterInterval = 10 * time.Minute
	// maxFeeFilterChangeDelay bounds how long a large change of the
	// value waits (MAX_FEEFILTER_CHANGE_DELAY).
	maxFeeFilterChangeDelay = 5 * time.Minute
)

// sendsFeeFilter reports whether the peer gets feefilter messages. As
// Core: not under --blocksonly, not to a forcerelay peer (we take its
// transactions whatever their fee), not on a block-relay-only connection
// and not to peers too old for the message.
func (p *Peer) sendsFeeFilter() bool {
	return p.cfg.FeeFilter != nil && !p.cfg.DisableRelayTx && !p.perms.Has(PermForceRelay) &&
		p.connType != ConnBlockRelay && p.pver.Load() >= wire.FeeFilterVersion
}

// startFeeFilter sends the first feefilter, after the other post-verack
// negotiation messages, and lets the timers send the later ones.
func (p *Peer) startFeeFilter(now time.Time) {
	p.feeMu.Lock()
	p.feeStarted = true
	p.feeMu.Unlock()
	p.maybeSendFeeFilter(now)
}

// maybeSendFeeFilter sends the current feefilter when it is due and has
// changed: the due time is exponentially distributed around
// avgFeeFilterInterval after the last send, brought forward to within
// maxFeeFilterChangeDelay when the value moved by more than a third
// (down to 3/4 or up to 4/3), and immediate when initial block download
// has just ended (the peer was told MaxFeeFilter).
func (p *Peer) maybeSendFeeFilter(now time.Time) {
	if !p.sendsFeeFilter() {
		return
	}
	current := p.cfg.FeeFilter()
	ibd := p.cfg.InitialDownload != nil && p.cfg.InitialDownload()
	if ibd {
		current = MaxFeeFilter
	}
	send := false
	p.feeMu.Lock()
	if !p.feeStarted {
		p.feeMu.Unlock()
		return
	}
	if !ibd && p.feeSent == MaxFeeFilter {
		p.feeNext = time.Time{}
	}
	switch {
	case now.After(p.feeNext):
		if current != p.feeSent {
			send = true
			p.feeSent = current
		}
		p.feeNext = now.Add(poissonDelay(avgFeeFilterInterval))
	case now.Add(maxFeeFilterChangeDelay).Before(p.feeNext) &&
		(current < 3*p.feeSent/4 || current > 4*p.feeSent/3):
		p.feeNext = now.Add(time.Duration(rand.Int64N(int64(maxFeeFilterChangeDelay))))
	}
	p.feeMu.Unlock()
	if send {
		p.QueueMessage(&wire.MsgFeeFilter{MinFee: current}, nil)
	}
}
