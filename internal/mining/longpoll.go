package mining

import (
	"context"
	"strconv"
	"time"

	"github.com/btcnode/btcd/wire"
)

// defaultLongPollMaxWait bounds one long poll. BIP22 lets the server
// answer early; bounding it keeps a client that went away from holding an
// RPC slot for long.
const defaultLongPollMaxWait = 5 * time.Minute

// LongPollID names a template's state for BIP22 long polling: the tip it
// builds on and the mempool sequence of its selection (Core's format: the
// hash then the count of mempool updates).
func LongPollID(prev wire.Hash, sequence uint64) string {
	return prev.String() + strconv.FormatUint(sequence, 10)
}

// TipChanged wakes the long polls; the node calls it on every new tip,
// after the mempool has applied the change.
func (m *Miner) TipChanged() {
	m.tipMu.Lock()
	close(m.tipWake)
	m.tipWake = make(chan struct{})
	m.tipMu.Unlock()
}

func (m *Miner) tipChannel() <-chan struct{} {
	m.tipMu.Lock()
	defer m.tipMu.Unlock()
	return m.tipWake
}

// WaitLongPoll blocks a getblocktemplate long poll on id (a LongPollID):
// as Core, it returns at once when id names another tip than the current
// one, otherwise when the tip changes, or once LongPollMinWait (a minute)
// has passed since the call and the mempool has changed since id's
// sequence. It also returns after LongPollMaxWait, on ctx's end and on
// Quit. An id not of that form is no long poll.
func (m *Miner) WaitLongPoll(ctx context.Context, id string) {
	if len(id) < 2*len(wire.Hash{}) {
		return
	}
	// The channel is taken before the tip is read, so a change in
	// between still wakes the wait.
	tipWake := m.tipChannel()
	tip := m.cfg.Chain.BestSnapshot().Hash
	if id[:64] != tip.String() {
		return
	}
	seq, _ := strconv.ParseUint(id[64:], 10, 64)
	minWait := time.NewTimer(m.cfg.LongPollMinWait)
	defer minWait.Stop()
	maxWait := time.NewTimer(m.cfg.LongPollMaxWait)
	defer maxWait.Stop()
	var poolWake <-chan struct{} // nil (never ready) until the minimum wait is over
	for {
		select {
		case <-ctx.Done():
			return
		case <-m.cfg.Quit:
			return
		case <-maxWait.C:
			return
		case <-poolWake:
			return
		case <-minWait.C:
			poolWake = m.cfg.Pool.SequenceChanged(seq)
		case <-tipWake:
			// A wake-up for a change already seen when the wait began
			// leaves the tip as it was: keep waiting.
			tipWake = m.tipChannel()
			if m.cfg.Chain.BestSnapshot().Hash != tip {
				return
			}
		}
	}
}
