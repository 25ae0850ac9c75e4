package mining

import (
	"context"
	"testing"
	"time"

	"github.com/btcnode/btcd/wire"
)

// Long polls here run with short intervals; "never" is a bound no test
// reaches.
const (
	testMinWait = 150 * time.Millisecond
	never       = time.Minute
)

func shortWaits(minWait, maxWait time.Duration) func(*Config) {
	return func(c *Config) { c.LongPollMinWait, c.LongPollMaxWait = minWait, maxWait }
}

// poll runs WaitLongPoll on id in the background; the channel yields how
// long it took.
func poll(ctx context.Context, m *Miner, id string) <-chan time.Duration {
	done := make(chan time.Duration, 1)
	start := time.Now()
	go func() {
		m.WaitLongPoll(ctx, id)
		done <- time.Since(start)
	}()
	return done
}

func (h *harness) longPollID() string {
	return LongPollID(h.chain.BestSnapshot().Hash, h.pool.Sequence())
}

func waitDone(t *testing.T, done <-chan time.Duration, within time.Duration, what string) time.Duration {
	t.Helper()
	select {
	case d := <-done:
		return d
	case <-time.After(within):
		t.Fatalf("%s: the long poll did not return within %v", what, within)
	}
	return 0
}

func stillWaiting(t *testing.T, done <-chan time.Duration, d time.Duration, what string) {
	t.Helper()
	select {
	case <-done:
		t.Fatalf("%s: the long poll returned", what)
	case <-time.After(d):
	}
}

// TestLongPollNewTip: a new tip ends the wait at once; a wake-up that
// leaves the tip as it was does not.
func TestLongPollNewTip(t *testing.T) {
	h := newHarness(t, shortWaits(never, never))
	done := poll(context.Background(), h.miner, h.longPollID())
	h.miner.TipChanged() // the tip is unchanged
	stillWaiting(t, done, 50*time.Millisecond, "spurious wake-up")
	h.chain.setTip(wire.Hash{7})
	h.miner.TipChanged()
	waitDone(t, done, 5*time.Second, "new tip")
}

// TestLongPollStaleID: an id naming another tip, or no tip at all,
// returns at once.
func TestLongPollStaleID(t *testing.T) {
	h := newHarness(t, shortWaits(never, never))
	id := h.longPollID()
	h.chain.setTip(wire.Hash{7})
	waitDone(t, poll(context.Background(), h.miner, id), 5*time.Second, "old tip")
	waitDone(t, poll(context.Background(), h.miner, "short"), 5*time.Second, "malformed id")
}

// TestLongPollMempool: a mempool change ends the wait only once the
// minimum wait has passed; a change made before the poll began (the id's
// sequence is old) counts too.
func TestLongPollMempool(t *testing.T) {
	h := newHarness(t, shortWaits(testMinWait, never))
	done := poll(context.Background(), h.miner, h.longPollID())
	h.accept(spend([]wire.OutPoint{h.coin(100_000)}, 99_000))
	if d := waitDone(t, done, 5*time.Second, "mempool change"); d < testMinWait {
		t.Fatalf("returned after %v, before the minimum wait", d)
	}

	// Nothing changes: past the minimum wait it goes on waiting.
	done = poll(context.Background(), h.miner, h.longPollID())
	stillWaiting(t, done, 2*testMinWait, "no change")
	h.accept(spend([]wire.OutPoint{h.coin(100_000)}, 99_000))
	waitDone(t, done, 5*time.Second, "change after the minimum wait")

	stale := h.longPollID()
	h.accept(spend([]wire.OutPoint{h.coin(100_000)}, 99_000))
	if d := waitDone(t, poll(context.Background(), h.miner, stale), 5*time.Second, "old sequence"); d < testMinWait {
		t.Fatalf("old sequence: returned after %v", d)
	}
}

// TestLongPollEnds: the maximum wait, the caller's context and Quit each
// end a wait on which nothing happens.
func TestLongPollEnds(t *testing.T) {
	h := newHarness(t, shortWaits(never, 100*time.Millisecond))
	if d := waitDone(t, poll(context.Background(), h.miner, h.longPollID()), 5*time.Second, "maximum wait"); d < 100*time.Millisecond {
		t.Fatalf("returned after %v", d)
	}

	h = newHarness(t, shortWaits(never, never))
	ctx, cancel := context.WithCancel(context.Background())
	done := poll(ctx, h.miner, h.longPollID())
	stillWaiting(t, done, 30*time.Millisecond, "before cancel")
	cancel()
	waitDone(t, done, 5*time.Second, "cancel")

	done = poll(context.Background(), h.miner, h.longPollID())
	stillWaiting(t, done, 30*time.Millisecond, "before quit")
	close(h.quit)
	waitDone(t, done, 5*time.Second, "quit")
}
